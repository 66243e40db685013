use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "old-articles")]
pub struct ArticleViewSet;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "2024_articles")]
pub struct Articles2024;

fn main() {}
