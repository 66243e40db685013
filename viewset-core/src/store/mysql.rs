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
//! Each new connection also reads the server's version: MariaDB (≥ 10.5) inserts with `RETURNING`, MySQL does not
//! ([`mariadb_only`], read by `Plan`).
//!
//! Backslashes stay escape characters in string literals (no `NO_BACKSLASH_ESCAPES`), so `LIKE`'s default
//! escape character is the backslash, as `query::text_match` writes its patterns.

use std::sync::atomic::{AtomicBool, Ordering};

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

/// Whether a connection [`session`] set up reached a MariaDB server, and one reached a MySQL server.
static SEEN_MARIADB: AtomicBool = AtomicBool::new(false);
static SEEN_MYSQL: AtomicBool = AtomicBool::new(false);

/// Whether every MariaDB / MySQL connection this process opened through [`super::connect`] reached MariaDB (and at
/// least one did): MariaDB ≥ 10.5 writes `INSERT … RETURNING` (not `UPDATE … RETURNING`), MySQL neither. A process
/// that has reached a MySQL server too, or whose connections were opened without [`super::options`], reads
/// inserted rows back by key everywhere (`Plan::insert_returning` is false).
pub(crate) fn mariadb_only() -> bool {
    SEEN_MARIADB.load(Ordering::Relaxed) && !SEEN_MYSQL.load(Ordering::Relaxed)
}

/// Records the server `version` of a new connection ([`mariadb_only`]).
fn seen(version: &str) {
    if inserts_returning(version) { &SEEN_MARIADB } else { &SEEN_MYSQL }.store(true, Ordering::Relaxed);
}

/// Whether the server whose `SELECT VERSION()` is `version` (`10.11.6-MariaDB-…`, `8.0.36`) writes
/// `INSERT … RETURNING`: MariaDB from 10.5.
fn inserts_returning(version: &str) -> bool {
    let mut numbers = version.split(['.', '-']).map(|n| n.parse::<u32>().unwrap_or(0));
    let release = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    version.contains("MariaDB") && release >= (10, 5)
}

/// Sets up `options` so each new MariaDB / MySQL connection runs [`SESSION`] before it is used, and reads the
/// server's version ([`mariadb_only`]).
pub(super) fn session(options: &mut ConnectOptions) {
    options.map_sqlx_mysql_opts(|options| options.charset("utf8mb4"));
    options.map_sqlx_mysql_pool_opts(|pool| {
        pool.after_connect(|connection, _| {
            Box::pin(async move {
                use sqlx::Executor;
                connection.execute(SESSION).await?;
                let (version,): (String,) = sqlx::query_as("SELECT VERSION()").fetch_one(&mut *connection).await?;
                seen(&version);
                Ok(())
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

    #[test]
    fn mariadb_from_10_5_inserts_returning() {
        for (version, returning) in [
            ("10.11.19-MariaDB-0+deb12u1", true),
            ("10.5.0-MariaDB", true),
            ("11.4.2-MariaDB-log", true),
            ("10.4.34-MariaDB", false),
            ("8.0.36", false),
            ("8.4.0-commercial", false),
        ] {
            assert_eq!(super::inserts_returning(version), returning, "{version}");
        }
    }
}
