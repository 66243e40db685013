//! SQLite: what every connection to a database *file* starts with, so the embedded default answers as a server
//! would (issue 74, `BENCHMARKS.md` "SQLite against PocketBase").
//!
//! The defaults, their durability trade-off and how to override them: [`sqlite_defaults`].

use std::time::Duration;

use sea_orm::ConnectOptions;
use sea_orm::sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};

/// How long a connection waits for another's lock on a SQLite file before answering `SQLITE_BUSY`.
///
/// ```
/// assert_eq!(viewset_core::store::SQLITE_BUSY_TIMEOUT.as_secs(), 5);
/// ```
pub const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The size in bytes the write-ahead log is truncated to after a checkpoint (`PRAGMA journal_size_limit`).
///
/// ```
/// assert_eq!(viewset_core::store::SQLITE_JOURNAL_SIZE_LIMIT, 64 * 1024 * 1024);
/// ```
pub const SQLITE_JOURNAL_SIZE_LIMIT: u64 = 64 * 1024 * 1024;

/// The page cache of each SQLite connection, in KiB (`PRAGMA cache_size = -N`).
///
/// ```
/// assert_eq!(viewset_core::store::SQLITE_CACHE_KIB, 16 * 1024);
/// ```
pub const SQLITE_CACHE_KIB: u32 = 16 * 1024;

/// The pool size [`super::options`] gives a SQLite file: one connection, as sea-orm opens when none is given. In WAL
/// more connections let reads run beside the writer (retrieve at 16 and 64 clients 1.4–2.6× faster with 8,
/// `BENCHMARKS.md` "SQLite against PocketBase"), but a write transaction that reads before it writes (a PATCH, an
/// upsert) begins deferred and is refused `SQLITE_BUSY` at once when another connection wrote first, which the busy
/// timeout does not cover: schemathesis saw 503 `database_busy` on concurrent PATCHes and upserts with 8. Until every
/// such transaction begins `IMMEDIATE`, the default is one connection; `options.max_connections(n)` on the returned
/// options raises it for a read-mostly application.
///
/// ```
/// let options = viewset_core::store::options("sqlite://app.db?mode=rwc");
/// assert_eq!(options.get_max_connections(), Some(viewset_core::store::SQLITE_MAX_CONNECTIONS));
/// assert_eq!(viewset_core::store::options("sqlite::memory:").get_max_connections(), None); // one, sea-orm's
/// ```
pub const SQLITE_MAX_CONNECTIONS: u32 = 1;

/// `options` with the defaults of a SQLite database file, which [`super::options`] installs for a `sqlite:` URL
/// that is not in memory:
///
/// | pragma | value | why |
/// |---|---|---|
/// | `journal_mode` | `WAL` | readers do not block the writer nor it them; a commit appends to the log instead of rewriting pages through a rollback journal |
/// | `synchronous` | `NORMAL` | the log is synced at checkpoints, not at every commit (see the trade-off below) |
/// | `busy_timeout` | [`SQLITE_BUSY_TIMEOUT`] | a writer waits this long for another's lock before `SQLITE_BUSY` (503 `database_busy`) |
/// | `journal_size_limit` | [`SQLITE_JOURNAL_SIZE_LIMIT`] | the log is truncated back to this size after a checkpoint, not left at its largest |
/// | `cache_size` | [`SQLITE_CACHE_KIB`] KiB per connection | SQLite's default is 2 MiB |
/// | `temp_store` | `MEMORY` | sorts and temporary tables of a query stay in memory |
/// | `foreign_keys` | `ON` | sqlx's default, kept |
///
/// **Durability.** In WAL with `synchronous=NORMAL` a committed transaction is in the log before the commit
/// returns, so a crash of the process (a panic, `SIGKILL`, the OOM killer) loses nothing that was acknowledged
/// (`tests/tests/sqlite_defaults.rs` kills the blog mid-stream and finds every acknowledged write); a power loss
/// or an operating-system crash can lose the last transactions before the next checkpoint synced the log, and
/// never corrupts the database. Where that matters, keep `synchronous=FULL` (below).
///
/// In-memory databases (`sqlite::memory:`, `mode=memory`) are left as sqlx opens them: there is no file to log to.
///
/// **Overriding.** [`super::options`] installs these defaults with `ConnectOptions::map_sqlx_sqlite_opts`; calling
/// it again on the returned options replaces them with your function, which can start from [`sqlite_defaults`]:
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::sqlx::sqlite::SqliteSynchronous;
/// let file = std::env::temp_dir().join(format!("viewset-doc-{}.db", std::process::id()));
/// let mut options = viewset_core::store::options(&format!("sqlite://{}?mode=rwc", file.display()));
/// options.map_sqlx_sqlite_opts(|sqlite| viewset_core::store::sqlite_defaults(sqlite).synchronous(SqliteSynchronous::Full));
/// let db = viewset_core::store::connect_with(options).await?;
/// # drop(db); let _ = std::fs::remove_file(&file); Ok(()) }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
/// ```
pub fn sqlite_defaults(options: SqliteConnectOptions) -> SqliteConnectOptions {
    options
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(SQLITE_BUSY_TIMEOUT)
        .foreign_keys(true)
        .pragma("journal_size_limit", SQLITE_JOURNAL_SIZE_LIMIT.to_string())
        .pragma("cache_size", format!("-{SQLITE_CACHE_KIB}"))
        .pragma("temp_store", "MEMORY")
}

/// Whether `url` names an in-memory SQLite database (`sqlite::memory:`, `sqlite://:memory:`, `?mode=memory`).
fn in_memory(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("sqlite:") else { return false };
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    path.trim_start_matches('/') == ":memory:" || query.split('&').any(|pair| pair == "mode=memory")
}

/// Installs [`sqlite_defaults`] and a pool of [`SQLITE_MAX_CONNECTIONS`] on `options` when `url` is a SQLite file.
pub(super) fn file_defaults(url: &str, options: &mut ConnectOptions) {
    if url.starts_with("sqlite:") && !in_memory(url) {
        options.map_sqlx_sqlite_opts(sqlite_defaults).max_connections(SQLITE_MAX_CONNECTIONS);
    }
}

#[cfg(test)]
mod tests {
    use super::in_memory;

    #[test]
    fn in_memory_urls_are_told_from_files() {
        for url in [
            "sqlite::memory:",
            "sqlite://:memory:",
            "sqlite:file:x?mode=memory&cache=shared",
            "sqlite::memory:?cache=shared",
        ] {
            assert!(in_memory(url), "{url}");
        }
        for url in
            ["sqlite://blog.db?mode=rwc", "sqlite:/tmp/memory.db", "sqlite://x.db?mode=ro", "postgres://h/memory"]
        {
            assert!(!in_memory(url), "{url}");
        }
    }
}
