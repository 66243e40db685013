//! Writes of many records in one transaction: a bulk create as one multi-row `INSERT … RETURNING <every column>` per
//! chunk of rows that set the same columns, a bulk delete as one `DELETE … WHERE <lookup> IN (…)` per chunk of
//! keys, and the locked read of the records a bulk delete names. The model's `ActiveModelBehavior` hooks run once
//! per row, as the single writes run them. A chunk is as many rows as the backend binds parameters for
//! ([`rows_per_statement`]); with the default `max_bulk` (1,000) that is one statement on both backends unless a
//! row has more than 32 columns (SQLite).

use sea_orm::{
    ActiveModelBehavior, ActiveModelTrait, ActiveValue, ColumnTrait, DatabaseTransaction, DbBackend, DbErr,
    EntityTrait, IntoActiveModel, Iterable, QueryFilter, QueryTrait, Select, Value,
};

use super::run::{On, execute, rows};
use super::write::{every_column, returning_on_mariadb};
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::{ApiError, db_err};

type Active<V> = <<V as ViewSet>::Entity as EntityTrait>::ActiveModel;

/// The most parameters SQLite binds in one statement (`SQLITE_MAX_VARIABLE_NUMBER`, 32,766 since SQLite 3.32).
pub const SQLITE_MAX_PARAMETERS: usize = 32_766;

/// The most parameters PostgreSQL binds in one statement (the wire protocol counts them in 16 bits); MariaDB's
/// prepared statements have the same bound.
pub const POSTGRES_MAX_PARAMETERS: usize = 65_535;

/// How many rows of `columns` bound values one statement on `backend` takes (at least one).
///
/// ```
/// use sea_orm::DbBackend;
/// use viewset_core::store::rows_per_statement;
/// assert_eq!(rows_per_statement(DbBackend::Sqlite, 6), 5_461);
/// assert_eq!(rows_per_statement(DbBackend::Postgres, 6), 10_922);
/// assert_eq!(rows_per_statement(DbBackend::Sqlite, 40_000), 1);
/// ```
pub fn rows_per_statement(backend: DbBackend, columns: usize) -> usize {
    let limit = match backend {
        DbBackend::Sqlite => SQLITE_MAX_PARAMETERS,
        _ => POSTGRES_MAX_PARAMETERS,
    };
    (limit / columns.max(1)).max(1)
}

/// Inserts `rows_to_insert` in `txn` and returns the stored records in their order: `before_save` of each, one
/// `INSERT … RETURNING` per chunk of rows setting the same columns (a column one row leaves to its database
/// default is not written as `NULL` for another), `after_save` of each. The returned rows are matched to the
/// `VALUES` by position: PostgreSQL and SQLite return a multi-row `VALUES` insert's rows in that order (neither
/// documents it as a promise; `tests/bulk_writes.rs` checks request order on both), and so does MariaDB (≥ 10.5,
/// which writes `INSERT … RETURNING`). A database without it (MySQL) inserts row by row, each read back by key.
pub(crate) async fn insert_many<V: ViewSet>(
    txn: &DatabaseTransaction,
    rows_to_insert: Vec<Active<V>>,
) -> Result<Vec<ModelOf<V>>, ApiError> {
    let on = On::Txn(txn);
    let mut stored = Vec::with_capacity(rows_to_insert.len());
    if !super::Plan::of::<V>(on.backend()).insert_returning {
        for active in rows_to_insert {
            let model = super::write::insert(on, active, V::decode_rows).await;
            stored.push(model.map_err(db_err::<V::Entity>)?);
        }
        return Ok(stored);
    }
    let mut saved = Vec::with_capacity(rows_to_insert.len());
    for active in rows_to_insert {
        saved.push(
            Box::pin(Active::<V>::before_save(active, &On::Txn(txn).executor(), true))
                .await
                .map_err(db_err::<V::Entity>)?,
        );
    }
    let mut slots: Vec<Option<ModelOf<V>>> = (0..saved.len()).map(|_| None).collect();
    for (set, indices) in by_columns::<V>(&saved) {
        let columns = set.iter().filter(|written| **written).count();
        for chunk in indices.chunks(rows_per_statement(on.backend(), columns)) {
            let actives = chunk.iter().map(|&i| saved[i].clone());
            let mut query = V::Entity::insert_many(actives).into_query();
            query.returning(every_column::<V::Entity>(on.backend()));
            let statement = returning_on_mariadb::<V::Entity>(on.backend().build(&query));
            let found = rows(on, statement, chunk.len(), "insert").await;
            let found = found.and_then(|found| V::decode_rows(&found)).map_err(db_err::<V::Entity>)?;
            if found.len() != chunk.len() {
                return Err(ApiError::Database(DbErr::RecordNotInserted));
            }
            for (&i, model) in chunk.iter().zip(found) {
                slots[i] = Some(model);
            }
        }
    }
    for model in slots.into_iter().flatten() {
        stored.push(
            Box::pin(Active::<V>::after_save(model, &On::Txn(txn).executor(), true))
                .await
                .map_err(db_err::<V::Entity>)?,
        );
    }
    Ok(stored)
}

/// The rows of `saved` grouped by the columns they write (a flag per column of the entity), each group's rows in
/// order; the groups in the order of their first row.
fn by_columns<V: ViewSet>(saved: &[Active<V>]) -> Vec<(Vec<bool>, Vec<usize>)> {
    let mut groups: Vec<(Vec<bool>, Vec<usize>)> = Vec::new();
    for (i, active) in saved.iter().enumerate() {
        let set: Vec<bool> = <V::Entity as EntityTrait>::Column::iter()
            .map(|column| !matches!(active.get(column), ActiveValue::NotSet))
            .collect();
        match groups.iter_mut().find(|(columns, _)| *columns == set) {
            Some((_, indices)) => indices.push(i),
            None => groups.push((set, vec![i])),
        }
    }
    groups
}

/// Every row of `select` in `txn` (role `role`), decoded by the ViewSet; one statement per call.
pub(crate) async fn all_in<V: ViewSet>(
    txn: &DatabaseTransaction,
    select: Select<V::Entity>,
    capacity: usize,
    role: &'static str,
) -> Result<Vec<ModelOf<V>>, ApiError> {
    let on = On::Txn(txn);
    let found = rows(on, select.build(on.backend()), capacity, role).await;
    found.and_then(|found| V::decode_rows(&found)).map_err(db_err::<V::Entity>)
}

/// Deletes `models` (read in `txn`, whose lookup values are `keys`) as the single delete does each — `before_delete`,
/// the `DELETE`, `after_delete` — with one `DELETE … WHERE <lookup> IN (…)` per chunk of keys. A foreign-key failure
/// means other records still point at one of them (400 `foreign_key_violation`, as the single delete answers).
pub(crate) async fn delete_many<V: ViewSet>(
    txn: &DatabaseTransaction,
    models: Vec<ModelOf<V>>,
    keys: Vec<Value>,
) -> Result<(), ApiError> {
    let refused = |e: DbErr| match db_err::<V::Entity>(e) {
        ApiError::ForeignKeyViolation => ApiError::StillReferenced,
        other => other,
    };
    let column = crate::types::columns::column::<V::Entity>(V::CONFIG.lookup_field).ok_or(ApiError::NotFound)?;
    let mut deleting = Vec::with_capacity(models.len());
    for model in models {
        deleting.push(
            Box::pin(Active::<V>::before_delete(model.into_active_model(), &On::Txn(txn).executor()))
                .await
                .map_err(refused)?,
        );
    }
    let on = On::Txn(txn);
    for chunk in keys.chunks(rows_per_statement(on.backend(), 1)) {
        let query = V::Entity::delete_many().filter(column.is_in(chunk.iter().cloned())).into_query();
        execute(on, on.backend().build(&query), "delete").await.map_err(refused)?;
    }
    for active in deleting {
        Box::pin(Active::<V>::after_delete(active, &On::Txn(txn).executor())).await.map_err(refused)?;
    }
    Ok(())
}
