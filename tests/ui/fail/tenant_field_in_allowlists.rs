use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// The tenant column can never be filtered, searched or ordered by clients.
#[derive(ModelViewSet)]
#[viewset(
    model = article::Entity,
    tenant_field = "slug",
    filter_backends = [ServiceFilterBackend, OrderingFilter],
    filterable_fields = ["views", "slug"],
    ordering_fields = ["slug"],
)]
pub struct ArticleViewSet;

fn main() {}
