//! The database's own bound on an aggregate ([`QueryLimits::max_aggregate_time`]): the server stops a statement
//! that runs longer, so a slow aggregate frees its connection and the server's work, rather than running on after
//! the request timeout gave up on it. PostgreSQL: `SET LOCAL statement_timeout` in a read transaction of its own;
//! MariaDB: `SET STATEMENT max_statement_time = … FOR` the statement; MySQL: the `MAX_EXECUTION_TIME` optimizer hint
//! (MariaDB reads it as a comment, so a pool that reached both servers is still bounded by the hint on MySQL);
//! SQLite: no bound of its own (the request timeout answers). A stopped statement answers 503 `statement_timeout`.
//!
//! [`QueryLimits::max_aggregate_time`]: crate::query::QueryLimits::max_aggregate_time

use std::time::Duration;

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, DbErr, QueryResult, Statement, TransactionTrait};

use crate::error::ApiError;
use crate::request::Reader;
use crate::store::run::{On, rows};

/// The statement kind of the read, for the statement hook and the metrics.
const ROLE: &str = "aggregate";

/// The rows of the aggregate `statement`, read through `reader` (its replica first, as every read) and bounded
/// to `limit` by the database.
pub(super) async fn read(
    reader: Reader<'_>,
    statement: Statement,
    capacity: usize,
    limit: Duration,
) -> Result<Vec<QueryResult>, DbErr> {
    match statement.db_backend {
        DbBackend::Postgres => {
            crate::store::replica::read_with(reader, |db| in_transaction(db, statement.clone(), capacity, limit)).await
        }
        #[cfg(feature = "mysql")]
        DbBackend::MySql => {
            let bounded = mysql(statement, limit, crate::store::mysql::mariadb_only());
            crate::store::replica::read_rows(reader, bounded, capacity, ROLE).await
        }
        _ => crate::store::replica::read_rows(reader, statement, capacity, ROLE).await,
    }
}

/// PostgreSQL: the statement in a transaction whose `statement_timeout` is `limit` (`SET LOCAL` ends with it, so a
/// pooled connection keeps no setting).
async fn in_transaction(
    db: &DatabaseConnection,
    statement: Statement,
    capacity: usize,
    limit: Duration,
) -> Result<Vec<QueryResult>, DbErr> {
    let txn = db.begin().await?;
    txn.execute_unprepared(&format!("SET LOCAL statement_timeout = {}", limit.as_millis().max(1))).await?;
    let read = rows(On::Txn(&txn), statement, capacity, ROLE).await?;
    txn.commit().await?;
    Ok(read)
}

/// MariaDB (`mariadb`): `SET STATEMENT max_statement_time = <seconds> FOR <statement>`; MySQL: the statement's
/// first `SELECT` with the `MAX_EXECUTION_TIME(<ms>)` hint.
#[cfg(any(test, feature = "mysql"))]
fn mysql(mut statement: Statement, limit: Duration, mariadb: bool) -> Statement {
    let sql = &statement.sql;
    statement.sql = if mariadb {
        format!("SET STATEMENT max_statement_time = {:.3} FOR {sql}", limit.as_secs_f64().max(0.001))
    } else if let Some(rest) = sql.strip_prefix("SELECT ") {
        format!("SELECT /*+ MAX_EXECUTION_TIME({}) */ {rest}", limit.as_millis().max(1))
    } else {
        return statement;
    };
    statement
}

/// The answer to an aggregate the database stopped at `limit`.
pub(super) fn stopped(limit: Duration) -> ApiError {
    let detail = format!(
        "The aggregate ran longer than {limit:?} (limit max_aggregate_time) and the database stopped it: narrow it \
         with filters or fewer groups, or raise the limit."
    );
    ApiError::Limit { status: axum::http::StatusCode::SERVICE_UNAVAILABLE, limit: "max_aggregate_time", detail }
}

/// Whether `err` is the database stopping a statement at its time bound: PostgreSQL's `query_canceled` (57014),
/// MariaDB's 1969 (SQLSTATE 70100), MySQL's 3024.
pub(super) fn timed_out(err: &DbErr) -> bool {
    #[cfg(any(feature = "postgres", feature = "mysql"))]
    if let DbErr::Query(sea_orm::RuntimeErr::SqlxError(e)) | DbErr::Exec(sea_orm::RuntimeErr::SqlxError(e)) = err
        && let sea_orm::SqlxError::Database(db) = &**e
    {
        #[cfg(feature = "mysql")]
        if db.try_downcast_ref::<sqlx::mysql::MySqlDatabaseError>().is_some_and(|m| matches!(m.number(), 1969 | 3024)) {
            return true;
        }
        return db.code().is_some_and(|code| matches!(&*code, "57014" | "70100"));
    }
    let _ = err;
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mariadb_and_mysql_statements_carry_their_bound() {
        let select = || Statement::from_string(DbBackend::MySql, "SELECT `author_id`, COUNT(*) FROM `posts`");
        let mariadb = mysql(select(), Duration::from_millis(2500), true);
        assert_eq!(
            mariadb.sql,
            "SET STATEMENT max_statement_time = 2.500 FOR SELECT `author_id`, COUNT(*) FROM `posts`"
        );
        let mysql_hint = mysql(select(), Duration::from_millis(2500), false);
        assert_eq!(mysql_hint.sql, "SELECT /*+ MAX_EXECUTION_TIME(2500) */ `author_id`, COUNT(*) FROM `posts`");
        let tiny = mysql(select(), Duration::from_micros(10), true);
        assert!(tiny.sql.starts_with("SET STATEMENT max_statement_time = 0.001 FOR"), "{}", tiny.sql);
    }

    #[test]
    fn the_answer_names_the_limit() {
        let body = stopped(Duration::from_secs(20)).body();
        assert_eq!(body["code"], "statement_timeout");
        assert!(body["detail"].as_str().is_some_and(|d| d.contains("max_aggregate_time")), "{body}");
    }
}
