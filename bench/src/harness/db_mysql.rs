//! MariaDB's side of the databases: one fresh database per server, seeded with the same rows as PostgreSQL's
//! (`db::seed`), written in MariaDB's SQL (its `seq_1_to_N` tables for `generate_series`).

use sqlx::mysql::{MySqlPool, MySqlPoolOptions};
use sqlx::{AssertSqlSafe, Executor};

use super::db::Schema;

/// A pool of 2 connections to `url` (the server itself, or one database). A statement waits at most 60 s for a
/// table's metadata lock (`TRUNCATE` behind a transaction a server left open fails instead of waiting a year).
pub async fn connect(url: &str) -> Result<MySqlPool, String> {
    MySqlPoolOptions::new()
        .max_connections(2)
        .after_connect(|conn, _| {
            Box::pin(async move { conn.execute("SET SESSION lock_wait_timeout = 60").await.map(|_| ()) })
        })
        .connect(url)
        .await
        .map_err(|e| format!("connect {url}: {e}"))
}

/// A fresh `utf8mb4` database `name` (dropped first if it exists); returns its URL.
pub async fn recreate(admin: &MySqlPool, base_url: &str, name: &str) -> Result<String, String> {
    drop_db(admin, name).await?;
    admin
        .execute(AssertSqlSafe(format!("CREATE DATABASE `{name}` CHARACTER SET utf8mb4")))
        .await
        .map_err(|e| format!("create {name}: {e}"))?;
    Ok(format!("{}/{name}", base_url.trim_end_matches('/')))
}

/// `DROP DATABASE IF EXISTS`.
pub async fn drop_db(admin: &MySqlPool, name: &str) -> Result<(), String> {
    admin
        .execute(AssertSqlSafe(format!("DROP DATABASE IF EXISTS `{name}`")))
        .await
        .map(|_| ())
        .map_err(|e| format!("drop {name}: {e}"))
}

/// Sets `innodb_flush_log_at_trx_commit = 2` for the run (a commit is written to the OS, flushed once a second:
/// what PostgreSQL's `synchronous_commit = off` is to the PostgreSQL run; the setting is the server's, shared by
/// every server measured); returns the value to restore.
pub async fn relax_flush(admin: &MySqlPool) -> Result<u64, String> {
    let previous: u64 = sqlx::query_scalar("SELECT @@GLOBAL.innodb_flush_log_at_trx_commit")
        .fetch_one(admin)
        .await
        .map_err(|e| format!("read innodb_flush_log_at_trx_commit: {e}"))?;
    set_flush(admin, 2).await?;
    Ok(previous)
}

/// `SET GLOBAL innodb_flush_log_at_trx_commit = value`.
pub async fn set_flush(admin: &MySqlPool, value: u64) -> Result<(), String> {
    admin
        .execute(AssertSqlSafe(format!("SET GLOBAL innodb_flush_log_at_trx_commit = {value}")))
        .await
        .map(|_| ())
        .map_err(|e| format!("set innodb_flush_log_at_trx_commit: {e}"))
}

/// The values of row `seq` (1-based), the same as PostgreSQL's `db::ROW_VALUES` for row `i`.
const ROW_VALUES: &str = "\
    CONCAT('Post ', seq, ' on ', ELT(1 + seq % 8, 'rust','axum','tokio','serde','sqlx','postgres','python','django')), \
    CONCAT('Notes number ', seq, ': ', ELT(1 + seq % 6, 'fast','slow','typed','dynamic','tested','simple'), ' code'), \
    seq % 2 = 0, \
    (seq * 7919) % 10000, \
    CASE WHEN seq % 3 = 0 THEN NULL ELSE (seq % 50) / 10.0 END, \
    1 + seq % 5, \
    TIMESTAMP '2025-01-01 00:00:00' + INTERVAL seq MINUTE";

/// Empties `posts` and inserts `rows` rows (ids 1..=rows), then `ANALYZE TABLE` so every database starts with the
/// same statistics. The blog's schema only (aksara does not run on MariaDB).
pub async fn seed(pool: &MySqlPool, schema: Schema, rows: u64) -> Result<(), String> {
    if schema != Schema::Blog {
        return Err("seed: only the blog's schema is seeded on MariaDB".into());
    }
    let err = |what: &str, e: sqlx::Error| format!("seed ({what}): {e}");
    pool.execute("TRUNCATE TABLE posts").await.map_err(|e| err("truncate", e))?;
    pool.execute(
        "INSERT IGNORE INTO authors (name, email) \
         SELECT CONCAT('Author ', seq), CONCAT('author', seq, '@example.com') FROM seq_1_to_5",
    )
    .await
    .map_err(|e| err("authors", e))?;
    let sql = format!(
        "INSERT INTO posts (title, body, published, views, rating, author_id, created_at) \
         SELECT {ROW_VALUES} FROM seq_1_to_{rows}"
    );
    pool.execute(AssertSqlSafe(sql)).await.map_err(|e| err("posts", e))?;
    pool.execute("ANALYZE TABLE posts").await.map_err(|e| err("analyze", e))?;
    Ok(())
}

/// Ends the connections to this pool's database that sit idle inside a transaction (the server rolls it back),
/// but this one; returns how many. A sqlx MySQL connection whose `BEGIN` was cancelled after it reached the server
/// (a client that went away mid-request) returns to its pool still inside that transaction, unknown to sqlx: its
/// later statements are not committed, and their locks keep `TRUNCATE` (the reseed) waiting.
pub async fn end_idle_transactions(pool: &MySqlPool) -> Result<u64, String> {
    let ids: Vec<u64> = sqlx::query_scalar(
        "SELECT CAST(p.ID AS UNSIGNED) FROM information_schema.PROCESSLIST p \
         JOIN information_schema.INNODB_TRX t ON t.trx_mysql_thread_id = p.ID \
         WHERE p.DB = DATABASE() AND p.COMMAND = 'Sleep' AND p.ID <> CONNECTION_ID()",
    )
    .fetch_all(pool)
    .await
    .map_err(|e| format!("idle transactions: {e}"))?;
    for id in &ids {
        pool.execute(AssertSqlSafe(format!("KILL CONNECTION {id}"))).await.map_err(|e| format!("kill {id}: {e}"))?;
    }
    Ok(ids.len() as u64)
}

/// `SELECT VERSION()`.
pub async fn server_version(pool: &MySqlPool) -> String {
    sqlx::query_scalar::<_, String>("SELECT VERSION()").fetch_one(pool).await.unwrap_or_else(|e| e.to_string())
}
