use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// Six mistakes in one attribute: every one is reported in the same build.
#[derive(ModelViewSet)]
#[viewset(
    model = article::Entity,
    prefix = "api/articles",
    page_size = 50,
    default_limit = 0,
    filter_backends = [ServiceFilterBackend],
    search_fields = ["author__name"],
    ordering_fields = ["id"],
    ordering = "-views",
)]
pub struct ArticleViewSet;

fn main() {}
