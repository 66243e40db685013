//! Errors of the generated endpoints and their JSON bodies. Every error is JSON, whatever `Accept` says:
//!
//! - route input validation, 422: `{"detail": [{"loc": ["query", "limit"], "msg": "...", "type": "..."}]}`
//! - service validation ([`ApiError::Validation`]), 422:
//!   `{"detail": "...", "code": "validation_error", "errors": {"field": ["..."]}}`
//! - everything else: `{"detail": "...", "code": "not_found" | "permission_denied" | "unique_violation" |
//!   "foreign_key_violation" | "invalid_id" | "method_not_allowed" | "database_error" | "database_unavailable" |
//!   "unsupported_media_type" | "precondition_failed" | "precondition_required" | "invalid_idempotency_key" |
//!   "idempotency_requires_identity" | "idempotency_in_progress" | "idempotency_key_reused" | "invalid_token" |
//!   "not_authenticated" | "insufficient_scope" | "identity_provider_unavailable" | ...}`; 409 may add `"field"`, a
//!   refused limit adds `"limit"` (its name); a 401 and a 403 `insufficient_scope` carry `WWW-Authenticate`
//!   ([`ApiError::challenge`]).

use std::collections::BTreeMap;

use axum::http::StatusCode;
use sea_orm::{DbErr, SqlErr};
use serde::Serialize;

mod body;
mod db;
#[cfg(test)]
use db::session_ended;
pub(crate) use db::unavailable;
use db::unique_field;

/// One route-input validation problem: where (`loc`), what (`msg`) and its machine-readable `type`.
///
/// ```
/// let e = viewset_core::error::InputError::new(["query", "limit"], "Input should be a valid integer", "int_parsing");
/// assert_eq!(e.loc, vec!["query", "limit"]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InputError {
    /// Location, e.g. `["body", "title"]`.
    pub loc: Vec<String>,
    /// Human-readable message.
    pub msg: String,
    /// Machine-readable kind, e.g. `missing`, `int_parsing`, `string_too_long`.
    #[serde(rename = "type")]
    pub kind: String,
}

impl InputError {
    /// Builds an error at `loc`.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(
        loc: I,
        msg: impl Into<String>,
        kind: impl Into<String>,
    ) -> Self {
        InputError { loc: loc.into_iter().map(Into::into).collect(), msg: msg.into(), kind: kind.into() }
    }
}

/// Errors collected while validating a body; empty means valid.
///
/// ```
/// let mut errors = viewset_core::error::FieldErrors::default();
/// errors.max_length("title", &"x".repeat(5), 3);
/// assert!(errors.into_result().is_err());
/// ```
#[derive(Debug, Default, Clone)]
pub struct FieldErrors(pub Vec<InputError>);

impl FieldErrors {
    /// Records an explicit `null` sent for a non-nullable field.
    pub fn not_null(&mut self, field: &str) {
        self.0.push(InputError::new(["body", field], "Input should not be null", "null_not_allowed"));
    }
    /// Records a string longer than `max` characters.
    pub fn max_length<T: AsRef<str> + ?Sized>(&mut self, field: &str, value: &T, max: usize) {
        if value.as_ref().chars().count() > max {
            self.0.push(InputError::new(
                ["body", field],
                format!("String should have at most {max} characters"),
                "string_too_long",
            ));
        }
    }
    /// Records a number that is not finite. serde reads a JSON number beyond the range of an `f32` field (such as
    /// `3.5e38`) as infinity, which no column should store and no JSON response can show; the derived bodies call
    /// this for every `f32` field.
    ///
    /// ```
    /// let mut errors = viewset_core::error::FieldErrors::default();
    /// errors.finite("ratio", 3.4e38_f32);
    /// assert!(errors.clone().into_result().is_ok());
    /// errors.finite("ratio", "3.5e38".parse::<f32>().unwrap());
    /// assert_eq!(errors.into_result().unwrap_err().0[0].loc, ["body", "ratio"]);
    /// ```
    pub fn finite(&mut self, field: &str, value: impl Into<f64>) {
        if !value.into().is_finite() {
            let msg = format!("Input should be a finite number within the range of a 32-bit float (±{:e})", f32::MAX);
            self.0.push(InputError::new(["body", field], msg, "finite_number"));
        }
    }
    /// `Ok(())` when nothing was recorded.
    pub fn into_result(self) -> Result<(), FieldErrors> {
        if self.0.is_empty() { Ok(()) } else { Err(self) }
    }
}

/// Every error a generated endpoint returns. Application hooks return it too.
///
/// ```
/// use axum::response::IntoResponse;
/// let response = viewset_core::ApiError::NotFound.into_response();
/// assert_eq!(response.status(), 404);
/// ```
///
/// The enum is `#[non_exhaustive]`: a `match` on it outside this crate ends with a `_` arm, so a new error kind is
/// not a breaking change. [`ApiError::status`] and [`ApiError::body`] answer for every kind.
#[derive(Debug)]
#[non_exhaustive]
pub enum ApiError {
    /// Route input validation failure (422, list body).
    Input(Vec<InputError>),
    /// Service-level validation failure (422, `validation_error` body).
    Validation {
        /// Summary.
        detail: String,
        /// Messages per field.
        errors: BTreeMap<String, Vec<String>>,
    },
    /// Denied by a permission (403).
    PermissionDenied(String),
    /// No such record, or not visible to the caller (404).
    NotFound,
    /// A key of a bulk request names no record this caller may see (404, the key as `key`; nothing written).
    NotFoundKey(String),
    /// The row at `index` of a bulk update names a record this caller may not see (404, the key as `key` and the
    /// row as `index`; nothing written).
    NotFoundRow {
        /// The row's index in the request's array.
        index: usize,
        /// The key the row names, as sent.
        key: String,
    },
    /// The detail identifier cannot be parsed (400).
    InvalidId(String),
    /// Uniqueness violation (409), with the column when it can be told.
    UniqueViolation(Option<String>),
    /// Foreign-key violation (400).
    ForeignKeyViolation,
    /// The route exists but not for this method (405).
    MethodNotAllowed,
    /// The body could not be read (e.g. 413 when it is too large).
    BodyRejected(StatusCode, String),
    /// Any other database error (500; the body never carries SQL).
    Database(DbErr),
    /// `If-Match` lists no tag of the record as this caller sees it now (412).
    PreconditionFailed,
    /// The ViewSet requires `If-Match` on writes and none was sent (428).
    PreconditionRequired,
    /// The database cannot be reached (503 `database_unavailable` with `Retry-After`): no connection could be
    /// acquired within the pool's acquire timeout, or the connection failed.
    DatabaseUnavailable,
    /// The database gave up on a lock: a deadlock, a lock wait timeout or a serialization failure (503
    /// `database_busy` with `Retry-After: 1`); the transaction was rolled back, nothing was written.
    Contention,
    /// A delete refused because other records still reference this one (400 `foreign_key_violation`).
    StillReferenced,
    /// A body whose `Content-Type` is not JSON (415 `unsupported_media_type`).
    UnsupportedMediaType(String),
    /// No route matches the path (404 `not_found`; the message reminds of the trailing-slash rule and names the
    /// registered path that differs only by it, also as `canonical_path`).
    UnknownPath {
        /// The requested path.
        path: String,
        /// The registered path with the trailing slash added or removed, if there is one.
        canonical: Option<String>,
    },
    /// A request over one of the [`crate::limits::Limits`] (413, 414, 431, 503), naming the limit.
    Limit {
        /// 413, 414, 431 or 503.
        status: StatusCode,
        /// The limit's name, e.g. `max_body_bytes`.
        limit: &'static str,
        /// What was refused.
        detail: String,
    },
    /// Over a rate of [`crate::throttle`] (429 `throttled`, with `Retry-After` and the `RateLimit` headers).
    Throttled {
        /// The policy that refused: `anon`, `user`, `staff`, an operation or an action.
        scope: &'static str,
        /// Seconds until the next request is admitted.
        retry_after: u64,
        /// What was refused.
        detail: String,
        /// `RateLimit-Policy` and `RateLimit`.
        headers: Box<axum::http::HeaderMap>,
    },
    /// An `Idempotency-Key` refused ([`crate::idempotency`]): 400 `invalid_idempotency_key` or
    /// `idempotency_requires_identity`, 409 `idempotency_in_progress`, 422 `idempotency_key_reused`, 503
    /// `idempotency_unavailable` (the application's database lacks the idempotency table).
    Idempotency {
        /// 400, 409, 422 or 503.
        status: StatusCode,
        /// The machine-readable code.
        code: &'static str,
        /// What was refused and what to do.
        detail: String,
    },
    /// No credential where the route needs one, or a credential refused (401 with `WWW-Authenticate`, RFC 6750):
    /// code `not_authenticated` ([`ApiError::not_authenticated`]) or `invalid_token` ([`ApiError::invalid_token`]).
    Unauthorized {
        /// The machine-readable code, also the challenge's `error` when a credential was refused.
        code: &'static str,
        /// Which check failed (never the credential itself).
        detail: String,
    },
    /// The caller's token lacks a scope the route needs (403 `insufficient_scope` with
    /// `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, RFC 6750 §3.1;
    /// [`ApiError::insufficient_scope`]).
    InsufficientScope {
        /// The scope (or space-separated scopes) the route needs.
        scope: String,
    },
    /// The identity provider whose keys verify tokens has never been reached, so no token can be checked yet (503
    /// `identity_provider_unavailable` with `Retry-After`): the token may well be valid, so this is not a 401.
    IdentityProviderUnavailable {
        /// Seconds until the keys are asked for again.
        retry_after: u64,
    },
}

impl ApiError {
    /// 401 `invalid_token`: the credential was refused; `detail` says which check failed (expired, wrong audience,
    /// unknown key, bad signature) and is sent as the challenge's `error_description`, so it must never echo the
    /// credential.
    ///
    /// ```
    /// let refused = viewset_core::ApiError::invalid_token("The token has expired.");
    /// assert_eq!(refused.status(), 401);
    /// assert_eq!(refused.body()["code"], "invalid_token");
    /// ```
    pub fn invalid_token(detail: impl Into<String>) -> Self {
        ApiError::Unauthorized { code: "invalid_token", detail: detail.into() }
    }

    /// 401 `not_authenticated` with `WWW-Authenticate: Bearer`: the route needs an identity and the request sent no
    /// credential, so a client can fetch or refresh its token and retry.
    ///
    /// ```
    /// let anonymous = viewset_core::ApiError::not_authenticated();
    /// assert_eq!((anonymous.status().as_u16(), anonymous.body()["code"].as_str()), (401, Some("not_authenticated")));
    /// ```
    pub fn not_authenticated() -> Self {
        ApiError::Unauthorized {
            code: body::NOT_AUTHENTICATED,
            detail: "Authentication credentials were not provided.".into(),
        }
    }
}

impl ApiError {
    /// 403 `insufficient_scope`: the token is valid but lacks `scope`; the challenge names the scope the client
    /// should ask its authorization server for.
    ///
    /// ```
    /// let refused = viewset_core::ApiError::insufficient_scope("posts:write");
    /// assert_eq!(refused.status(), 403);
    /// assert_eq!(refused.body()["code"], "insufficient_scope");
    /// assert_eq!(refused.challenge().unwrap(), r#"Bearer error="insufficient_scope", scope="posts:write""#);
    /// ```
    pub fn insufficient_scope(scope: impl Into<String>) -> Self {
        ApiError::InsufficientScope { scope: scope.into() }
    }
}

impl From<FieldErrors> for ApiError {
    fn from(errors: FieldErrors) -> Self {
        ApiError::Input(errors.0)
    }
}

impl From<DbErr> for ApiError {
    /// Maps unique and foreign-key violations (SQLite and PostgreSQL) to 409 and 400.
    fn from(err: DbErr) -> Self {
        ApiError::from_db(err, "")
    }
}

/// A database error of a statement on the table of `E`, as [`ApiError::from_db`] maps it.
pub(crate) fn db_err<E: sea_orm::EntityName>(err: DbErr) -> ApiError {
    ApiError::from_db(err, E::default().table_name())
}

impl ApiError {
    /// Like `From<DbErr>`, knowing the table so a PostgreSQL constraint name gives the column. A value the column
    /// cannot hold (MariaDB / MySQL under the strict `sql_mode` [`crate::store::connect`] sets: too long, out of
    /// range, not a valid date) is a 422 `validation_error` naming the column.
    pub fn from_db(err: DbErr, table: &str) -> Self {
        if let Some(refused) = db::refused_value(&err) {
            return refused;
        }
        match err.sql_err() {
            Some(SqlErr::UniqueConstraintViolation(msg)) => ApiError::UniqueViolation(unique_field(&msg, table)),
            Some(SqlErr::ForeignKeyConstraintViolation(_)) => ApiError::ForeignKeyViolation,
            // SQLite reports a RESTRICT action with another extended code than sea-orm maps (787).
            _ if err.to_string().contains("FOREIGN KEY constraint failed") => ApiError::ForeignKeyViolation,
            _ => match err {
                DbErr::RecordNotFound(_) | DbErr::RecordNotUpdated => ApiError::NotFound,
                other if unavailable(&other) => ApiError::DatabaseUnavailable,
                other if db::contention(&other) => ApiError::Contention,
                other => ApiError::Database(other),
            },
        }
    }
}

/// How long a client should wait before retrying after [`ApiError::DatabaseUnavailable`], in seconds.
pub const RETRY_AFTER_SECONDS: u32 = 5;

impl ApiError {
    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Input(_) | ApiError::Validation { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::PermissionDenied(_) | ApiError::InsufficientScope { .. } => StatusCode::FORBIDDEN,
            ApiError::NotFound
            | ApiError::NotFoundKey(_)
            | ApiError::NotFoundRow { .. }
            | ApiError::UnknownPath { .. } => StatusCode::NOT_FOUND,
            ApiError::InvalidId(_) | ApiError::ForeignKeyViolation => StatusCode::BAD_REQUEST,
            ApiError::UniqueViolation(_) => StatusCode::CONFLICT,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::BodyRejected(status, _) => *status,
            ApiError::Database(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
            ApiError::PreconditionRequired => StatusCode::PRECONDITION_REQUIRED,
            ApiError::DatabaseUnavailable | ApiError::Contention => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::StillReferenced => StatusCode::BAD_REQUEST,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Limit { status, .. } => *status,
            ApiError::Throttled { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Idempotency { status, .. } => *status,
            ApiError::Unauthorized { .. } => StatusCode::UNAUTHORIZED,
            ApiError::IdentityProviderUnavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// A single route-input error at `loc`.
    pub fn input<I: IntoIterator<Item = S>, S: Into<String>>(
        loc: I,
        msg: impl Into<String>,
        kind: impl Into<String>,
    ) -> Self {
        ApiError::Input(vec![InputError::new(loc, msg, kind)])
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status(), self.body())
    }
}

/// The underlying database error of [`ApiError::Database`] is its `source()`, so error reporters (`anyhow`,
/// `tracing`'s `error` field, `eyre`) print the chain.
///
/// ```
/// use std::error::Error;
/// let err = viewset_core::ApiError::Database(sea_orm::DbErr::Custom("disk I/O error".into()));
/// assert_eq!(err.source().unwrap().to_string(), "Custom Error: disk I/O error");
/// assert!(viewset_core::ApiError::NotFound.source().is_none());
/// ```
impl std::error::Error for ApiError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ApiError::Database(err) => Some(err),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
