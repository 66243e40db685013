use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, filter_backends = [ServiceFilterBackend], search_fields = ["title"])]
pub struct ArticleViewSet;

fn main() {}
