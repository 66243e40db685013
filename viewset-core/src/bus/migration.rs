//! The outbox table of durable events, as a sea-orm-migration [`MigrationTrait`] the application adds to its own
//! `Migrator` (the framework never applies migrations by itself). Only [`crate::events::EventBus::outbox`] (PostgreSQL)
//! writes to it; on the other backends the table is created and stays empty.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer_null, big_pk_auto, text, timestamp_with_time_zone};

/// The outbox table.
pub(crate) const TABLE: &str = "viewset_events";
/// Its columns: insertion order, the cluster-wide event id (`NULL` until the sequencer numbers the committed row),
/// when it was written, and the event as JSON.
pub(crate) const ID: &str = "id";
pub(crate) const SEQ: &str = "seq";
pub(crate) const CREATED_AT: &str = "created_at";
pub(crate) const PAYLOAD: &str = "payload";

/// The statement that writes `rows` events (each a placeholder of `backend` for the event as JSON), with
/// `RETURNING id, payload` when `returning` (the row ids a relay to NATS publishes the events under). It sends no
/// `NOTIFY`: a notifying transaction takes a lock for the whole database at its commit, so on the outbox writers
/// wake their own process's reader instead, and the sequencer notifies the others once per round.
pub(crate) fn record_sql(rows: usize, backend: sea_orm::DbBackend, returning: bool) -> String {
    let values: Vec<String> = (1..=rows)
        .map(|n| match backend {
            sea_orm::DbBackend::Postgres => format!("(${n})"),
            _ => "(?)".to_owned(),
        })
        .collect();
    let returning = if returning { format!(" RETURNING {ID}, {PAYLOAD}") } else { String::new() };
    format!("INSERT INTO {TABLE} ({PAYLOAD}) VALUES {}{returning}", values.join(", "))
}

/// An event written to the table and not yet relayed: its row id and its payload.
pub(crate) type Recorded = (i64, String);

/// The [`Recorded`] events in `rows` (of a `SELECT` or `RETURNING` of [`ID`] and [`PAYLOAD`]).
pub(crate) fn recorded(rows: &[sea_orm::QueryResult]) -> Result<Vec<Recorded>, sea_orm::DbErr> {
    rows.iter().map(|row| Ok((row.try_get("", ID)?, row.try_get("", PAYLOAD)?))).collect()
}

/// Creates `viewset_events`: one row per event, inserted in the write's own transaction; `seq`, unique, is given
/// to committed rows in the order they are found, and is the `id:` of the stream's frames on every instance.
///
/// ```
/// use sea_orm_migration::prelude::*;
///
/// struct Migrator;
///
/// impl MigratorTrait for Migrator {
///     fn migrations() -> Vec<Box<dyn MigrationTrait>> {
///         vec![Box::new(viewset_core::events::Migration)]
///     }
/// }
///
/// # async fn run() -> Result<(), DbErr> {
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// Migrator::up(&db, None).await?;
/// # Ok(()) }
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
/// ```
pub struct Migration;

/// The name sea-orm-migration records for [`Migration`].
///
/// ```
/// use sea_orm_migration::MigrationName;
/// assert_eq!(viewset_core::events::Migration.name(), viewset_core::events::MIGRATION_NAME);
/// ```
pub const MIGRATION_NAME: &str = "m20261128_000002_viewset_events";

/// The source text of [`Migration`] (this file), for a migration graph's checksum over the migration files.
///
/// ```
/// assert!(viewset_core::events::MIGRATION_SOURCE.contains("viewset_events"));
/// ```
pub const MIGRATION_SOURCE: &str = include_str!("migration.rs");

impl MigrationName for Migration {
    fn name(&self) -> &str {
        MIGRATION_NAME
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(TABLE)
                    .if_not_exists()
                    .col(big_pk_auto(ID))
                    .col(big_integer_null(SEQ))
                    .col(timestamp_with_time_zone(CREATED_AT).default(Expr::current_timestamp()))
                    .col(text(PAYLOAD))
                    .to_owned(),
            )
            .await?;
        // Unique: one event per id. It also finds the rows still to number (`seq IS NULL`) and the newest id.
        manager
            .create_index(
                Index::create().name("viewset_events_seq").table(TABLE).col(SEQ).unique().if_not_exists().to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table(TABLE).if_exists().to_owned()).await
    }
}
