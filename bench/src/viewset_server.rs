//! The viewset server: the blog example's app (generated `PostViewSet` at `/api/posts/`) plus a cursor-paginated
//! ViewSet over the same entity at `/cursor/posts/` for the deep-page workload.

use axum::Router;
use blog::entities::post;
use viewset_core::prelude::*;
use viewset_core::throttle::Throttle;

/// Posts with `CursorPagination` at `/cursor/posts/`: the blog's `PostViewSet` configuration, keyset pages.
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    prefix = "/cursor/posts",
    basename = "cursor_posts",
    pagination_class = CursorPagination,
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["published", "views", "author_id", "rating", "title", "created_at"],
    search_fields = ["title", "body"],
    ordering_fields = ["id", "title", "views", "created_at"],
    ordering = "-id",
    ai_exposed = false,
)]
pub struct BenchCursorPosts;

/// The router under test: the blog's app over `blog::connect_and_migrate` (its pool pings a connection only after
/// 30 s idle), with the cursor-paginated ViewSet registered in the same `Api`, so it is served behind the same
/// authentication, limits and tracing as the hand-written servers' cursor route. Without `limits` (for
/// `bench/profile.sh` only: what the limits cost) the same router lacks the limits' layer and nothing else.
pub async fn app(url: &str, limits: bool) -> Result<Router, String> {
    let db = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
    let state = ServiceState::new(db);
    routes(state, limits.then(Limits::default))
}

/// [`app`] with `throttle` in its state (`bench/profile.sh`'s `viewset-throttle` servers, `traffic`).
pub async fn throttled(url: &str, throttle: Throttle) -> Result<Router, String> {
    let db = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
    routes(ServiceState::new(db).with_throttle(throttle), Some(Limits::default()))
}

/// [`app`] with a durable event bus: the PostgreSQL outbox, or NATS JetStream at `BENCH_NATS_URL` (default
/// `nats://127.0.0.1:4222`) on a stream of this process (`bench/profile.sh`'s `viewset-outbox`, `viewset-nats`).
pub async fn durable(url: &str, nats: bool) -> Result<Router, String> {
    use viewset_core::events::EventBus;
    let db = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
    let bus = if nats {
        let server = std::env::var("BENCH_NATS_URL").unwrap_or_else(|_| "nats://127.0.0.1:4222".into());
        let stream = format!("viewset_bench_{}", std::process::id());
        EventBus::nats(db.clone(), &server, &stream).await.map_err(|e| format!("NATS at {server}: {e}"))?
    } else {
        EventBus::outbox(db.get_postgres_connection_pool().clone()).await.map_err(|e| format!("outbox: {e}"))?
    };
    routes(ServiceState::with_events(db, bus), Some(Limits::default()))
}

/// [`app`] with other `limits` (`traffic`'s overload: `max_in_flight`).
pub async fn limited(url: &str, limits: Limits) -> Result<Router, String> {
    let db = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
    routes(ServiceState::new(db), Some(limits))
}

fn routes(state: ServiceState, limits: Option<Limits>) -> Result<Router, String> {
    let mut api = blog::api();
    api.include::<BenchCursorPosts>().map_err(|e| e.to_string())?;
    Ok(if let Some(limits) = limits {
        let layers = tower::ServiceBuilder::new()
            .layer(tower_http::trace::TraceLayer::new_for_http())
            .layer(limits.layer())
            .layer(blog::auth::layer());
        blog::routes_from(api, state).layer(layers)
    } else {
        let layers = tower::ServiceBuilder::new()
            .layer(tower_http::trace::TraceLayer::new_for_http())
            .layer(blog::auth::layer());
        blog::routes_from(api, state).layer(layers)
    })
}
