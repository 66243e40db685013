//! The reads the access path, embedding, the cursor paginator and the stream ask for, by what they need.

use sea_orm::sea_query::{Expr, SelectStatement};
use sea_orm::{DbBackend, DbErr, EntityName, QueryResult, QuerySelect, QueryTrait, Select, Statement, Value};

use super::replica::{ReadOn, read_row, read_rows};
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::{ApiError, db_err};
use crate::request::Reader;

/// Which record of a ViewSet to read. Consumed as soon as it is made (its statement is rendered before any future is
/// built), so the size of a `Select` is never carried.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Find<E: sea_orm::EntityTrait> {
    /// The record whose lookup field is this value, with nothing else in the caller's scope: the statement is
    /// built once per ViewSet and backend.
    Lookup(Value),
    /// The first row of a scoped select.
    First(Select<E>),
}

/// The record `what` names, read on `on` (role `lookup`: a request's [`Reader`], or a transaction) and decoded by
/// the ViewSet. The statement is rendered when this is called: the future holds it, not the query it came from.
pub(crate) fn find<'a, V: ViewSet>(
    on: impl Into<ReadOn<'a>>,
    what: Find<V::Entity>,
) -> impl Future<Output = Result<Option<ModelOf<V>>, ApiError>> + Send + 'a {
    // Only the conversion is compiled per connection type; the read, once per ViewSet.
    find_on::<V>(on.into(), what)
}

/// [`find`] on a connection already converted.
fn find_on<'a, V: ViewSet>(
    on: ReadOn<'a>,
    what: Find<V::Entity>,
) -> impl Future<Output = Result<Option<ModelOf<V>>, ApiError>> + Send + 'a {
    let statement = statement::<V>(on.backend(), what);
    async move { decoded::<V>(read_row(on, statement?, "lookup").await) }
}

/// The statement reading the record `what` names on `backend`: the rendering half of [`find`], for a caller that
/// reads the row in a future of its own ([`lookup_row`]) and decodes it after ([`decoded`]).
pub(crate) fn statement<V: ViewSet>(backend: DbBackend, what: Find<V::Entity>) -> Result<Statement, ApiError> {
    match what {
        Find::Lookup(value) => super::statements::lookup::<V>(backend, value),
        Find::First(select) => Ok(select.limit(1).build(backend)),
    }
}

/// The first row of `statement` (role `lookup`) read through `reader`, undecoded: one future type for every ViewSet,
/// so a caller's own future is the only one compiled per ViewSet on the way to the row.
pub(crate) fn lookup_row<'a>(
    reader: Reader<'a>,
    statement: Statement,
) -> impl Future<Output = Result<Option<QueryResult>, DbErr>> + Send + 'a {
    read_row(reader.into(), statement, "lookup")
}

/// A row read by [`lookup_row`], decoded by the ViewSet (errors name its table).
pub(crate) fn decoded<V: ViewSet>(row: Result<Option<QueryResult>, DbErr>) -> Result<Option<ModelOf<V>>, ApiError> {
    let Some(row) = row.map_err(db_err::<V::Entity>)? else { return Ok(None) };
    Ok(V::decode_rows(std::slice::from_ref(&row)).map_err(db_err::<V::Entity>)?.pop())
}

/// The rows of `statement` (role `role`) read through `reader`, undecoded: for a caller whose future is one type for
/// every ViewSet and that decodes them after it (the embedding loader).
pub(crate) fn rows<'a>(
    reader: Reader<'a>,
    statement: Statement,
    capacity: usize,
    role: &'static str,
) -> impl Future<Output = Result<Vec<QueryResult>, DbErr>> + Send + 'a {
    read_rows(reader, statement, capacity, role)
}

/// Every row of `select` (role `role`) read through `reader`, decoded by the ViewSet; `capacity` rows are reserved
/// up front. The statement is rendered when this is called.
pub(crate) fn all<'a, V: ViewSet>(
    reader: Reader<'a>,
    select: Select<V::Entity>,
    capacity: usize,
    role: &'static str,
) -> impl Future<Output = Result<Vec<ModelOf<V>>, ApiError>> + Send + 'a {
    let statement = select.build(reader.backend());
    async move {
        let found = read_rows(reader, statement, capacity, role).await;
        found.and_then(|rows| V::decode_rows(&rows)).map_err(db_err::<V::Entity>)
    }
}

/// Whether `scope` (a scoped select of `V`) admits a row that is no longer stored, given as its columns' values by
/// column name (the last state of a deleted record): the scope runs over a one-row common table expression named
/// like the table (role `visibility`), read through `reader`.
pub(crate) fn admits_row<'a, V: ViewSet>(
    reader: Reader<'a>,
    scope: Select<V::Entity>,
    row: Vec<(&'static str, Value)>,
) -> impl Future<Output = Result<bool, ApiError>> + Send + 'a {
    admits_named_row(reader, scope.into_query(), row, V::Entity::default().table_name())
}

/// [`admits_row`] with the scope's select (of `table`): one function for every ViewSet.
async fn admits_named_row(
    reader: Reader<'_>,
    mut query: SelectStatement,
    row: Vec<(&'static str, Value)>,
    table: &'static str,
) -> Result<bool, ApiError> {
    query.clear_selects().expr(Expr::val(1)).limit(1);
    let statement = super::visibility::rendered(reader.backend(), &query.with(super::visibility::one_row(table, row)));
    let found = read_row(reader.into(), statement, "visibility").await;
    Ok(found.map_err(|err| ApiError::from_db(err, table))?.is_some())
}
