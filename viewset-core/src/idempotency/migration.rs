//! The table of idempotency records, as a sea-orm-migration [`MigrationTrait`] the application adds to its own
//! `Migrator` (the framework never applies migrations by itself).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, blob_null, integer_null, string_len, text_null};

use crate::store::idempotency::{Column, TABLE};

/// Creates `viewset_idempotency`: one row per (principal, key), the request's fingerprint, the answer once it is
/// known (`status` is `NULL` while the first request runs), and when the row expires (Unix milliseconds). Its
/// primary key (principal, key) is what makes a claim conflict.
///
/// ```
/// use sea_orm_migration::prelude::*;
///
/// struct Migrator;
///
/// impl MigratorTrait for Migrator {
///     fn migrations() -> Vec<Box<dyn MigrationTrait>> {
///         vec![Box::new(viewset_core::idempotency::Migration)]
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
/// assert_eq!(viewset_core::idempotency::Migration.name(), viewset_core::idempotency::MIGRATION_NAME);
/// ```
pub const MIGRATION_NAME: &str = "m20261128_000001_viewset_idempotency";

/// The source text of [`Migration`] (this file), for a migration graph's checksum over the migration files.
///
/// ```
/// assert!(viewset_core::idempotency::MIGRATION_SOURCE.contains("viewset_idempotency"));
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
                    .col(string_len(Column::Principal.name(), 512))
                    .col(string_len(Column::Key.name(), 255))
                    .col(string_len(Column::Fingerprint.name(), 64))
                    .col(integer_null(Column::Status.name()))
                    .col(text_null(Column::Headers.name()))
                    .col(blob_null(Column::Body.name()))
                    .col(big_integer(Column::ExpiresAt.name()))
                    .primary_key(Index::create().col(Column::Principal.name()).col(Column::Key.name()))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("viewset_idempotency_expires_at")
                    .table(TABLE)
                    .col(Column::ExpiresAt.name())
                    .if_not_exists()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table(TABLE).if_exists().to_owned()).await
    }
}
