use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, filter_backends = [SearchFilter], search_fields = ["title", "author__name"])]
pub struct ArticleViewSet;

fn main() {}
