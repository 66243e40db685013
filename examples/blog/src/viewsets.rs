//! The blog's ViewSets.

use viewset_core::prelude::*;

use crate::entities::{author, post};

/// Posts at `/api/posts`: reads are open to anyone, writes need an identity.
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    prefix = "/api/posts",
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["published", "views", "author_id", "rating", "title", "created_at"],
    search_fields = ["title", "body"],
    ordering_fields = ["id", "title", "views", "created_at"],
    ordering = "-id",
    permission_classes = [IsAuthenticatedOrReadOnly],
)]
pub struct PostViewSet;

/// Authors at `/authors` (empty prefix: the table name): every operation needs an identity.
#[derive(ModelViewSet)]
#[viewset(model = author::Entity, stream_enabled = false, permission_classes = [IsAuthenticated])]
pub struct AuthorViewSet;
