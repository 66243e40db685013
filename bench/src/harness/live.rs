//! Starting one server under test: its fresh database (schema and seed), its process, the first answers.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use super::procs::Server;
use super::python::*;
use super::sanity::*;
use super::workload::*;
use super::{Options, Sanity, db};

/// A server under test, running, with its database.
pub(super) struct Live {
    pub(super) spec: Spec,
    pub(super) db_name: String,
    pub(super) pool: db::Store,
    pub(super) schema: db::Schema,
    pub(super) server: Server,
    pub(super) uuid: bool,
    pub(super) sanity: Sanity,
    pub(super) cursor_url: Option<String>,
}

#[allow(clippy::too_many_arguments)]
pub(super) async fn start_server(
    o: &Options,
    spec: &Spec,
    port: u16,
    exe: &Path,
    python: Option<&Python>,
    admin: &db::Store,
    client: &reqwest::Client,
    tmp: &Path,
) -> Result<Live, String> {
    let db_name = format!("vsbench_{}", spec.name.replace('-', "_"));
    let url = admin.recreate(o.db_url(), &db_name).await?;
    let schema = match spec.family {
        Family::Rust(_) => {
            blog::connect_and_migrate(&url).await.map_err(|e| format!("migrate: {e}"))?.close().await.ok();
            db::Schema::Blog
        }
        Family::Python { .. } => {
            let pool = db::connect(&url).await?;
            let py = python.ok_or("no Python")?;
            sqlx::raw_sql(sqlx::AssertSqlSafe(py.ddl.clone()))
                .execute(&pool)
                .await
                .map_err(|e| format!("aksara DDL: {e}"))?;
            pool.close().await;
            db::Schema::Aksara
        }
    };
    let pool = admin.open(&url).await?;
    pool.seed(schema, o.rows).await?;

    let log = tmp.join(format!("{}.log", spec.name));
    let command = match spec.family {
        Family::Rust(kind) => {
            let mut c = Command::new(exe);
            c.arg("serve")
                .arg(match kind {
                    crate::RustKind::Viewset => "viewset",
                    crate::RustKind::ViewsetNoLimits => "viewset-nolimits",
                    crate::RustKind::ViewsetThrottle => "viewset-throttle",
                    crate::RustKind::ViewsetThrottleRedis => "viewset-throttle-redis",
                    crate::RustKind::ViewsetOutbox => "viewset-outbox",
                    crate::RustKind::ViewsetNats => "viewset-nats",
                    crate::RustKind::SeaOrm => "seaorm",
                    crate::RustKind::Sqlx => "sqlx",
                    crate::RustKind::SqlxMysql => "sqlx-mysql",
                })
                .arg("--db")
                .arg(&url)
                .arg("--bind")
                .arg(format!("127.0.0.1:{port}"));
            c
        }
        Family::Python { workers } => {
            let py = python.ok_or("no Python")?;
            let mut c = Command::new(&py.python);
            c.args(["-m", "uvicorn", "benchapp:app", "--app-dir"])
                .arg(&py.app_dir)
                .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--workers", &workers.to_string()])
                .args(["--no-access-log", "--log-level", "warning"])
                .env("DATABASE_URL", url.replace("postgres://", "postgresql://"))
                .env("AKSARA_TASKS_ENABLED", "false");
            c
        }
    };
    let mut server = Server::start(command, port, &log)?;
    if let Err(e) = server.wait_ready(client, &format!("{LIST_PATH}?limit=1"), Duration::from_secs(90)).await {
        server.stop();
        pool.close().await;
        let _ = admin.drop_db(&db_name).await;
        return Err(e);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let uuid = matches!(spec.family, Family::Python { .. });
    let mut sanity = Sanity { server: spec.name.into(), ..Default::default() };
    check_basics(client, &server.base_url(), uuid, &mut sanity).await;
    Ok(Live { spec: spec.clone(), db_name, pool, schema, server, uuid, sanity, cursor_url: None })
}
