//! The one way a test runs on every database: [`crate::on_every_database!`] declares each scenario once and
//! generates a SQLite test, a PostgreSQL test and a MariaDB test for it, all through [`run_on`].
//!
//! PostgreSQL runs when `VIEWSET_TEST_PG_URL` is set. Without it a PostgreSQL test prints that it was skipped, or
//! fails when `VIEWSET_REQUIRE_PG=1` (as in CI), so a CI run can never pass with its PostgreSQL half silently
//! missing. Tests that only make sense on PostgreSQL gate themselves with [`require_postgres`]. MariaDB is the
//! same with `VIEWSET_TEST_MYSQL_URL` and `VIEWSET_REQUIRE_MYSQL=1` ([`require_mysql`]).
//!
//! Not yet on MariaDB: a file whose scenarios have not been made to pass on MariaDB declares them with
//! `on_every_database!(not_mysql("why"), setup => …)`, which generates the SQLite and PostgreSQL tests only;
//! `grep -rn 'not_mysql(' tests/tests` lists them with the reason.

use std::future::Future;

use crate::harness::{Backend, mysql_url, postgres_url};

/// Whether the environment variable `var` is exactly `1`.
fn required(var: &str) -> bool {
    std::env::var(var).as_deref() == Ok("1")
}

/// Notes on stderr that `what` is missing, so the calling test skips; panics instead when `var` is `1`.
pub fn skip_unless_required(var: &str, what: &str) {
    assert!(!required(var), "{var}=1, but {what}: this test would have been skipped");
    eprintln!("skipped: {what}, so this test did not run (set {var}=1 to make that a failure)");
}

/// The PostgreSQL server URL, or `None` with a note when `VIEWSET_TEST_PG_URL` is unset; panics when
/// `VIEWSET_REQUIRE_PG=1` and it is unset.
///
/// ```no_run
/// # async fn postgres_only_test() {
/// let Some(server) = viewset_tests::every_database::require_postgres() else { return };
/// assert!(server.starts_with("postgres://"));
/// # }
/// ```
pub fn require_postgres() -> Option<String> {
    let url = postgres_url();
    if url.is_none() {
        skip_unless_required("VIEWSET_REQUIRE_PG", "VIEWSET_TEST_PG_URL is not set");
    }
    url
}

/// The MariaDB / MySQL server URL, or `None` with a note when `VIEWSET_TEST_MYSQL_URL` is unset; panics when
/// `VIEWSET_REQUIRE_MYSQL=1` and it is unset.
///
/// ```no_run
/// # async fn mariadb_only_test() {
/// let Some(server) = viewset_tests::every_database::require_mysql() else { return };
/// assert!(server.starts_with("mysql://"));
/// # }
/// ```
pub fn require_mysql() -> Option<String> {
    let url = mysql_url();
    if url.is_none() {
        skip_unless_required("VIEWSET_REQUIRE_MYSQL", "VIEWSET_TEST_MYSQL_URL is not set");
    }
    url
}

/// Runs `scenario` on what `setup` builds for `backend`; on PostgreSQL only when [`require_postgres`] allows, on
/// MariaDB only when [`require_mysql`] allows.
///
/// ```no_run
/// use viewset_tests::every_database::run_on;
/// use viewset_tests::harness::{Backend, TestApp};
///
/// async fn lists_posts(app: TestApp) {
///     assert_eq!(app.get("/api/posts/").await.0, 200);
/// }
///
/// # async fn test() {
/// run_on(Backend::Postgres, TestApp::blog, lists_posts).await;
/// # }
/// ```
pub async fn run_on<T, S, SF, F, FF>(backend: Backend, setup: S, scenario: F)
where
    S: FnOnce(Backend) -> SF,
    SF: Future<Output = T>,
    F: FnOnce(T) -> FF,
    FF: Future<Output = ()>,
{
    if backend == Backend::Postgres && require_postgres().is_none() {
        return;
    }
    if backend == Backend::Mysql && require_mysql().is_none() {
        return;
    }
    scenario(setup(backend).await).await;
}

/// Declares each named `async fn(T)` scenario once and runs it on SQLite, PostgreSQL and MariaDB: for every
/// scenario a module of that name with the tests `sqlite`, `postgres` and `mysql`, which build their input with `setup` (an
/// `async fn(Backend) -> T`, e.g. `TestApp::blog`, evaluated inside the scenario's module, which sees the
/// file's imports) and go through [`run_on`].
///
/// ```no_run
/// use viewset_tests::harness::TestApp;
/// use viewset_tests::on_every_database;
///
/// async fn lists_posts(app: TestApp) {
///     assert_eq!(app.get("/api/posts/").await.0, 200);
/// }
///
/// on_every_database!(TestApp::blog => lists_posts);
/// # fn main() {}
/// ```
///
/// `not_mysql("reason")` first leaves the MariaDB test out (SQLite and PostgreSQL only), for scenarios not yet
/// made to pass on MariaDB:
///
/// ```no_run
/// # use viewset_tests::harness::TestApp;
/// # use viewset_tests::on_every_database;
/// # async fn reads_sqlite_master(app: TestApp) { let _ = app; }
/// on_every_database!(not_mysql("reads SQLite's catalog"), TestApp::blog => reads_sqlite_master);
/// # fn main() {}
/// ```
#[macro_export]
macro_rules! on_every_database {
    (not_mysql($why:literal), $setup:expr => $($scenario:ident),+ $(,)?) => {$(
        mod $scenario {
            #[allow(unused_imports)]
            use super::*;

            const _NOT_YET_ON_MARIADB: &str = $why;

            #[tokio::test]
            async fn sqlite() {
                $crate::every_database::run_on($crate::harness::Backend::Sqlite, $setup, super::$scenario).await;
            }

            #[tokio::test]
            async fn postgres() {
                $crate::every_database::run_on($crate::harness::Backend::Postgres, $setup, super::$scenario).await;
            }
        }
    )+};
    ($setup:expr => $($scenario:ident),+ $(,)?) => {$(
        mod $scenario {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test]
            async fn sqlite() {
                $crate::every_database::run_on($crate::harness::Backend::Sqlite, $setup, super::$scenario).await;
            }

            #[tokio::test]
            async fn postgres() {
                $crate::every_database::run_on($crate::harness::Backend::Postgres, $setup, super::$scenario).await;
            }

            #[tokio::test]
            async fn mysql() {
                $crate::every_database::run_on($crate::harness::Backend::Mysql, $setup, super::$scenario).await;
            }
        }
    )+};
}
