use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, ordering = "-viewz")]
pub struct ArticleViewSet;

fn main() {}
