use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, serializer_class = ArticleSerializer)]
pub struct ArticleViewSet;

fn main() {}
