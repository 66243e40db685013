use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, url_name_prefix = "article")]
pub struct ArticleViewSet;

fn main() {}
