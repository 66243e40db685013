use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, filter_backends = [SearchFilter], search_fields = ["title", "bdoy"])]
pub struct ArticleViewSet;

fn main() {}
