use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, allowed_actions = ["list", "retrieve"])]
pub struct ArticleViewSet;

fn main() {}
