use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// An attribute mistake does not hide a misspelt field: rustc's field error comes in the same build.
#[derive(ModelViewSet)]
#[viewset(
    model = article::Entity,
    prefix = "api/articles",
    filter_backends = [ServiceFilterBackend],
    filterable_fields = ["views", "titel"],
)]
pub struct ArticleViewSet;

fn main() {}
