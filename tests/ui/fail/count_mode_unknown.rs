use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, count_mode = "fast")]
pub struct ArticleViewSet;

fn main() {}
