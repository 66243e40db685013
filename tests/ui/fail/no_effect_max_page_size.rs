use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, max_page_size = 500)]
pub struct ArticleViewSet;

fn main() {}
