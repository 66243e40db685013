use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, lookup_field = "slgu")]
pub struct ArticleViewSet;

fn main() {}
