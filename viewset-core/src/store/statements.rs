//! Statements built once per ViewSet, backend and shape, used when the caller's scope adds nothing: the detail
//! lookup, a PATCH of a set of columns (`UPDATE … WHERE <lookup> RETURNING *`) and an insert of a set of columns. The
//! first statement of each shape is built through sea-query and cached only when its values are exactly those this
//! module would bind, so a cached statement is always the one sea-query builds. Why: bench/notes/design-notes.md.

use std::any::TypeId;
use std::mem::Discriminant;
use std::sync::Arc;

use sea_orm::{ActiveModelTrait, ActiveValue, ColumnTrait, Condition, DbBackend, EntityTrait, Iterable, QueryFilter};
use sea_orm::{QuerySelect, QueryTrait, Statement, Value};

use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::memo::Memo;

/// Which statement of a ViewSet (or, for an insert, of an entity): the detail lookup, or a PATCH or an insert of
/// the columns whose bits are set.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Shape {
    Lookup,
    Update(u64),
    Insert(u64),
}

/// A statement's SQL and the values bound after the caller's own (the lookup's `LIMIT`).
struct Cached {
    sql: Arc<str>,
    rest: Vec<Value>,
}

static CACHE: Memo<(TypeId, Discriminant<DbBackend>, Shape), Cached> = Memo::new();

/// The statement of `shape` for the type `of` with `values` bound first: the cached SQL, or `build(&values)`'s
/// statement, cached when its values start with `values` (anything else, such as a value sea-query inlines, is not
/// cached). Nothing is built on a hit.
fn statement<E>(
    of: TypeId,
    backend: DbBackend,
    shape: Shape,
    values: Vec<Value>,
    build: impl FnOnce(&[Value]) -> Result<Statement, E>,
) -> Result<Statement, E> {
    // Matches, not `Option` combinators: this is compiled for every ViewSet and shape.
    let (mut build, mut failed) = (Some(build), None);
    let mut built = |values: &[Value]| {
        let build = build.take()?;
        match build(values) {
            Ok(statement) => Some(statement),
            Err(err) => {
                failed = Some(err);
                None
            }
        }
    };
    match cached_or_built(of, backend, shape, values, &mut built) {
        Some(statement) => Ok(statement),
        None => Err(failed.expect("a statement, or the error building it")),
    }
}

/// [`statement`] past its generic part (compiled once, not per ViewSet and shape): `None` when `build` failed.
fn cached_or_built(
    of: TypeId,
    backend: DbBackend,
    shape: Shape,
    mut values: Vec<Value>,
    build: &mut dyn FnMut(&[Value]) -> Option<Statement>,
) -> Option<Statement> {
    let key = (of, std::mem::discriminant(&backend), shape);
    if let Some(found) = CACHE.read().get(&key) {
        // Extended in place: sea-orm collects a vector's own iterator back into that vector, without a copy.
        values.extend(found.rest.iter().cloned());
        return Some(Statement::from_sql_and_values(backend, &*found.sql, values));
    }
    let statement = build(&values)?;
    let built = statement.values.as_ref().map(|v| v.0.as_slice()).unwrap_or_default();
    if let Some(rest) = built.strip_prefix(values.as_slice()) {
        let cached = Cached { sql: Arc::from(statement.sql.as_str()), rest: rest.to_vec() };
        CACHE.insert(key, cached);
    }
    Some(statement)
}

/// The statement reading the record of `V` whose lookup field is `value` on `backend`, unscoped: the store uses it
/// only when the caller's scope adds nothing to the lookup.
pub(super) fn lookup<V: ViewSet>(backend: DbBackend, value: Value) -> Result<Statement, ApiError> {
    // Room for the `LIMIT` the cached statement may add.
    let mut values = Vec::with_capacity(2);
    values.push(value);
    statement(TypeId::of::<V>(), backend, Shape::Lookup, values, |values| {
        let select = V::Entity::find().filter(lookup_condition::<V>(values[0].clone())?);
        // A primary key matches one row at most: the `LIMIT` would be one more value to bind on every read.
        Ok(if super::plan::lookup_is_key::<V>() { select } else { select.limit(1) }.build(backend))
    })
}

/// The lookup field of `V` equal to `value` (404 when the lookup field is no column, which the derive rules out).
pub(crate) fn lookup_condition<V: ViewSet>(value: Value) -> Result<Condition, ApiError> {
    let column = crate::types::columns::column::<V::Entity>(V::CONFIG.lookup_field).ok_or(ApiError::NotFound)?;
    Ok(Condition::all().add(column.eq(value)))
}

/// The `UPDATE … RETURNING` writing the set columns of `active` to the record of `V` whose lookup field is `value`
/// (unscoped: only when no required row policy applies); `build` makes it through sea-query.
pub(super) fn update<V: 'static, A: ActiveModelTrait, E>(
    backend: DbBackend,
    active: &A,
    value: Value,
    build: impl FnOnce(&[Value]) -> Result<Statement, E>,
) -> Result<Statement, E> {
    let Some((mask, mut values)) = set_columns(active, |value| matches!(value, ActiveValue::Set(_))) else {
        return build(std::slice::from_ref(&value));
    };
    values.push(value);
    statement(TypeId::of::<V>(), backend, Shape::Update(mask), values, build)
}

/// The `INSERT … RETURNING` of `active` (its set and unchanged columns, as sea-orm's `Insert::one` writes them);
/// `build` makes it through sea-query.
pub(super) fn insert<A: ActiveModelTrait, E>(
    backend: DbBackend,
    active: &A,
    build: impl FnOnce(&[Value]) -> Result<Statement, E>,
) -> Result<Statement, E> {
    let Some((mask, values)) = set_columns(active, |value| !matches!(value, ActiveValue::NotSet)) else {
        return build(&[]);
    };
    statement(TypeId::of::<A::Entity>(), backend, Shape::Insert(mask), values, build)
}

/// The columns of `active` that `written` keeps, as a bit per column (`None` past 64 columns), and their values.
fn set_columns<A: ActiveModelTrait>(
    active: &A,
    written: impl Fn(&ActiveValue<Value>) -> bool,
) -> Option<(u64, Vec<Value>)> {
    let mut mask = 0u64;
    let mut values = Vec::new();
    for (bit, column) in <A::Entity as EntityTrait>::Column::iter().enumerate() {
        let value = active.get(column);
        if written(&value) {
            mask |= 1u64.checked_shl(u32::try_from(bit).ok()?)?;
            values.extend(value.into_value());
        }
    }
    Some((mask, values))
}
