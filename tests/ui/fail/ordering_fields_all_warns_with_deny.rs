#![deny(deprecated)]
use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// `"__all__"` is accepted with a warning; denying warnings proves the warning is there, at the literal.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, filter_backends = [OrderingFilter], ordering_fields = "__all__")]
pub struct ArticleViewSet;

fn main() {}
