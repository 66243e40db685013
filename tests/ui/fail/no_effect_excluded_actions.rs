use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, excluded_actions = ["delete"])]
pub struct ArticleViewSet;

fn main() {}
