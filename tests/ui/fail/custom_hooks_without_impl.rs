use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// `custom_hooks` promises an `impl Hooks for ArticleViewSet`, which is never written: the error names the flag
// even though the ViewSet is never mounted.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, custom_hooks)]
pub struct ArticleViewSet;

fn main() {}
