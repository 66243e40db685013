use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity)]
pub enum ArticleViewSet {
    Public,
    Admin,
}

fn main() {}
