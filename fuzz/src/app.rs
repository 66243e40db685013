//! The application under test, built once per process: the three ViewSets behind the default transport [`Limits`],
//! on a proxy database per backend, with the default and with small [`QueryLimits`]. [`send`] runs one request
//! through the real axum router and checks what every answer must be.

use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use sea_orm::{Database, DbBackend, ProxyDatabaseTrait};
use tower::ServiceExt;
use viewset_core::limits::Limits;
use viewset_core::query::QueryLimits;
use viewset_core::{Principal, ServiceState};

use crate::model::{api, item};
use crate::proxy::Proxy;

/// The secret cursors are signed with in the fuzzed process (see [`crate::cursor_token`]).
pub const SECRET: &str = "viewset-fuzz-secret";

/// Small limits, so inputs reach every limit's refusal.
pub const SMALL_LIMITS: QueryLimits = QueryLimits::DEFAULT
    .with_max_query_params(6)
    .with_max_in_values(3)
    .with_max_ordering_terms(2)
    .with_max_search_length(5);

/// One request of a target.
#[derive(Debug, Clone)]
pub struct Call {
    /// The database the statements are built for.
    pub backend: DbBackend,
    /// Whether the application runs under [`SMALL_LIMITS`].
    pub small_limits: bool,
    /// The caller.
    pub principal: Principal,
    /// Method.
    pub method: Method,
    /// Path and query (`/items/?views=1`).
    pub uri: String,
    /// `Content-Type`, if any.
    pub content_type: Option<&'static str>,
    /// Request body.
    pub body: Vec<u8>,
    /// Rows the database answers with.
    pub rows: Vec<item::Model>,
}

impl Call {
    /// A `GET` of `uri`.
    pub fn get(backend: DbBackend, principal: Principal, uri: String) -> Self {
        Call {
            backend,
            small_limits: false,
            principal,
            method: Method::GET,
            uri,
            content_type: None,
            body: Vec::new(),
            rows: Vec::new(),
        }
    }
}

/// What came back.
#[derive(Debug)]
pub struct Answer {
    /// Status.
    pub status: StatusCode,
    /// The JSON body.
    pub body: serde_json::Value,
}

struct App {
    runtime: tokio::runtime::Runtime,
    /// (backend, small limits, router, its database).
    routers: Vec<(DbBackend, bool, Router, Arc<Proxy>)>,
}

fn app() -> &'static App {
    static APP: OnceLock<App> = OnceLock::new();
    APP.get_or_init(|| {
        // SAFETY: set once, before anything reads the environment or starts a thread.
        unsafe { std::env::set_var("SERVICE_SECRET_KEY", SECRET) };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
        let mut routers = Vec::new();
        for backend in [DbBackend::Sqlite, DbBackend::Postgres] {
            for small in [false, true] {
                let proxy = Arc::new(Proxy::default());
                let boxed: Arc<Box<dyn ProxyDatabaseTrait>> = Arc::new(Box::new(ProxyRef(proxy.clone())));
                let db = runtime.block_on(Database::connect_proxy(backend, boxed)).expect("a proxy connection");
                let limits = if small { SMALL_LIMITS } else { QueryLimits::DEFAULT };
                let state = ServiceState::new(db).with_query_limits(limits);
                let router = Limits::default().apply(api().into_router().with_state(state));
                routers.push((backend, small, router, proxy));
            }
        }
        App { runtime, routers }
    })
}

/// The shared [`Proxy`] behind the connection (sea-orm owns the boxed trait object).
#[derive(Debug)]
struct ProxyRef(Arc<Proxy>);

#[async_trait::async_trait]
impl ProxyDatabaseTrait for ProxyRef {
    async fn query(&self, statement: sea_orm::Statement) -> Result<Vec<sea_orm::ProxyRow>, sea_orm::DbErr> {
        self.0.query(statement).await
    }
    async fn execute(&self, statement: sea_orm::Statement) -> Result<sea_orm::ProxyExecResult, sea_orm::DbErr> {
        self.0.execute(statement).await
    }
}

/// Sends `call` through the router and checks the answer: never a 5xx, always a JSON body; an error body has
/// `detail`, and a 422 of route input lists entries with `loc` (starting at `query`, `body` or `path`), `msg`, `type`.
pub fn send(call: &Call) -> Answer {
    let app = app();
    let (_, _, router, proxy) = app
        .routers
        .iter()
        .find(|(backend, small, _, _)| *backend == call.backend && *small == call.small_limits)
        .expect("a router for every backend and limit");
    proxy.set_rows(call.rows.clone());
    let mut request = Request::builder().method(call.method.clone()).uri(&call.uri);
    if let Some(content_type) = call.content_type {
        request = request.header(header::CONTENT_TYPE, content_type);
    }
    let mut request = request.body(Body::from(call.body.clone())).expect("the harness builds valid requests");
    request.extensions_mut().insert(call.principal.clone());
    let (status, csv, bytes) = app.runtime.block_on(async {
        let response = router.clone().oneshot(request).await.expect("axum routers are infallible");
        let status = response.status();
        let content_type = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok());
        let csv = content_type.is_some_and(|t| t.starts_with("text/csv"));
        (status, csv, axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("a readable body"))
    });
    let shown = String::from_utf8_lossy(&bytes);
    assert!(!status.is_server_error(), "{} {} answered {status}: {shown}", call.method, call.uri);
    // A list asked for as CSV (`?format=csv`): a 200 with a header row; it is handed on as `{"csv": text}`.
    if csv {
        assert_eq!(status, StatusCode::OK, "only a list page is CSV: {} answered {status}: {shown}", call.uri);
        let text =
            String::from_utf8(bytes.to_vec()).unwrap_or_else(|_| panic!("{} answered CSV that is not UTF-8", call.uri));
        assert!(
            text.lines().next().is_some_and(|header| !header.is_empty()),
            "{}: CSV without a header: {text}",
            call.uri
        );
        return Answer { status, body: serde_json::json!({ "csv": text }) };
    }
    let body: serde_json::Value =
        serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{} answered non-JSON ({e}): {shown}", call.uri));
    if status.is_client_error() {
        check_error(status, &body);
    }
    Answer { status, body }
}

fn check_error(status: StatusCode, body: &serde_json::Value) {
    let detail = body.get("detail").unwrap_or_else(|| panic!("{status} without `detail`: {body}"));
    let Some(entries) = detail.as_array() else {
        assert!(detail.is_string() && body["code"].is_string(), "{status}: {body}");
        return;
    };
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "a list of errors is a 422: {body}");
    assert!(!entries.is_empty(), "an empty error list: {body}");
    for entry in entries {
        let loc = entry["loc"].as_array().unwrap_or_else(|| panic!("no `loc`: {body}"));
        let first = loc.first().and_then(|s| s.as_str()).unwrap_or_else(|| panic!("empty `loc`: {body}"));
        assert!(["query", "body", "path"].contains(&first), "`loc` starts at {first}: {body}");
        assert!(loc.iter().all(serde_json::Value::is_string), "{body}");
        assert!(entry["msg"].is_string() && entry["type"].is_string(), "{body}");
    }
}
