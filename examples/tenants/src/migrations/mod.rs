//! The tenants example's migration: projects, tasks and notes.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

/// Every migration, in order; the last is the framework's table of `Idempotency-Key` answers (without it, a
/// POST or PATCH with a key could not be answered).
pub struct Migrator;

impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![Box::new(CreateTables), Box::new(viewset_core::idempotency::Migration)]
    }
}

/// Creates `projects`, `tasks` and `notes`.
#[derive(DeriveMigrationName)]
pub struct CreateTables;

#[async_trait::async_trait]
impl MigrationTrait for CreateTables {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("projects")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string("tenant_id"))
                    .col(string("owner").default(""))
                    .col(string_len("name", 100))
                    .col(boolean("archived").default(false))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("tasks")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(integer("project_id"))
                    .col(string("title"))
                    .foreign_key(
                        ForeignKey::create().name("fk_tasks_project").from("tasks", "project_id").to("projects", "id"),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("notes")
                    .if_not_exists()
                    .col(pk_auto("id"))
                    .col(string("owner"))
                    .col(string("text"))
                    .to_owned(),
            )
            .await
    }
}
