use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, pagination_class = MyPagination)]
pub struct ArticleViewSet;

/// Meant as a pagination class, but it does not implement `viewset_core::pagination::Paginator`.
pub struct MyPagination;

fn main() {}
