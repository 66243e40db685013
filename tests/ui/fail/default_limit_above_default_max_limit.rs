use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// Without `max_limit`, `default_limit` is checked against core's default `max_limit`.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, default_limit = 500)]
pub struct ArticleViewSet;

fn main() {}
