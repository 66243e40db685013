use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, ordering_fields = ["id", "views"])]
pub struct ArticleViewSet;

fn main() {}
