use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, create_serializer_class = NewArticle, create_schema_class = NewArticle)]
pub struct ArticleViewSet;

pub type NewArticle = <article::Model as viewset_core::ModelSchema>::Create;

fn main() {}
