use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, filter_backends = [ServiceFilterBackend, IsAuthenticated])]
pub struct ArticleViewSet;

fn main() {}
