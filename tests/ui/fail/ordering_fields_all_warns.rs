#![deny(deprecated)]
use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// Allowed but discouraged: compiles, with a deprecation warning at `"__all__"` (an error here, to show it).
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, filter_backends = [OrderingFilter], ordering_fields = "__all__", ordering = "-id")]
pub struct ArticleViewSet;

fn main() {}
