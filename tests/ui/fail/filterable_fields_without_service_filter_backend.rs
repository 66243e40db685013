use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, filter_backends = [SearchFilter], filterable_fields = ["views"])]
pub struct ArticleViewSet;

fn main() {}
