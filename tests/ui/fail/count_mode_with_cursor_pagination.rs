use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(
    model = article::Entity,
    pagination_class = CursorPagination,
    filter_backends = [OrderingFilter],
    ordering_fields = ["id"],
    ordering = "-id",
    count_mode = "none",
)]
pub struct ArticleViewSet;

fn main() {}
