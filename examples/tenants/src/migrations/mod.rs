//! The tenants example's migrations: projects, tasks and notes; the framework's idempotency table; the projects'
//! unique `code`.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

/// Every migration, in order; the last is the framework's table of `Idempotency-Key` answers (without it, a
/// POST or PATCH with a key could not be answered).
pub struct Migrator;

impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![Box::new(CreateTables), Box::new(viewset_core::idempotency::Migration), Box::new(AddProjectCode)]
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

/// Adds the projects' optional, unique `code` (the upsert key), so existing rows and requests without it keep
/// working.
pub struct AddProjectCode;

impl MigrationName for AddProjectCode {
    fn name(&self) -> &str {
        "m0002_project_code"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for AddProjectCode {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(Table::alter().table("projects").add_column(string_len_null("code", 40)).to_owned())
            .await?;
        let index = Index::create().name("idx_projects_code").table("projects").col("code").unique().to_owned();
        manager.create_index(index).await
    }
}
