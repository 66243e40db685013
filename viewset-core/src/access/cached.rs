//! The SQL of a detail lookup, built once per ViewSet and database backend: when the scope is the default
//! `get_queryset` with no required row policy for this request, the statement is
//! `SELECT <every column> FROM <table> WHERE <lookup column> = $1 LIMIT $2` whatever the key, so building it
//! through sea-query on every request (a fifth of a retrieve's instructions) is work done once.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use sea_orm::{DbBackend, EntityTrait, QueryFilter, QuerySelect, QueryTrait, Statement, Value};

use super::{Lookup, lookup_condition};
use crate::error::ApiError;
use crate::viewset::Hooks;

/// A lookup's SQL and the values after the key (the `LIMIT`).
struct Cached {
    backend: DbBackend,
    sql: Arc<str>,
    rest: Vec<Value>,
}

type Cache = RwLock<HashMap<TypeId, Vec<Cached>>>;

/// The statement reading the record at `pk` of `V` on `backend` (unscoped: call it only when the scope adds
/// nothing, see [`super::fetch_visible`]).
pub(super) fn lookup_statement<V: Hooks>(backend: DbBackend, pk: &Lookup) -> Result<Statement, ApiError> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = TypeId::of::<V>();
    let with_key = |found: &Cached| {
        let values = std::iter::once(pk.value.clone()).chain(found.rest.iter().cloned());
        Statement::from_sql_and_values(backend, &*found.sql, values)
    };
    if let Some(found) = cache.read().unwrap_or_else(PoisonError::into_inner).get(&key)
        && let Some(found) = found.iter().find(|c| c.backend == backend)
    {
        return Ok(with_key(found));
    }
    let statement = V::Entity::find().filter(lookup_condition::<V>(pk)?).limit(1).build(backend);
    let values = statement.values.as_ref().map(|v| v.0.as_slice()).unwrap_or_default();
    // Cache only the shape this module expects: the key first, then the limit.
    if let [first, rest @ ..] = values
        && *first == pk.value
    {
        let built = Cached { backend, sql: Arc::from(statement.sql.as_str()), rest: rest.to_vec() };
        cache.write().unwrap_or_else(PoisonError::into_inner).entry(key).or_default().push(built);
    }
    Ok(statement)
}
