//! The writes: a create as one `INSERT … RETURNING *`, a PATCH as one `UPDATE … WHERE <lookup> AND <required row
//! policies> RETURNING *` (when the plan allows it), a record's update and delete with the model's
//! `ActiveModelBehavior` hooks, and the transaction of a conditional write. Each runs its statements through the
//! statement hook, as `ActiveModelTrait::insert`, `update` and `delete` would run them.

use sea_orm::sea_query::{FromValueTuple, ValueTuple};
use sea_orm::{
    ActiveModelBehavior, ActiveModelTrait, ColumnTrait, Condition, DatabaseConnection, DatabaseTransaction, DbBackend,
    DbErr, EntityTrait, IntoActiveModel, Iterable, PrimaryKeyTrait, QueryFilter, QueryResult, QuerySelect, QueryTrait,
    Select, SqliteTransactionMode, Statement, TransactionOptions, TransactionTrait, Value,
};

use super::run::{Decode, On, execute, insert_id, one_decoded, row};
use super::statements::lookup_condition;
use crate::boxed::boxed;
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::{ApiError, db_err};

type Active<V> = <<V as ViewSet>::Entity as EntityTrait>::ActiveModel;

/// Inserts `active` as `ActiveModelTrait::insert` does — `before_save`, one `INSERT … RETURNING <every column>`,
/// `after_save` — with the statement built once per set of columns and run through the store (MariaDB too, whose
/// `INSERT … RETURNING` [`crate::store::Plan`] knows of). A database without it (MySQL) inserts, then reads the row
/// by its key (`insert`).
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// # #[derive(Clone, Debug, PartialEq, DeriveEntityModel)] #[sea_orm(table_name = "posts")]
/// # pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// # #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// # impl ActiveModelBehavior for ActiveModel {} }
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::{ActiveValue::Set, ConnectionTrait};
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// db.execute_unprepared("CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT NOT NULL)").await?;
/// let active = post::ActiveModel { title: Set("hello".into()), ..Default::default() };
/// let stored = viewset_core::store::insert_returning(&db, active).await?;
/// assert_eq!((stored.id, stored.title.as_str()), (1, "hello"));
/// # Ok(()) }
/// ```
pub async fn insert_returning<A>(db: &DatabaseConnection, active: A) -> Result<<A::Entity as EntityTrait>::Model, DbErr>
where
    A: ActiveModelTrait + ActiveModelBehavior + Send,
    <A::Entity as EntityTrait>::Model: IntoActiveModel<A>,
{
    insert(On::Pool(db), active, crate::schema::rows::decode_by_name).await
}

/// [`insert_returning`] with the stored row decoded by `decode` (a ViewSet's [`ViewSet::decode_rows`]). Where the
/// database has no `INSERT … RETURNING` (MySQL, MariaDB before 10.5) it inserts as `ActiveModelTrait::insert` does
/// there: the `INSERT`, then a read of the row by its key (the key `active` sets, else `LAST_INSERT_ID()`), both
/// run through the store, so their values are bound as the backend reads them ([`super::run::portable`]).
pub(crate) async fn insert<A>(
    on: On<'_>,
    active: A,
    decode: Decode<<A::Entity as EntityTrait>::Model>,
) -> Result<<A::Entity as EntityTrait>::Model, DbErr>
where
    A: ActiveModelTrait + ActiveModelBehavior + Send,
    <A::Entity as EntityTrait>::Model: IntoActiveModel<A>,
{
    let active = Box::pin(A::before_save(active, &on.executor(), true)).await?;
    let backend = on.backend();
    let inserting = if super::plan::inserts_returning(backend) {
        Inserting::Returning(super::statements::insert(backend, &active, |_| {
            let mut query = <A::Entity as EntityTrait>::insert(active.clone()).into_query();
            query.returning(every_column::<A::Entity>(backend));
            Ok::<_, DbErr>(returning_on_mariadb::<A::Entity>(backend.build(&query)))
        })?)
    } else {
        let read = active.get_primary_key_value().map(|key| by_key::<A::Entity>(key).limit(1).build(backend));
        let insert = backend.build(&<A::Entity as EntityTrait>::insert(active).into_query());
        Inserting::ThenRead { insert, read, read_by_id: read_by_id::<A::Entity> }
    };
    let stored = decoded(inserted_row(on, inserting).await?, decode)?;
    Box::pin(A::after_save(stored, &on.executor(), true)).await
}

/// How a row is inserted: one `INSERT … RETURNING`, or the `INSERT`, then `read` (the row by the key the insert
/// set) or the read of the row by `LAST_INSERT_ID()` that `read_by_id` builds.
enum Inserting {
    Returning(Statement),
    ThenRead { insert: Statement, read: Option<Statement>, read_by_id: fn(u64, DbBackend) -> Result<Statement, DbErr> },
}

/// The stored row of an insert, as [`Inserting`] says: one function for every entity.
async fn inserted_row(on: On<'_>, inserting: Inserting) -> Result<Option<QueryResult>, DbErr> {
    let (insert, read, read_by_id) = match inserting {
        Inserting::Returning(statement) => return row(on, statement, "insert").await,
        Inserting::ThenRead { insert, read, read_by_id } => (insert, read, read_by_id),
    };
    let inserted_id = insert_id(on, insert, "insert").await?;
    let read = match read {
        Some(read) => read,
        None => read_by_id(inserted_id, on.backend())?,
    };
    row(on, read, "insert").await
}

/// The read of the row of `E` whose (integer) primary key is `id`.
fn read_by_id<E: EntityTrait>(id: u64, backend: DbBackend) -> Result<Statement, DbErr> {
    type Key<E> = <<E as EntityTrait>::PrimaryKey as PrimaryKeyTrait>::ValueType;
    let key = sea_orm::sea_query::IntoValueTuple::into_value_tuple(<Key<E> as sea_orm::TryFromU64>::try_from_u64(id)?);
    Ok(by_key::<E>(key).limit(1).build(backend))
}

/// The inserted `row` decoded by `decode`.
fn decoded<M>(row: Option<QueryResult>, decode: Decode<M>) -> Result<M, DbErr> {
    let missing = || DbErr::RecordNotFound("Failed to find inserted item".into());
    decode(std::slice::from_ref(&row.ok_or_else(missing)?))?.pop().ok_or_else(missing)
}

/// Writes the set columns of `active` to the record of `V` whose lookup field is `value`, within
/// `required` (the caller's required row policies), in one `UPDATE … RETURNING`; `None` when no row matched. Only
/// where [`super::Plan::update_in_one_statement`] holds. The statement is rendered when this is called.
pub(crate) fn update_where<'a, V: ViewSet>(
    on: On<'a>,
    active: Active<V>,
    value: Value,
    required: Option<Condition>,
) -> impl Future<Output = Result<Option<ModelOf<V>>, ApiError>> + Send + 'a {
    let backend = on.backend();
    // sea-orm's `exec_with_returning` statement.
    let build = |active: Active<V>, value: Value, required: Option<Condition>| -> Result<Statement, ApiError> {
        let mut update = V::Entity::update_many().set(active).filter(lookup_condition::<V>(value)?);
        if let Some(required) = required {
            update = update.filter(required);
        }
        let mut query = update.into_query();
        query.returning(every_column::<V::Entity>(backend));
        Ok(backend.build(&query))
    };
    let statement = match required {
        // The lookup's value is the last one the cached statement binds.
        None => super::statements::update::<V, _, _>(backend, &active, value, |values| {
            build(active.clone(), values.last().cloned().unwrap_or(Value::Int(None)), None)
        }),
        Some(required) => build(active, value, Some(required)),
    };
    async move {
        let written = one_decoded(on, statement?, V::decode_rows, "update").await;
        written.map_err(db_err::<V::Entity>)
    }
}

/// Writes the set columns of `active` (a stored record with changes) as `ActiveModelTrait::update` does:
/// `before_save`, the `UPDATE` of its row by primary key (`RETURNING` every column, or read back by key in the same
/// transaction where the backend has no `RETURNING`), `after_save`. The statements are built here and run by
/// [`written_row`], one function for every ViewSet.
pub(crate) async fn update<V: ViewSet>(on: On<'_>, active: Active<V>) -> Result<ModelOf<V>, ApiError> {
    let active = Box::pin(Active::<V>::before_save(active, &on.executor(), false)).await;
    let active = active.map_err(db_err::<V::Entity>)?;
    let updating = updating::<V>(on.backend(), active, on.support_returning()).map_err(db_err::<V::Entity>)?;
    let row = written_row(on, updating, table::<V>()).await?.ok_or(ApiError::NotFound)?;
    let written = V::decode_rows(std::slice::from_ref(&row)).map_err(db_err::<V::Entity>)?.pop();
    let written = Box::pin(Active::<V>::after_save(written.ok_or(ApiError::NotFound)?, &on.executor(), false)).await;
    written.map_err(db_err::<V::Entity>)
}

/// The statements of a record's update.
enum Updating {
    /// Nothing to write: the record as stored is read by its key.
    Read(Statement),
    /// `UPDATE … RETURNING` every column.
    Returning(Statement),
    /// The `UPDATE`, then the read of the written row by its key (MariaDB / MySQL).
    ThenRead(Statement, Statement),
}

/// The statements that write `active`'s set columns to its row, by its primary key.
fn updating<V: ViewSet>(backend: DbBackend, active: Active<V>, returning: bool) -> Result<Updating, DbErr> {
    let key = primary_key(&active)?;
    let mut query = V::Entity::update(active).validate()?.into_query();
    let read = |key| by_key::<V::Entity>(key).limit(1).build(backend);
    if query.get_values().is_empty() {
        return Ok(Updating::Read(read(key)));
    }
    if returning {
        query.returning(every_column::<V::Entity>(backend));
        return Ok(Updating::Returning(backend.build(&query)));
    }
    Ok(Updating::ThenRead(backend.build(&query), read(key)))
}

/// The row `updating` leaves (`None` when no row matched), its errors read for `table`.
async fn written_row(on: On<'_>, updating: Updating, table: &'static str) -> Result<Option<QueryResult>, ApiError> {
    let refused = |err| ApiError::from_db(err, table);
    match updating {
        Updating::Read(read) => row(on, read, "lookup").await.map_err(refused),
        Updating::Returning(update) => row(on, update, "update").await.map_err(refused),
        Updating::ThenRead(update, read) => match on {
            // The UPDATE and the read of the written row in one transaction, so the answer is the row this write
            // left, not one a concurrent write made after it.
            On::Pool(db) => {
                let txn = begin(db, TransactionOptions::default()).await.map_err(refused)?;
                let written = update_then_read(On::Txn(&txn), update, read).await.map_err(refused)?;
                commit_on(txn, table).await?;
                Ok(written)
            }
            On::Txn(_) => update_then_read(on, update, read).await.map_err(refused),
        },
    }
}

/// An `UPDATE` without `RETURNING` (MariaDB / MySQL), then the row `read`; `None` when no row matched (the
/// connection counts matched rows, sqlx's `CLIENT_FOUND_ROWS`, so an unchanged row still counts).
async fn update_then_read(on: On<'_>, update: Statement, read: Statement) -> Result<Option<QueryResult>, DbErr> {
    match execute(on, update, "update").await? {
        0 => Ok(None),
        _ => row(on, read, "lookup").await,
    }
}

/// Deletes `model` as `ActiveModelTrait::delete` does: `before_delete`, the `DELETE` of its row by primary key,
/// `after_delete`. A foreign-key failure means other records still point at this one (409 `still_referenced`).
pub(crate) async fn delete<V: ViewSet>(on: On<'_>, model: ModelOf<V>) -> Result<(), ApiError> {
    let refused = |e: DbErr| match db_err::<V::Entity>(e) {
        ApiError::ForeignKeyViolation => ApiError::StillReferenced,
        other => other,
    };
    let active = Box::pin(Active::<V>::before_delete(model.into_active_model(), &on.executor())).await;
    let active = active.map_err(refused)?;
    let query = V::Entity::delete(active.clone()).validate().map_err(refused)?.into_query();
    execute(on, on.backend().build(&query), "delete").await.map_err(refused)?;
    let done = Box::pin(Active::<V>::after_delete(active, &on.executor())).await;
    done.map(drop).map_err(refused)
}

/// A transaction for a conditional write (`If-Match`): on SQLite it is begun `IMMEDIATE`, so it holds the
/// database's write lock from its first statement; on PostgreSQL the locking read locks the row.
pub(crate) fn begin_immediate<V: ViewSet>(
    db: &DatabaseConnection,
) -> impl Future<Output = Result<DatabaseTransaction, ApiError>> + Send + '_ {
    begin_immediate_on(db, table::<V>())
}

/// [`begin_immediate`], its errors read for `table`: one function for every ViewSet.
pub(crate) async fn begin_immediate_on(
    db: &DatabaseConnection,
    table: &'static str,
) -> Result<DatabaseTransaction, ApiError> {
    let options =
        TransactionOptions { sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate), ..Default::default() };
    begin(db, options).await.map_err(|err| ApiError::from_db(err, table))
}

/// The table of `V`'s entity, which reads a database error's constraint ([`ApiError::from_db`]).
pub(crate) fn table<V: ViewSet>() -> &'static str {
    sea_orm::EntityName::table_name(&V::Entity::default())
}

/// Begins a transaction in a task of its own. sqlx counts a connection as inside a transaction only once `BEGIN`
/// has been answered, so a request cancelled while its `BEGIN` was in flight (the client went away) returned the
/// connection to the pool inside a transaction nobody knew of (launchbadge/sqlx#2054; seen on MariaDB under `wrk`):
/// later writes on that connection answered 201 and were never committed. The task finishes the `BEGIN` whatever
/// becomes of the request; a transaction whose request is gone by then is dropped, which rolls it back.
async fn begin(db: &DatabaseConnection, options: TransactionOptions) -> Result<DatabaseTransaction, DbErr> {
    let db = db.clone();
    match tokio::spawn(async move { db.begin_with_options(options).await }).await {
        Ok(begun) => begun,
        Err(err) => Err(DbErr::Custom(format!("beginning a transaction: {err}"))),
    }
}

/// Commits `txn`, its errors read for `table`: one function for every ViewSet.
pub(crate) async fn commit_on(txn: DatabaseTransaction, table: &'static str) -> Result<(), ApiError> {
    boxed(|| txn.commit()).await.map_err(|err| ApiError::from_db(err, table))
}

/// The primary key value of `active`.
fn primary_key<A: ActiveModelTrait>(active: &A) -> Result<ValueTuple, DbErr> {
    active.get_primary_key_value().ok_or(DbErr::UpdateGetPrimaryKey)
}

/// The select of the record whose primary key is `key`.
fn by_key<E: EntityTrait>(key: ValueTuple) -> Select<E> {
    E::find_by_id(<<E as EntityTrait>::PrimaryKey as PrimaryKeyTrait>::ValueType::from_value_tuple(key))
}

/// The `INSERT` `statement`, built with `RETURNING` [`every_column`], as MariaDB receives it: sea-query's MySQL
/// builder writes no `RETURNING` (MySQL has none), so it is appended here, every column of `E` in the entity's order
/// (as the rows decode by position). Other backends' statements as they are.
pub(super) fn returning_on_mariadb<E: EntityTrait>(mut statement: Statement) -> Statement {
    if statement.db_backend == sea_orm::DbBackend::MySql {
        let mut columns = Vec::new();
        for column in E::Column::iter() {
            columns.push(format!("`{}`", sea_orm::IdenStatic::as_str(&column).replace('`', "``")));
        }
        statement.sql = format!("{} RETURNING {}", statement.sql, columns.join(", "));
    }
    statement
}

/// `RETURNING` every column of `E`, each as sea-orm's own `exec_with_returning` selects it (so the row decodes as the
/// model).
pub(super) fn every_column<E: EntityTrait>(backend: sea_orm::DbBackend) -> sea_orm::sea_query::ReturningClause {
    let mut columns = Vec::new();
    for column in E::Column::iter() {
        columns.push(column.select_as(column.into_returning_expr(backend)));
    }
    sea_orm::sea_query::Query::returning().exprs(columns)
}
