//! The library app's ViewSets, found by `include_all_app_viewsets` (module `library::api`).

use viewset_core::prelude::*;

use super::book;

/// Books at `/library/books`.
#[derive(ModelViewSet)]
#[viewset(
    model = book::Entity,
    prefix = "/library/books",
    filter_backends = [SearchFilter, OrderingFilter],
    search_fields = ["title", "author"],
    ordering_fields = ["id", "title"],
)]
pub struct BookViewSet;
