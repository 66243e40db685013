//! MariaDB / MySQL sessions: every pooled connection starts with the same `sql_mode`, time zone and character set,
//! so the answers do not depend on the server's configuration.
//!
//! - `STRICT_ALL_TABLES`: a string longer than its column, a number out of range, or an invalid date is an error
//!   (a 422, `crate::error`), never a silent truncation or a zero date;
//! - `NO_ZERO_DATE`, `NO_ZERO_IN_DATE`, `ERROR_FOR_DIVISION_BY_ZERO`, `NO_ENGINE_SUBSTITUTION`;
//! - `PIPES_AS_CONCAT` (sqlx's default, kept): `||` concatenates;
//! - `time_zone = '+00:00'`: `TIMESTAMP` columns read and write UTC;
//! - `utf8mb4` (sqlx's default `SET NAMES`): every Unicode character, emoji included, round-trips;
//! - `innodb_lock_wait_timeout = 5` (the server's default is 50 s): a request that waits on another's row lock
//!   gives up after 5 s with a 503 `database_busy` (`crate::error`) rather than holding its client for minutes.
//!
//! Backslashes stay escape characters in string literals (no `NO_BACKSLASH_ESCAPES`), so `LIKE`'s default
//! escape character is the backslash, as `query::text_match` writes its patterns.

use sea_orm::ConnectOptions;

/// The `sql_mode` of every connection [`super::connect`] opens to MariaDB or MySQL.
///
/// ```
/// assert!(viewset_core::store::MYSQL_SQL_MODE.contains("STRICT_ALL_TABLES"));
/// ```
pub const MYSQL_SQL_MODE: &str = "STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,\
                                  NO_ENGINE_SUBSTITUTION,PIPES_AS_CONCAT";

/// The statement run on each new connection.
const SESSION: &str = concat!(
    "SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,",
    "NO_ENGINE_SUBSTITUTION,PIPES_AS_CONCAT', time_zone = '+00:00', innodb_lock_wait_timeout = 5"
);

/// Sets up `options` so each new MariaDB / MySQL connection runs [`SESSION`] before it is used.
pub(super) fn session(options: &mut ConnectOptions) {
    options.map_sqlx_mysql_opts(|options| options.charset("utf8mb4"));
    options.map_sqlx_mysql_pool_opts(|pool| {
        pool.after_connect(|connection, _| {
            Box::pin(async move {
                use sqlx::Executor;
                connection.execute(SESSION).await.map(drop)
            })
        })
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_session_sets_the_documented_mode() {
        let mode = super::SESSION.split('\'').nth(1).expect("a quoted sql_mode");
        assert_eq!(mode, super::MYSQL_SQL_MODE);
    }
}
