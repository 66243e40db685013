use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, default_limit = 200, max_limit = 100)]
pub struct ArticleViewSet;

fn main() {}
