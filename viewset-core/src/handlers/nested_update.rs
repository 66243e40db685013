//! Nested writes in a PATCH (`writable_relations`, [`super::nested`]): `{"tags": {"add": [...]}}`,
//! `{"tags": {"remove": [...]}}` and `{"tags": {"set": [...]}}` for a many-to-many relation (links added to existing
//! records the caller may see or to new ones, links removed, or the links replaced: those to records the caller may
//! not see are kept), `{"posts": {"add": [...]}}` for a to-many relation (new children, their key filled in). A
//! record is never deleted: `remove` and `set` change links only, and a to-many relation only adds.

use sea_orm::sea_query::{Expr, ExprTrait, Query};
use sea_orm::{ConnectionTrait, DatabaseTransaction};
use serde_json::{Map, Value as Json};

use super::nested::{Nest, field_of, key_value, link_rows, located, related_key, write};
use super::nested_links::{Kind, Link, at, joined, links};
use crate::error::ApiError;
use crate::request::nested::Writer;
use crate::store::run::{On, execute, rows};

/// Applies the relation changes of a PATCH body (`relations`, checked by `measure_update`) to the record `parent`
/// (as JSON) written by `writer`, in the nested write `nest`. Whether any link or child changed.
pub(crate) async fn relink(
    nest: &mut Nest<'_>,
    writer: &'static Writer,
    parent: &Json,
    relations: Map<String, Json>,
) -> Result<bool, ApiError> {
    let mut changed = false;
    for link in links(writer, &relations, nest.embedders, &[])? {
        let key = field_of(writer, parent, &link.from);
        let Some(Json::Object(operations)) = relations.get(link.name) else { continue };
        for (operation, items) in operations {
            let here = joined(&[link.name.to_string()], operation);
            let Json::Array(items) = items else { continue };
            changed |= match (link.kind, operation.as_str()) {
                (Kind::ToMany, "add") => add_children(nest, &link, &key, items.clone(), &here).await?,
                (Kind::ManyToMany, "add") => add_links(nest, &link, &key, items.clone(), &here).await?,
                (Kind::ManyToMany, "remove") => remove_links(nest, &link, &key, items, &here).await?,
                (Kind::ManyToMany, "set") => set_links(nest, &link, &key, items.clone(), &here).await?,
                _ => false,
            };
        }
    }
    Ok(changed)
}

/// New children of `parent`, each created through the related ViewSet with its key filled in.
async fn add_children(
    nest: &mut Nest<'_>,
    link: &Link,
    parent: &Json,
    items: Vec<Json>,
    here: &[String],
) -> Result<bool, ApiError> {
    let field = (link.target.field)(&link.to).unwrap_or_default();
    for (index, item) in items.into_iter().enumerate() {
        let Json::Object(mut child) = item else { continue };
        let at_child = joined(here, index);
        if child.remove(field).is_some_and(|sent| sent != *parent) {
            let msg = format!("`{field}` is filled in with the key of the record this one is nested in");
            return Err(at(&joined(&at_child, field), msg, "nested_conflict"));
        }
        write(nest, link.target, child, vec![(link.to.clone(), parent.clone())], at_child).await?;
    }
    Ok(true)
}

/// The keys `items` stand for (created or referenced records the caller may see), each once.
async fn keys_of(nest: &mut Nest<'_>, link: &Link, items: Vec<Json>, here: &[String]) -> Result<Vec<Json>, ApiError> {
    let mut keys: Vec<Json> = Vec::new();
    for (index, item) in items.into_iter().enumerate() {
        let at_item = joined(here, index);
        let key = related_key(nest, link, item, at_item.clone()).await?;
        if keys.contains(&key) {
            return Err(at(&at_item, format!("{key} is named twice"), "duplicate"));
        }
        keys.push(key);
    }
    Ok(keys)
}

/// Links `parent` to the records `items` stand for; one already linked stays as it is.
async fn add_links(
    nest: &mut Nest<'_>,
    link: &Link,
    parent: &Json,
    items: Vec<Json>,
    here: &[String],
) -> Result<bool, ApiError> {
    let keys = keys_of(nest, link, items, here).await?;
    let linked = linked(nest.writing.txn(), link, parent).await?;
    let mut changed = false;
    for (index, key) in keys.iter().enumerate() {
        if !linked.contains(key) {
            link_rows(nest.writing.txn(), link, parent, key).await.map_err(|e| located(e, &joined(here, index)))?;
            changed = true;
        }
    }
    Ok(changed)
}

/// Unlinks `parent` from the records `items` name (each one the caller may see; not linked: nothing to do).
async fn remove_links(
    nest: &mut Nest<'_>,
    link: &Link,
    parent: &Json,
    items: &[Json],
    here: &[String],
) -> Result<bool, ApiError> {
    let keys = keys_of(nest, link, items.to_vec(), here).await?;
    let mut changed = false;
    for key in &keys {
        changed |= unlink(nest.writing.txn(), link, parent, key).await? > 0;
    }
    Ok(changed)
}

/// Links `parent` to exactly the records `items` stand for, among those the caller may see: the others linked are
/// unlinked, those it may not see stay linked.
async fn set_links(
    nest: &mut Nest<'_>,
    link: &Link,
    parent: &Json,
    items: Vec<Json>,
    here: &[String],
) -> Result<bool, ApiError> {
    let keys = keys_of(nest, link, items, here).await?;
    let linked = linked(nest.writing.txn(), link, parent).await?;
    let mut changed = false;
    for key in linked.iter().filter(|key| !keys.contains(key)) {
        let visible = (link.target.reference)(nest.request, &link.to, key, nest.writing.txn()).await?;
        if visible.is_some() {
            changed |= unlink(nest.writing.txn(), link, parent, key).await? > 0;
        }
    }
    for (index, key) in keys.iter().enumerate() {
        if !linked.contains(key) {
            link_rows(nest.writing.txn(), link, parent, key).await.map_err(|e| located(e, &joined(here, index)))?;
            changed = true;
        }
    }
    Ok(changed)
}

/// The keys `parent` is linked to through `link`'s join table.
async fn linked(txn: &DatabaseTransaction, link: &Link, parent: &Json) -> Result<Vec<Json>, ApiError> {
    let Some(junction) = &link.junction else { return Ok(Vec::new()) };
    let mut select = Query::select();
    select
        .column(junction.child.clone())
        .from(junction.table.clone())
        .and_where(Expr::col(junction.parent.clone()).eq(key_value(parent)));
    let statement = txn.get_database_backend().build(&select);
    let table = (link.target.table)();
    let found = rows(On::Txn(txn), statement, 16, "nested").await.map_err(|e| ApiError::from_db(e, table))?;
    let child = junction.child.to_string();
    Ok(found.iter().map(|row| key_of(row, &child)).collect())
}

/// A key column of a row, as the record's key serializes (`1`, `"a"`).
fn key_of(row: &sea_orm::QueryResult, column: &str) -> Json {
    // Integer columns decode as their own width (PostgreSQL's `integer` is no `i64`).
    if let Ok(n) = row.try_get::<i64>("", column) {
        return Json::from(n);
    }
    if let Ok(n) = row.try_get::<i32>("", column) {
        return Json::from(n);
    }
    row.try_get::<String>("", column).map(Json::String).unwrap_or_default()
}

/// Deletes the join table row linking `parent` to `child`; how many rows it deleted.
async fn unlink(txn: &DatabaseTransaction, link: &Link, parent: &Json, child: &Json) -> Result<u64, ApiError> {
    let Some(junction) = &link.junction else { return Ok(0) };
    let mut delete = Query::delete();
    delete
        .from_table(junction.table.clone())
        .and_where(Expr::col(junction.parent.clone()).eq(key_value(parent)))
        .and_where(Expr::col(junction.child.clone()).eq(key_value(child)));
    let statement = txn.get_database_backend().build(&delete);
    let table = (link.target.table)();
    execute(On::Txn(txn), statement, "nested").await.map_err(|e| ApiError::from_db(e, table))
}
