use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, page_size = 50)]
pub struct ArticleViewSet;

fn main() {}
