//! The statements of idempotency records (`crate::idempotency`): claim a key with an `INSERT` that conflicts on
//! (principal, key), read what a key holds, store the answer, release a claim, forget expired records. Each is
//! built with sea-query for the connection's backend and run through the statement hook (`run.rs`).

use sea_orm::sea_query::{Expr, ExprTrait, OnConflict, Query};
use sea_orm::{DatabaseConnection, DbBackend, DbErr, SqlErr, Value};

use super::run::{On, execute, row};

/// The table the migration creates (`idempotency::Migration`).
pub(crate) const TABLE: &str = "viewset_idempotency";

/// The columns of [`TABLE`].
#[derive(Clone, Copy)]
pub(crate) enum Column {
    Principal,
    Key,
    Fingerprint,
    Status,
    Headers,
    Body,
    ExpiresAt,
}

impl Column {
    /// The column's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Column::Principal => "principal",
            Column::Key => "idempotency_key",
            Column::Fingerprint => "fingerprint",
            Column::Status => "status",
            Column::Headers => "headers",
            Column::Body => "body",
            Column::ExpiresAt => "expires_at",
        }
    }

    fn col(self) -> Expr {
        Expr::col(self.name())
    }
}

/// What a key holds: its request's fingerprint and, once the first request finished, its answer.
pub(crate) struct Record {
    pub(crate) fingerprint: String,
    /// `None` while the first request runs.
    pub(crate) status: Option<i32>,
    /// The stored headers as JSON (`[[name, value], …]`).
    pub(crate) headers: Option<String>,
    pub(crate) body: Option<Vec<u8>>,
    /// Unix milliseconds.
    pub(crate) expires_at: i64,
}

/// The row of (`principal`, `key`).
fn this_key(principal: &str, key: &str) -> sea_orm::sea_query::Condition {
    sea_orm::sea_query::Condition::all().add(Column::Principal.col().eq(principal)).add(Column::Key.col().eq(key))
}

/// Inserts the claim of (`principal`, `key`) unless a row holds it already; whether this call claimed it.
pub(crate) async fn claim(
    db: &DatabaseConnection,
    principal: &str,
    key: &str,
    fingerprint: &str,
    expires_at: i64,
) -> Result<bool, DbErr> {
    let mut insert = Query::insert();
    insert
        .into_table(TABLE)
        .columns([Column::Principal.name(), Column::Key.name(), Column::Fingerprint.name(), Column::ExpiresAt.name()])
        .values_panic([principal.into(), key.into(), fingerprint.into(), expires_at.into()]);
    let backend = db.get_database_backend();
    if backend == DbBackend::MySql {
        // MySQL has no `ON CONFLICT … DO NOTHING` (`INSERT IGNORE` would also turn other errors into warnings):
        // the plain `INSERT`, and its duplicate-key error is the key already claimed.
        return match execute(On::Pool(db), backend.build(&insert), "idempotency claim").await {
            Ok(inserted) => Ok(inserted == 1),
            Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => Ok(false),
            Err(e) => Err(e),
        };
    }
    insert.on_conflict(OnConflict::columns([Column::Principal.name(), Column::Key.name()]).do_nothing().to_owned());
    Ok(execute(On::Pool(db), backend.build(&insert), "idempotency claim").await? == 1)
}

/// What (`principal`, `key`) holds, if any row does.
pub(crate) async fn find(db: &DatabaseConnection, principal: &str, key: &str) -> Result<Option<Record>, DbErr> {
    let mut select = Query::select();
    select
        .columns([
            Column::Fingerprint.name(),
            Column::Status.name(),
            Column::Headers.name(),
            Column::Body.name(),
            Column::ExpiresAt.name(),
        ])
        .from(TABLE)
        .cond_where(this_key(principal, key));
    let statement = db.get_database_backend().build(&select);
    let Some(found) = row(On::Pool(db), statement, "idempotency read").await? else { return Ok(None) };
    Ok(Some(Record {
        fingerprint: found.try_get("", Column::Fingerprint.name())?,
        status: found.try_get("", Column::Status.name())?,
        headers: found.try_get("", Column::Headers.name())?,
        body: found.try_get("", Column::Body.name())?,
        expires_at: found.try_get("", Column::ExpiresAt.name())?,
    }))
}

/// Stores the answer of the claim (`principal`, `key`).
pub(crate) async fn complete(
    db: &DatabaseConnection,
    principal: &str,
    key: &str,
    status: u16,
    headers: String,
    body: Vec<u8>,
) -> Result<(), DbErr> {
    let mut update = Query::update();
    update
        .table(TABLE)
        .values([
            (Column::Status.name(), Expr::val(i32::from(status))),
            (Column::Headers.name(), Expr::val(headers)),
            (Column::Body.name(), Expr::val(Value::Bytes(Some(body)))),
        ])
        .cond_where(this_key(principal, key));
    let statement = db.get_database_backend().build(&update);
    execute(On::Pool(db), statement, "idempotency answer").await.map(drop)
}

/// Deletes the claim of (`principal`, `key`) while it has no answer (the first request failed).
pub(crate) async fn release(db: &DatabaseConnection, principal: &str, key: &str) -> Result<(), DbErr> {
    let mut delete = Query::delete();
    delete.from_table(TABLE).cond_where(this_key(principal, key).add(Column::Status.col().is_null()));
    let statement = db.get_database_backend().build(&delete);
    execute(On::Pool(db), statement, "idempotency release").await.map(drop)
}

/// Deletes the records expired at `now` (Unix milliseconds): of (`principal`, `key`) only, or every one.
pub(crate) async fn forget_expired(
    db: &DatabaseConnection,
    only: Option<(&str, &str)>,
    now: i64,
) -> Result<u64, DbErr> {
    let mut condition = sea_orm::sea_query::Condition::all().add(Column::ExpiresAt.col().lte(now));
    if let Some((principal, key)) = only {
        condition = condition.add(this_key(principal, key));
    }
    let mut delete = Query::delete();
    delete.from_table(TABLE).cond_where(condition);
    let statement = db.get_database_backend().build(&delete);
    execute(On::Pool(db), statement, "idempotency prune").await
}
