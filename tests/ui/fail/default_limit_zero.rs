use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, default_limit = 0)]
pub struct ArticleViewSet;

fn main() {}
