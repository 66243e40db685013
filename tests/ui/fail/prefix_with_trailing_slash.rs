use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "/api/articles/")]
pub struct ArticleViewSet;

fn main() {}
