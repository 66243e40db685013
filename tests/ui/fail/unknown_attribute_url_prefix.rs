use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, url_prefix = "/api/articles")]
pub struct ArticleViewSet;

fn main() {}
