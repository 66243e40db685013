use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, queryset = article::Entity::find())]
pub struct ArticleViewSet;

fn main() {}
