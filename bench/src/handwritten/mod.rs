//! The hand-written baselines: the blog's post routes as a competent engineer writes them directly on axum, once
//! with sea-orm and once with sqlx (on PostgreSQL, and on MariaDB through sqlx's MySQL driver). Same paths, same JSON bodies, same middleware stack as the blog app (demo
//! bearer tokens, `TraceLayer`, JSON 404 fallback), same query semantics for what the workloads exercise:
//! exact filters on `published`, `views`, `author_id`, `rating`, `title`, `created_at`; `search` as `ILIKE` over
//! title and body (on MariaDB its equivalent, `LOWER(col) LIKE LOWER(pattern)` under `utf8mb4_bin`); `ordering` over `id`, `title`, `views`, `created_at` (default `-id`, `id` as tie-breaker);
//! `limit` (1..=100, default 20) and `offset`; count + page. Not hand-written: the `__gt`-style lookups, which no
//! workload uses. Cursor pages (`/cursor/posts/`) walk `-id` only, with an unsigned token.

pub mod seaorm;
pub mod sqlx;
pub mod sqlx_mysql;

use axum::Json;
use axum::extract::Query;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::json;
use viewset_core::Principal;

/// `GET /api/posts/` query parameters.
#[derive(Debug, Default, Deserialize)]
pub struct ListParams {
    pub limit: Option<u64>,
    pub offset: Option<u64>,
    pub search: Option<String>,
    pub ordering: Option<String>,
    pub published: Option<bool>,
    pub views: Option<i32>,
    pub author_id: Option<i32>,
    pub rating: Option<f64>,
    pub title: Option<String>,
    pub created_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// `GET /cursor/posts/` query parameters.
#[derive(Debug, Default, Deserialize)]
pub struct CursorParams {
    pub limit: Option<u64>,
    pub cursor: Option<String>,
}

/// `POST /api/posts/` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreatePost {
    pub title: String,
    pub body: String,
    pub published: Option<bool>,
    pub views: Option<i32>,
    pub rating: Option<f64>,
    pub author_id: i32,
}

/// `PATCH /api/posts/{id}` body: absent fields are kept; `"rating": null` sets NULL.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatchPost {
    pub title: Option<String>,
    pub body: Option<String>,
    pub published: Option<bool>,
    pub views: Option<i32>,
    #[serde(default, deserialize_with = "present")]
    pub rating: Option<Option<f64>>,
    pub author_id: Option<i32>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<f64>>, D::Error> {
    Option::<f64>::deserialize(d).map(Some)
}

impl PatchPost {
    pub fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.body.is_none()
            && self.published.is_none()
            && self.views.is_none()
            && self.rating.is_none()
            && self.author_id.is_none()
    }
}

/// `{count, results, limit, offset}`.
#[derive(Serialize)]
pub struct Page<T> {
    pub count: u64,
    pub results: Vec<T>,
    pub limit: u64,
    pub offset: u64,
}

/// `{next, previous, results}`.
#[derive(Serialize)]
pub struct CursorPage<T> {
    pub next: Option<String>,
    pub previous: Option<String>,
    pub results: Vec<T>,
}

/// Errors of the hand-written routes, as the same JSON bodies the generated routes send.
#[derive(Debug)]
pub enum Error {
    Input(&'static str, String),
    NotFound,
    Forbidden,
    ForeignKey,
    Database(String),
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let (status, body) = match self {
            Error::Input(field, msg) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                json!({"detail": [{"loc": ["query", field], "msg": msg, "type": "value_error"}]}),
            ),
            Error::NotFound => (StatusCode::NOT_FOUND, json!({"detail": "Not found.", "code": "not_found"})),
            // As viewset answers an anonymous writer behind its bearer layer: challenged.
            Error::Forbidden => {
                let body =
                    json!({"detail": "Authentication credentials were not provided.", "code": "not_authenticated"});
                let challenge = [(axum::http::header::WWW_AUTHENTICATE, "Bearer")];
                return (StatusCode::UNAUTHORIZED, challenge, Json(body)).into_response();
            }
            Error::ForeignKey => (
                StatusCode::BAD_REQUEST,
                json!({"detail": "A related record does not exist.", "code": "foreign_key_violation"}),
            ),
            Error::Database(msg) => {
                eprintln!("database error: {msg}");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    json!({"detail": "Internal server error.", "code": "database_error"}),
                )
            }
        };
        (status, Json(body)).into_response()
    }
}

impl From<QueryRejection> for Error {
    fn from(e: QueryRejection) -> Self {
        Error::Input("query", e.body_text())
    }
}

impl From<JsonRejection> for Error {
    fn from(e: JsonRejection) -> Self {
        Error::Input("body", e.body_text())
    }
}

/// Writes need an identity (the blog's `IsAuthenticatedOrReadOnly`).
fn require_identity(principal: Option<&Principal>) -> Result<(), Error> {
    match principal {
        Some(p) if p.is_authenticated() => Ok(()),
        _ => Err(Error::Forbidden),
    }
}

fn check_title(title: &str) -> Result<(), Error> {
    if title.chars().count() > 200 {
        return Err(Error::Input("title", "String should have at most 200 characters".into()));
    }
    Ok(())
}

/// The input of a list: its parameters and window `(params, limit, offset)`.
pub fn list_input(params: Result<Query<ListParams>, QueryRejection>) -> Result<(ListParams, u64, u64), Error> {
    let Query(p) = params?;
    let (limit, offset) = window(p.limit, p.offset)?;
    Ok((p, limit, offset))
}

/// A write body: its title is checked when it carries one.
pub trait WriteBody {
    /// The title the body sets, if any.
    fn title(&self) -> Option<&str>;
}

impl WriteBody for CreatePost {
    fn title(&self) -> Option<&str> {
        Some(&self.title)
    }
}

impl WriteBody for PatchPost {
    fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }
}

/// The input of a create or a PATCH: an identity, then a valid body.
pub fn write_input<T: WriteBody>(
    principal: Option<&Principal>,
    body: Result<Json<T>, JsonRejection>,
) -> Result<T, Error> {
    require_identity(principal)?;
    let Json(data) = body?;
    if let Some(title) = data.title() {
        check_title(title)?;
    }
    Ok(data)
}

/// The input of a cursor page: `(limit, cursor)`, the cursor absent on the first page.
pub fn cursor_input(params: Result<Query<CursorParams>, QueryRejection>) -> Result<(u64, Option<(bool, i32)>), Error> {
    let Query(p) = params?;
    let (limit, _) = window(p.limit, None)?;
    let cursor = p.cursor.as_deref().filter(|c| !c.is_empty()).map(decode_cursor).transpose()?;
    Ok((limit, cursor))
}

/// `limit` (default 20, 1..=100) and `offset`.
fn window(limit: Option<u64>, offset: Option<u64>) -> Result<(u64, u64), Error> {
    let limit = limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(Error::Input("limit", "Input should be between 1 and 100".into()));
    }
    Ok((limit, offset.unwrap_or(0)))
}

/// A sortable column of `posts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortColumn {
    Id,
    Title,
    Views,
    CreatedAt,
}

impl SortColumn {
    pub fn sql(self) -> &'static str {
        match self {
            SortColumn::Id => "id",
            SortColumn::Title => "title",
            SortColumn::Views => "views",
            SortColumn::CreatedAt => "created_at",
        }
    }
}

/// `ordering=-views,id` over the allowlist; the default `-id` when none is requested; `id` last as tie-breaker.
/// Returns `(column, descending)` terms.
pub fn ordering(raw: Option<&str>) -> Vec<(SortColumn, bool)> {
    let mut terms = Vec::new();
    match raw.map(|r| r.split(',').map(str::trim).filter(|t| !t.is_empty()).collect::<Vec<_>>()) {
        Some(requested) if !requested.is_empty() => {
            for term in requested {
                let (name, desc) = term.strip_prefix('-').map_or((term, false), |n| (n, true));
                let column = match name {
                    "id" => SortColumn::Id,
                    "title" => SortColumn::Title,
                    "views" => SortColumn::Views,
                    "created_at" => SortColumn::CreatedAt,
                    _ => continue,
                };
                terms.push((column, desc));
            }
        }
        _ => terms.push((SortColumn::Id, true)),
    }
    if !terms.iter().any(|(c, _)| *c == SortColumn::Id) {
        terms.push((SortColumn::Id, false));
    }
    terms
}

/// `ILIKE` pattern of a search term (`%` and `_` stay wildcards, as in the generated routes).
pub fn search_pattern(search: Option<&str>) -> Option<String> {
    search.filter(|s| !s.is_empty()).map(|s| format!("%{}%", s.replace('\\', "\\\\")))
}

/// Cursor tokens: `a<id>` (after, walking forward) or `b<id>` (before, walking back), base64url.
pub fn encode_cursor(backwards: bool, id: i32) -> String {
    URL_SAFE_NO_PAD.encode(format!("{}{id}", if backwards { 'b' } else { 'a' }))
}

fn decode_cursor(raw: &str) -> Result<(bool, i32), Error> {
    let invalid = || Error::Input("cursor", "Invalid cursor".into());
    let text = String::from_utf8(URL_SAFE_NO_PAD.decode(raw).map_err(|_| invalid())?).map_err(|_| invalid())?;
    let backwards = match text.as_bytes().first() {
        Some(b'a') => false,
        Some(b'b') => true,
        _ => return Err(invalid()),
    };
    Ok((backwards, text[1..].parse().map_err(|_| invalid())?))
}

/// Builds `{next, previous, results}` from up to `limit + 1` rows fetched in walk order (`-id` forward).
pub fn cursor_page(
    mut rows: Vec<blog::entities::post::Model>,
    limit: u64,
    cursor: Option<(bool, i32)>,
) -> CursorPage<blog::entities::post::Model> {
    let backwards = cursor.is_some_and(|(b, _)| b);
    let more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    if backwards {
        rows.reverse();
    }
    let link =
        |backwards: bool, id: i32| format!("/cursor/posts/?limit={limit}&cursor={}", encode_cursor(backwards, id));
    let first = rows.first().map(|r| r.id);
    let last = rows.last().map(|r| r.id);
    let (next, previous) = if backwards {
        (last.map(|id| link(false, id)), if more { first.map(|id| link(true, id)) } else { None })
    } else {
        (
            if more { last.map(|id| link(false, id)) } else { None },
            if cursor.is_some() { first.map(|id| link(true, id)) } else { None },
        )
    };
    CursorPage { next, previous, results: rows }
}

/// The post routes over `state` (`/api/posts/`, `/api/posts/{id}`, `/cursor/posts/`) in the blog's middleware
/// stack: JSON 404 fallback, then `TraceLayer` and the demo bearer tokens as one `ServiceBuilder` stack (one
/// `Router::layer`, as the blog's `app_from` puts its layers).
pub fn blog_router<S: Clone + Send + Sync + 'static>(
    state: S,
    collection: MethodRouter<S>,
    detail: MethodRouter<S>,
    cursor: MethodRouter<S>,
) -> axum::Router {
    axum::Router::new()
        .route("/api/posts/", collection)
        .route("/api/posts/{id}", detail)
        .route("/cursor/posts/", cursor)
        .with_state(state)
        .fallback(|| async { Error::NotFound.into_response() })
        .layer(
            tower::ServiceBuilder::new()
                .layer(tower_http::trace::TraceLayer::new_for_http())
                .layer(blog::auth::layer()),
        )
}
