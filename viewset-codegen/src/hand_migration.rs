//! `new_migration`: an empty migration in its own file, registered in the `Migrator`'s list, for a change the
//! generator does not write (an index, a data fix, a renamed column).

use super::errors::{CodegenError, Errors, identifier, loc};
use super::layout::{self, MIGRATION};
use super::operations::NewMigration;
use super::workspace::Workspace;

/// Validates `op` and writes the migration with its registration.
pub(crate) fn apply(ws: &mut Workspace, op: &NewMigration, notes: &mut Vec<String>) -> Result<(), CodegenError> {
    let mut errors = Errors::default();
    if identifier(&op.name, false, &loc!["name"], &mut errors) && op.name.len() > 40 {
        errors.push(&loc!["name"], "too_long", "a migration's name is at most 40 bytes (it ends its file's name)");
    }
    if !errors.is_empty() {
        return Err(CodegenError::Invalid(errors.list));
    }
    let migration = ws.require(MIGRATION, "registering the migration")?;
    let count = layout::migration_count(&migration)?;
    let module = layout::migration_module(ws, count, &op.name)?;
    let path = format!("src/migration/{module}.rs");
    ws.write(&path, text(&op.name))?;
    ws.write(MIGRATION, layout::add_migration(&migration, &module)?)?;
    notes.push(format!(
        "{path}: an empty migration to fill in (`up`, and `down` to undo it); `Migrator::up` applies it at the next \
         start, once, under the name `{module}`"
    ));
    Ok(())
}

/// The migration's file: `up` and `down` doing nothing yet, with an example of each kind of statement.
fn text(name: &str) -> String {
    format!(
        "//! `{name}` (written by the code generator, `new_migration`): fill in `up`, and `down` to undo it.

use sea_orm_migration::prelude::*;

/// `{name}`.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {{
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {{
        // For example: an index, or any SQL.
        // manager.create_index(Index::create().name(\"idx_items_name\").table(\"items\").col(\"name\").to_owned()).await?;
        // manager.get_connection().execute_unprepared(\"UPDATE items SET name = trim(name)\").await?;
        let _ = manager;
        Ok(())
    }}

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {{
        let _ = manager;
        Ok(())
    }}
}}
"
    )
}
