//! Databases: one fresh PostgreSQL (or MariaDB: `db_mysql`) database per server, the same seeded rows in each.

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{AssertSqlSafe, Executor};

use super::db_mysql;
use super::options::Backend;

/// A pool on the run's database server, PostgreSQL or MariaDB: the harness's operations on either.
#[derive(Debug, Clone)]
pub enum Store {
    /// PostgreSQL.
    Pg(PgPool),
    /// MariaDB, through sqlx's MySQL driver.
    My(sqlx::MySqlPool),
}

impl Store {
    /// The administration pool of `backend`'s server at `base_url` (PostgreSQL's `postgres` database; MariaDB's
    /// server, no database).
    pub async fn admin(backend: Backend, base_url: &str) -> Result<Store, String> {
        let base = base_url.trim_end_matches('/');
        Ok(match backend {
            Backend::Postgres => Store::Pg(connect(&format!("{base}/postgres")).await?),
            Backend::Mariadb => Store::My(db_mysql::connect(base).await?),
        })
    }

    /// A pool of the same kind on the database at `url`.
    pub async fn open(&self, url: &str) -> Result<Store, String> {
        Ok(match self {
            Store::Pg(_) => Store::Pg(connect(url).await?),
            Store::My(_) => Store::My(db_mysql::connect(url).await?),
        })
    }

    /// A fresh database `name` on this (administration) pool's server; returns its URL.
    pub async fn recreate(&self, base_url: &str, name: &str) -> Result<String, String> {
        match self {
            Store::Pg(admin) => recreate(admin, base_url, name).await,
            Store::My(admin) => db_mysql::recreate(admin, base_url, name).await,
        }
    }

    /// Drops the database `name`.
    pub async fn drop_db(&self, name: &str) -> Result<(), String> {
        match self {
            Store::Pg(admin) => drop_db(admin, name).await,
            Store::My(admin) => db_mysql::drop_db(admin, name).await,
        }
    }

    /// Empties `posts` and inserts `rows` rows ([`seed`], `db_mysql::seed`).
    pub async fn seed(&self, schema: Schema, rows: u64) -> Result<(), String> {
        match self {
            Store::Pg(pool) => seed(pool, schema, rows).await,
            Store::My(pool) => db_mysql::seed(pool, schema, rows).await,
        }
    }

    /// MariaDB: ends the connections idle inside a transaction (`db_mysql::end_idle_transactions`); returns how
    /// many. PostgreSQL: none.
    pub async fn end_idle_transactions(&self) -> Result<u64, String> {
        match self {
            Store::Pg(_) => Ok(0),
            Store::My(pool) => db_mysql::end_idle_transactions(pool).await,
        }
    }

    /// The server's version.
    pub async fn version(&self) -> String {
        match self {
            Store::Pg(pool) => server_version(pool).await,
            Store::My(pool) => db_mysql::server_version(pool).await,
        }
    }

    /// Closes the pool.
    pub async fn close(&self) {
        match self {
            Store::Pg(pool) => pool.close().await,
            Store::My(pool) => pool.close().await,
        }
    }
}

/// A fresh PostgreSQL database `name` (dropped first if it exists), `synchronous_commit = off`; returns its URL.
pub async fn recreate(admin: &PgPool, base_url: &str, name: &str) -> Result<String, String> {
    drop_db(admin, name).await?;
    admin
        .execute(AssertSqlSafe(format!("CREATE DATABASE \"{name}\"")))
        .await
        .map_err(|e| format!("create {name}: {e}"))?;
    // Commits do not wait for the WAL flush: the write workloads measure the servers, not the latency of a
    // disk that the machine's other work shares. Same setting for every server.
    admin
        .execute(AssertSqlSafe(format!("ALTER DATABASE \"{name}\" SET synchronous_commit = off")))
        .await
        .map_err(|e| format!("configure {name}: {e}"))?;
    Ok(format!("{}/{name}", base_url.trim_end_matches('/')))
}

/// `DROP DATABASE IF EXISTS … WITH (FORCE)`.
pub async fn drop_db(admin: &PgPool, name: &str) -> Result<(), String> {
    admin
        .execute(AssertSqlSafe(format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)")))
        .await
        .map(|_| ())
        .map_err(|e| format!("drop {name}: {e}"))
}

/// A pool of 2 connections to the PostgreSQL database at `url`.
pub async fn connect(url: &str) -> Result<PgPool, String> {
    PgPoolOptions::new().max_connections(2).connect(url).await.map_err(|e| format!("connect {url}: {e}"))
}

/// Which schema a database has: the blog's (serial `id`, authors table) or aksara's (UUID `id`, `updated_at`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schema {
    /// The blog's.
    Blog,
    /// aksara's.
    Aksara,
}

/// The values of row `i` (a `generate_series` variable), identical for both schemas. About half the rows are
/// published, and about half contain an `a` in the title or the body, so the list workload's filter + search
/// match about a quarter of the table.
const ROW_VALUES: &str = "\
    'Post ' || i || ' on ' || (ARRAY['rust','axum','tokio','serde','sqlx','postgres','python','django'])[1 + i % 8], \
    'Notes number ' || i || ': ' || (ARRAY['fast','slow','typed','dynamic','tested','simple'])[1 + i % 6] || ' code', \
    i % 2 = 0, \
    ((i::bigint * 7919) % 10000)::int, \
    CASE WHEN i % 3 = 0 THEN NULL ELSE (i % 50) / 10.0 END, \
    1 + i % 5, \
    TIMESTAMPTZ '2025-01-01 00:00:00+00' + i * INTERVAL '1 minute'";

/// Empties `posts` and inserts `rows` rows (ids 1..=rows; as UUIDs `00000000-0000-0000-0000-<hex i>` for aksara),
/// then `VACUUM ANALYZE` so every database starts with the same statistics.
pub async fn seed(pool: &PgPool, schema: Schema, rows: u64) -> Result<(), String> {
    let err = |what: &str, e: sqlx::Error| format!("seed ({what}): {e}");
    match schema {
        Schema::Blog => {
            pool.execute("TRUNCATE posts RESTART IDENTITY").await.map_err(|e| err("truncate", e))?;
            pool.execute(
                "INSERT INTO authors (name, email) SELECT 'Author ' || i, 'author' || i || '@example.com' \
                 FROM generate_series(1, 5) AS i ON CONFLICT DO NOTHING",
            )
            .await
            .map_err(|e| err("authors", e))?;
            let sql = format!(
                "INSERT INTO posts (title, body, published, views, rating, author_id, created_at) \
                 SELECT {ROW_VALUES} FROM generate_series(1, {rows}) AS i"
            );
            pool.execute(AssertSqlSafe(sql)).await.map_err(|e| err("posts", e))?;
        }
        Schema::Aksara => {
            pool.execute("TRUNCATE posts").await.map_err(|e| err("truncate", e))?;
            let sql = format!(
                "INSERT INTO posts (title, body, published, views, rating, author_id, created_at, id, updated_at) \
                 SELECT {ROW_VALUES}, \
                 ('00000000-0000-0000-0000-' || lpad(to_hex(i), 12, '0'))::uuid, \
                 TIMESTAMPTZ '2025-01-01 00:00:00+00' + i * INTERVAL '1 minute' \
                 FROM generate_series(1, {rows}) AS i"
            );
            pool.execute(AssertSqlSafe(sql)).await.map_err(|e| err("posts", e))?;
        }
    }
    pool.execute("VACUUM ANALYZE posts").await.map_err(|e| err("vacuum", e))?;
    Ok(())
}

/// `SHOW server_version`.
pub async fn server_version(pool: &PgPool) -> String {
    sqlx::query_scalar::<_, String>("SHOW server_version").fetch_one(pool).await.unwrap_or_else(|e| e.to_string())
}
