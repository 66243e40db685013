//! How a database error reads: whether the database is unreachable, the column of a unique violation, and a value
//! MariaDB / MySQL refuses (by its error number) as a 422 rather than a 500.

use std::collections::BTreeMap;

use sea_orm::DbErr;

use super::ApiError;

/// Whether `err` says the database cannot be reached (rather than that a statement failed): a connection that could
/// not be acquired in time, a closed pool, a connection-level I/O failure, or a server that ended the session.
pub(crate) fn unavailable(err: &DbErr) -> bool {
    match err {
        DbErr::ConnectionAcquire(_) | DbErr::Conn(_) => true,
        #[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
        DbErr::Query(sea_orm::RuntimeErr::SqlxError(e)) | DbErr::Exec(sea_orm::RuntimeErr::SqlxError(e)) => {
            match &**e {
                sea_orm::SqlxError::Io(_) | sea_orm::SqlxError::PoolTimedOut | sea_orm::SqlxError::PoolClosed => true,
                sea_orm::SqlxError::Database(db) => db.code().is_some_and(|code| session_ended(&code)),
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether `err` says the database gave up on a lock, so the whole transaction was rolled back and may be retried:
/// SQLSTATE `40001` (serialization failure; MariaDB's deadlock 1213 too), `40P01` (PostgreSQL's deadlock), `55P03`
/// (`lock_not_available`), MariaDB's lock wait timeout 1205, SQLite's `SQLITE_BUSY` / `SQLITE_LOCKED` (5, 6, and
/// the extended 261, 517).
pub(super) fn contention(err: &DbErr) -> bool {
    #[cfg(any(feature = "sqlite", feature = "postgres", feature = "mysql"))]
    if let DbErr::Query(sea_orm::RuntimeErr::SqlxError(e)) | DbErr::Exec(sea_orm::RuntimeErr::SqlxError(e)) = err
        && let sea_orm::SqlxError::Database(db) = &**e
    {
        #[cfg(feature = "mysql")]
        if db.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>().is_some_and(|m| m.number() == 1205) {
            return true;
        }
        return db.code().is_some_and(|code| matches!(&*code, "40001" | "40P01" | "55P03" | "5" | "6" | "261" | "517"));
    }
    let _ = err;
    false
}

/// PostgreSQL's SQLSTATEs for a session the server ended or cannot start: class 08 (connection exception) and
/// 57P01–57P03 (`admin_shutdown`: a fast or smart shutdown, a failover, `pg_terminate_backend`; `crash_shutdown`;
/// `cannot_connect_now`). A pooled connection reports them on its next query. SQLite's codes are numbers, never
/// these; MariaDB's SQLSTATE for a server shutting down (1053) is `08S01`.
#[cfg(any(test, feature = "sqlite", feature = "postgres", feature = "mysql"))]
pub(super) fn session_ended(sqlstate: &str) -> bool {
    sqlstate.starts_with("08") || matches!(sqlstate, "57P01" | "57P02" | "57P03")
}

/// Best effort: SQLite says `UNIQUE constraint failed: authors.email`; PostgreSQL names the constraint
/// (`authors_email_key`), whose middle part is the column for constraints made by `UNIQUE`; MariaDB names the key
/// (`Duplicate entry 'x' for key 'email'`: a column's `UNIQUE` is named as the column, an index `posts_slug` is the
/// table's name and the column; MySQL 8 writes `'authors.email'`).
pub(super) fn unique_field(msg: &str, table: &str) -> Option<String> {
    if let Some(rest) = msg.split("UNIQUE constraint failed: ").nth(1) {
        let first = rest.split([',', ' ', '"']).next()?;
        return first.rsplit('.').next().map(str::to_string);
    }
    if let Some(rest) = msg.split("for key '").nth(1) {
        let key = rest.split('\'').next()?;
        let key = key.rsplit('.').next()?;
        let column = key.strip_prefix(table).and_then(|rest| rest.strip_prefix('_')).unwrap_or(key);
        return (!column.is_empty() && column != "PRIMARY").then(|| column.to_string());
    }
    let constraint = msg.split("unique constraint \"").nth(1)?.split('"').next()?;
    let base = constraint.strip_suffix("_key")?;
    match base.strip_prefix(table).and_then(|rest| rest.strip_prefix('_')) {
        Some(col) => Some(col.to_string()),
        None => base.split_once('_').map(|(_, col)| col.to_string()),
    }
}

/// A value MariaDB / MySQL refused for its column under the strict `sql_mode` every connection runs with, as a
/// 422 `validation_error` naming the column: 1406 data too long, 1264 out of range, 1292 and 1366 not a valid value
/// of the column's type (a date outside `TIMESTAMP`'s range, text that is not valid in the column's charset), 1048 a
/// `NULL` for a `NOT NULL` column, 1690 an arithmetic result out of range, 3819 / 4025 a `CHECK` constraint; 1191
/// (no `FULLTEXT` index for a `MATCH`) a 422 `fulltext_unavailable` at `["query", "q"]`. PostgreSQL's 22003 (out of
/// range) is the same 422. `None` for every other error.
pub(super) fn refused_value(err: &DbErr) -> Option<ApiError> {
    // PostgreSQL's 22003: a value, or a result computed from the stored ones (`avg` of huge doubles overflows its
    // sum of squares), out of its type's range.
    #[cfg(feature = "postgres")]
    if let DbErr::Query(sea_orm::RuntimeErr::SqlxError(e)) | DbErr::Exec(sea_orm::RuntimeErr::SqlxError(e)) = err
        && let sea_orm::SqlxError::Database(db) = &**e
        && db.code().as_deref() == Some("22003")
    {
        let what = "A value, or a result computed from the stored values, is out of range for its type.";
        return Some(ApiError::Validation { detail: what.to_string(), errors: BTreeMap::new() });
    }
    #[cfg(feature = "mysql")]
    if let DbErr::Query(sea_orm::RuntimeErr::SqlxError(e)) | DbErr::Exec(sea_orm::RuntimeErr::SqlxError(e)) = err
        && let sea_orm::SqlxError::Database(db) = &**e
        && let Some(mysql) = db.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>()
    {
        return refused_by_number(mysql.number(), mysql.message());
    }
    let _ = err;
    None
}

/// [`refused_value`] from MariaDB's error number and message.
#[cfg_attr(not(feature = "mysql"), allow(dead_code))]
pub(super) fn refused_by_number(number: u16, message: &str) -> Option<ApiError> {
    if number == 1191 {
        // `MATCH (…)` with no `FULLTEXT` index on exactly those columns: the application has not created it.
        let msg = "full-text search needs a FULLTEXT index on exactly the searched fields, which this table lacks";
        return Some(ApiError::input(["query", crate::query::FULLTEXT_PARAM], msg, "fulltext_unavailable"));
    }
    let what = match number {
        1406 => "This value is too long for the column.",
        1264 | 1690 => "This value is out of range for the column.",
        1292 | 1366 => "This value is not valid for the column's type.",
        1048 => "This field may not be null.",
        3819 | 4025 => "This value breaks a constraint of the table.",
        _ => return None,
    };
    let mut errors = BTreeMap::new();
    if let Some(column) = refused_column(message) {
        errors.insert(column, vec![what.to_string()]);
    }
    Some(ApiError::Validation { detail: what.to_string(), errors })
}

/// The column a MariaDB message names: `for column 'title'`, ``for column `db`.`posts`.`created_at` ``, `Column
/// 'title' cannot be null`.
fn refused_column(message: &str) -> Option<String> {
    let rest = message.split("for column ").nth(1).or_else(|| message.split("Column ").nth(1))?;
    let quoted = rest.split(' ').next()?;
    let last = quoted.rsplit('.').next()?;
    let column = last.trim_matches(['\'', '`']);
    (!column.is_empty()).then(|| column.to_string())
}
