use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

pub struct OnlyMine;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, policy = [OnlyMine])]
pub struct ArticleViewSet;

fn main() {}
