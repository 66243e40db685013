//! One write per key: claim, run, store the answer (or release the claim), and the answers of repeats.

use std::sync::atomic::{AtomicI64, Ordering};

use axum::body::Bytes;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use tracing::Instrument;

use super::key::{IdempotencyKey, fingerprint, owner};
use crate::boxed::{SendFuture, send};
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::store::idempotency::{Record, claim, complete, find, forget_expired, release};

/// The header of a replayed answer: `Idempotent-Replayed: true`.
///
/// ```
/// assert_eq!(viewset_core::idempotency::REPLAYED.as_str(), "idempotent-replayed");
/// ```
pub const REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// The headers of an answer that are stored and replayed with its status and body.
const KEPT: [&str; 4] = ["location", "etag", "content-type", "preference-applied"];

/// How often, at most, this process deletes every expired record (milliseconds).
const PRUNE_EVERY_MS: i64 = 60_000;

/// When this process last deleted the expired records (Unix milliseconds).
static LAST_PRUNE: AtomicI64 = AtomicI64::new(0);

/// A route's body as it arrived: its bytes, or why they could not be read.
type Body = Result<Bytes, axum::extract::rejection::BytesRejection>;

/// The future of a [`Write`].
type Written = SendFuture<'static, Result<Response, ApiError>>;

/// The write [`once`] runs: a route's work after admission, boxed so that `once` is compiled once for every
/// ViewSet and route rather than once per write (build time: BENCHMARKS.md, "Compile cost").
pub(crate) type Write = Box<dyn FnOnce(RequestContext, Body) -> Written + Send>;

/// `write` as a [`Write`].
pub(crate) fn write<W, F>(write: W) -> Write
where
    W: FnOnce(RequestContext, Body) -> F + Send + 'static,
    F: Future<Output = Result<Response, ApiError>> + Send + 'static,
{
    Box::new(move |request, body| send(write(request, body)))
}

/// Runs `write(request, body)` once per `Idempotency-Key` of this caller (see [`crate::idempotency`]); without the
/// header, or with a body that could not be read, it runs as it would without idempotency. The route has already
/// admitted the caller ([`crate::access::enter`]).
pub(crate) async fn once(request: RequestContext, body: Body, write: Write) -> Result<Response, ApiError> {
    let Some(key) = IdempotencyKey::from_headers(&request.headers)? else { return write(request, body).await };
    let Ok(bytes) = &body else { return write(request, body).await };
    let Some(owner) = owner(&request.principal) else {
        return Err(ApiError::Idempotency {
            status: StatusCode::BAD_REQUEST,
            code: "idempotency_requires_identity",
            detail: "Idempotency-Key needs an authenticated caller: keys belong to the caller who sent them; send \
                     the request without the header, or with credentials."
                .into(),
        });
    };
    let target = request.uri.path_and_query().map_or_else(|| request.uri.path(), |p| p.as_str());
    let print = fingerprint(&request.method, target, &owner, bytes);
    let db = request.db.clone();
    let now = now_ms();
    prune_now_and_then(&db, now);
    let retention = i64::try_from(request.idempotency_retention.as_millis()).unwrap_or(i64::MAX);
    let expires_at = now.saturating_add(retention);
    // A claim lost to a row that is then released or expired is tried again; a few rounds settle any race.
    for _ in 0..3 {
        if claim(&db, &owner, key.as_str(), &print, expires_at).await.map_err(missing_table)? {
            crate::measure::idempotency("claimed");
            return run(request, body, write, owner, key).await;
        }
        match find(&db, &owner, key.as_str()).await.map_err(ApiError::from)? {
            None => continue,
            Some(record) if record.expires_at <= now => {
                forget_expired(&db, Some((&owner, key.as_str())), now).await.map_err(ApiError::from)?;
            }
            Some(record) if record.fingerprint != print => return Err(reused()),
            Some(Record { status: None, .. }) => return Err(in_progress()),
            Some(record) => return Ok(replay(record)),
        }
    }
    Err(in_progress())
}

/// Runs the claimed write in a task of its own, so a caller who goes away does not cancel it between the write
/// and the stored answer; then stores the answer, or releases the claim when the write failed (an error, a 5xx, a
/// panic).
async fn run(
    request: RequestContext,
    body: Body,
    write: Write,
    owner: String,
    key: IdempotencyKey,
) -> Result<Response, ApiError> {
    let db = request.db.clone();
    let (task_db, task_owner, task_key) = (db.clone(), owner.clone(), key.clone());
    let task = async move {
        let (db, owner, key) = (task_db, task_owner, task_key);
        let answer = match write(request, body).await {
            Ok(response) if !response.status().is_server_error() => response,
            failed => {
                if let Err(err) = release(&db, &owner, key.as_str()).await {
                    tracing::error!(error = %err, "could not release an idempotency claim after a failed write");
                }
                return failed;
            }
        };
        let (parts, body) = answer.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
        let kept: Vec<(&str, &str)> = KEPT
            .iter()
            .filter_map(|name| parts.headers.get(*name).and_then(|v| v.to_str().ok()).map(|v| (*name, v)))
            .collect();
        let headers = serde_json::to_string(&kept).unwrap_or_else(|_| "[]".into());
        let stored = complete(&db, &owner, key.as_str(), parts.status.as_u16(), headers, bytes.to_vec()).await;
        if let Err(err) = stored {
            // The write happened: keeping the claim answers repeats 409 until it expires, never a second write.
            tracing::error!(error = %err, "could not store an idempotent answer; its key stays claimed");
        }
        Ok(Response::from_parts(parts, axum::body::Body::from(bytes)))
    };
    match tokio::spawn(task.instrument(tracing::Span::current())).await {
        Ok(answer) => answer,
        Err(failed) => {
            if let Err(err) = release(&db, &owner, key.as_str()).await {
                tracing::error!(error = %err, "could not release an idempotency claim after a panic");
            }
            match failed.try_into_panic() {
                Ok(panic) => std::panic::resume_unwind(panic),
                Err(_) => Err(ApiError::Database(sea_orm::DbErr::Custom("the write was cancelled".into()))),
            }
        }
    }
}

/// The stored answer of a finished first request, with `Idempotent-Replayed: true`.
fn replay(record: Record) -> Response {
    crate::measure::idempotency("replayed");
    let status = record.status.and_then(|s| u16::try_from(s).ok()).and_then(|s| StatusCode::from_u16(s).ok());
    let mut response = Response::new(axum::body::Body::from(record.body.unwrap_or_default()));
    *response.status_mut() = status.unwrap_or(StatusCode::OK);
    let headers: Vec<(String, String)> = record.headers.and_then(|h| serde_json::from_str(&h).ok()).unwrap_or_default();
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
            response.headers_mut().insert(name, value);
        }
    }
    response.headers_mut().insert(REPLAYED, HeaderValue::from_static("true"));
    response
}

fn reused() -> ApiError {
    crate::measure::idempotency("conflict");
    ApiError::Idempotency {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        code: "idempotency_key_reused",
        detail: "This Idempotency-Key was used for a different request (method, path, query or body); use a new key \
                 for a new request."
            .into(),
    }
}

fn in_progress() -> ApiError {
    crate::measure::idempotency("conflict");
    ApiError::Idempotency {
        status: StatusCode::CONFLICT,
        code: "idempotency_in_progress",
        detail: "A request with this Idempotency-Key is still running; retry later to receive its answer.".into(),
    }
}

/// A failed claim. Without the table (the application's migrations lack [`super::Migration`]) the key cannot be
/// kept: a 503 `idempotency_unavailable` saying so, nothing written; any other failure as every database error.
fn missing_table(err: sea_orm::DbErr) -> ApiError {
    if !table_missing(&err.to_string()) {
        return ApiError::from(err);
    }
    tracing::error!(
        "Idempotency-Key: the viewset_idempotency table is missing; apply viewset_core::idempotency::Migration"
    );
    ApiError::Idempotency {
        status: StatusCode::SERVICE_UNAVAILABLE,
        code: "idempotency_unavailable",
        detail: "This service cannot keep Idempotency-Key records (its database lacks the table of \
                 viewset_core::idempotency::Migration); nothing was written. Send the request without the header."
            .into(),
    }
}

/// Whether a database message says the idempotency table does not exist: SQLite `no such table: …`, PostgreSQL
/// `relation "…" does not exist` (42P01), MySQL/MariaDB `Table '….…' doesn't exist` (1146).
fn table_missing(message: &str) -> bool {
    message.contains("viewset_idempotency")
        && ["no such table", "does not exist", "doesn't exist"].iter().any(|words| message.contains(words))
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// At most once a minute per process, deletes every expired record, in a task of its own.
fn prune_now_and_then(db: &sea_orm::DatabaseConnection, now: i64) {
    let last = LAST_PRUNE.load(Ordering::Relaxed);
    if now - last < PRUNE_EVERY_MS
        || LAST_PRUNE.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_err()
    {
        return;
    }
    let db = db.clone();
    tokio::spawn(async move {
        if let Err(err) = forget_expired(&db, None, now).await {
            tracing::warn!(error = %err, "could not delete expired idempotency records");
        }
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_missing_table_is_told_apart_from_other_failures() {
        assert!(super::table_missing("error returned from database: no such table: viewset_idempotency"));
        assert!(super::table_missing(r#"relation "viewset_idempotency" does not exist"#));
        assert!(super::table_missing("Table 'blog.viewset_idempotency' doesn't exist"));
        assert!(!super::table_missing("UNIQUE constraint failed: viewset_idempotency.owner"));
        assert!(!super::table_missing(r#"relation "posts" does not exist"#));
    }
}
