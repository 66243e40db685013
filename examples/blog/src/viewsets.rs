//! The blog's ViewSets and their custom actions.

use axum::Json;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, IntoActiveModel, PaginatorTrait, QueryFilter, Set};
use serde_json::{Value, json};
use viewset_core::prelude::*;

use crate::entities::{author, post, tag};

/// Posts at `/api/posts`: reads are open to anyone, writes need an identity. A create may carry its author, new
/// (`"author": {"name": "Ada"}`) or existing (`"author": 3`), written in the same transaction. `GET /api/posts/aggregate` counts,
/// sums and averages them per author, flag or time bucket (`group_by=created_at__month`) over the same rows as the
/// list. Tags are many-to-many through `post_tags`: `?expand=tags` embeds each post's tags (one statement for the
/// page), `?tags__name=logic` and `?tags__id__in=1,2` filter through the join table (a post matching twice appears
/// once).
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    prefix = "/api/posts",
    filter_backends = [ServiceFilterBackend, SearchFilter, FullTextSearchFilter, OrderingFilter],
    filterable_fields = [
        "published", "views", "author_id", "rating", "title", "created_at", "author__name", "author__email",
        "tags__name", "tags__id",
    ],
    search_fields = ["title", "body"],
    fulltext(fields = ["title", "body"], sqlite_table = "posts_fts"),
    ordering_fields = ["id", "title", "views", "created_at", "author__name"],
    ordering = "-id",
    relations(author = author::Entity, tags = tag::Entity),
    permission_classes = [IsAuthenticatedOrReadOnly],
    expandable = ["author", "tags"],
    writable_relations = ["author"],
    bulk,
    upsert_keys = ["slug"],
    aggregates(
        group_by = ["author_id", "published", "created_at"],
        sum = ["views"],
        avg = ["rating", "views"],
        min = ["views", "created_at"],
        max = ["views", "rating", "created_at"],
        count_distinct = ["author_id"],
        max_groups = 200,
    ),
    throttle(aggregate = "600/minute"),
)]
pub struct PostViewSet;

#[viewset_core::actions]
impl PostViewSet {
    /// `POST /api/posts/{pk}/publish`: sets `published` (identity required).
    #[action(detail, methods = ["POST"], permission_classes = [IsAuthenticated])]
    async fn publish(request: RequestContext, post: post::Model) -> Result<Json<post::Model>, ApiError> {
        let mut active = post.into_active_model();
        active.published = Set(true);
        Ok(Json(active.update(&request.db).await?))
    }

    /// `GET /api/posts/stats`: `{"count", "published"}` (open).
    #[action(permission_classes = [AllowAny])]
    async fn stats(request: RequestContext) -> Result<Json<Value>, ApiError> {
        let count = post::Entity::find().count(&request.db).await?;
        let published = post::Entity::find().filter(post::Column::Published.eq(true)).count(&request.db).await?;
        Ok(Json(json!({"count": count, "published": published})))
    }
}

/// Authors at `/authors` (empty prefix: the table name): every operation needs an identity; `email` is visible to
/// and writable by staff only, and optional, so anyone signed in can create an author and staff add the email.
/// The same policy holds where an author is embedded (`/api/posts/?expand=author`: `null` for anonymous callers,
/// no `email` for non-staff); `?expand=posts` embeds an author's posts, and a create may carry them
/// (`"posts": [{"title": "One", "body": "..."}]`), each created through `PostViewSet`.
#[derive(ModelViewSet)]
#[viewset(
    model = author::Entity,
    stream_enabled = false,
    permission_classes = [IsAuthenticated],
    staff_only_fields = ["email"],
    expandable = ["posts"],
    writable_relations = ["posts"],
    aggregates(group_by = ["email", "name"], count_distinct = ["email"]),
)]
pub struct AuthorViewSet;

/// Tags at `/api/tags`: anyone reads them, staff write them (a shared vocabulary). Posts embed them
/// (`/api/posts/?expand=tags`) and filter by them (`?tags__name=`) through this ViewSet's policy.
#[derive(ModelViewSet)]
#[viewset(
    model = tag::Entity,
    prefix = "/api/tags",
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["name"],
    search_fields = ["name"],
    ordering_fields = ["id", "name"],
    ordering = "name",
    permission_classes = [IsAdminUser.or(OperationPermission::allow(&["read"]))],
)]
pub struct TagViewSet;
