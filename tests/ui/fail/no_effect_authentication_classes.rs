use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, authentication_classes = [TokenAuthentication])]
pub struct ArticleViewSet;

fn main() {}
