//! The viewset server: the blog example's app (generated `PostViewSet` at `/api/posts/`) plus a cursor-paginated
//! ViewSet over the same entity at `/cursor/posts/` for the deep-page workload.

use std::time::Duration;

use axum::Router;
use blog::entities::post;
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection};
use viewset_core::prelude::*;

/// Posts with `CursorPagination` at `/cursor/posts/`: the blog's `PostViewSet` configuration, keyset pages.
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    prefix = "/cursor/posts",
    pagination_class = CursorPagination,
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["published", "views", "author_id", "rating", "title", "created_at"],
    search_fields = ["title", "body"],
    ordering_fields = ["id", "title", "views", "created_at"],
    ordering = "-id",
)]
pub struct BenchCursorPosts;

/// The router under test. `ping_if_idle` swaps the pool's ping-on-every-checkout for a ping of connections idle
/// for 30 s or more (the fix DESIGN.md suggests), to measure what it is worth.
pub async fn app(url: &str, ping_if_idle: bool) -> Result<Router, String> {
    let db = if ping_if_idle { connect_ping_if_idle(url).await? } else { connect_default(url).await? };
    let cursor = include_viewset::<BenchCursorPosts, _>(Router::new()).with_state(ServiceState::new(db.clone()));
    Ok(blog::app(db).merge(cursor))
}

/// Exactly what the blog example does: `blog::connect_and_migrate` (sea-orm defaults, sqlx logging off).
async fn connect_default(url: &str) -> Result<DatabaseConnection, String> {
    blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))
}

/// The blog's options, but the pool pings a connection only when it has been idle for 30 s.
async fn connect_ping_if_idle(url: &str) -> Result<DatabaseConnection, String> {
    let mut options = ConnectOptions::new(url.to_string());
    options.sqlx_logging(false).test_before_acquire_if_idle_for(Duration::from_secs(30));
    let db = Database::connect(options).await.map_err(|e| format!("connect {url}: {e}"))?;
    // The harness applied the blog's migrations already (through `blog::connect_and_migrate`).
    db.execute_unprepared("SELECT 1 FROM posts LIMIT 1").await.map_err(|e| format!("posts table: {e}"))?;
    Ok(db)
}
