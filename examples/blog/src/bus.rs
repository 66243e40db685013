//! The blog's event bus, chosen by `SERVICE_EVENT_BUS`: `memory` (this process only; the default on SQLite and
//! MariaDB), `postgres` (the durable outbox in the database, shared by every instance; the default on
//! PostgreSQL), or `nats://host:port` (NATS JetStream, relayed from the outbox table; any database): the stream is
//! `SERVICE_EVENT_STREAM` (default `blog`), created if missing.

use sea_orm::{DatabaseConnection, DbBackend, DbErr};
use viewset_core::events::EventBus;

/// The environment variable that chooses the bus.
pub const VAR: &str = "SERVICE_EVENT_BUS";
/// The environment variable that names the JetStream stream of a `nats://` bus.
pub const STREAM_VAR: &str = "SERVICE_EVENT_STREAM";

/// The bus `SERVICE_EVENT_BUS` asks for on `db` (see the module).
pub async fn from_env(db: &DatabaseConnection) -> Result<EventBus, DbErr> {
    choose(std::env::var(VAR).ok().as_deref(), db).await
}

/// The bus `setting` (a value of `SERVICE_EVENT_BUS`, or `None`) asks for on `db`; an unknown value, or
/// `postgres` without PostgreSQL, is an error that names the choices.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// assert!(!blog::bus::choose(None, &db).await?.is_durable());
/// assert!(blog::bus::choose(Some("postgres"), &db).await.is_err());
/// # Ok(()) }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
/// ```
pub async fn choose(setting: Option<&str>, db: &DatabaseConnection) -> Result<EventBus, DbErr> {
    let postgres = db.get_database_backend() == DbBackend::Postgres;
    match setting.map(str::trim) {
        None | Some("") if postgres => outbox(db).await,
        None | Some("") | Some("memory") => Ok(EventBus::in_process()),
        Some("postgres") if postgres => outbox(db).await,
        Some("postgres") => Err(DbErr::Custom(format!("{VAR}=postgres needs a PostgreSQL DATABASE_URL"))),
        Some(url) if url.starts_with("nats://") => {
            let stream = std::env::var(STREAM_VAR).unwrap_or_else(|_| "blog".to_owned());
            let bus = EventBus::nats(db.clone(), url, &stream).await;
            bus.map_err(|e| DbErr::Custom(format!("{VAR}={url}: NATS JetStream stream {stream:?}: {e}")))
        }
        Some(other) => Err(DbErr::Custom(format!("{VAR}={other:?} is none of: memory, postgres, nats://host:port"))),
    }
}

/// The outbox bus on `db`'s pool.
async fn outbox(db: &DatabaseConnection) -> Result<EventBus, DbErr> {
    let pool = db.get_postgres_connection_pool().clone();
    EventBus::outbox(pool).await.map_err(|e| DbErr::Custom(format!("event outbox: {e}")))
}
