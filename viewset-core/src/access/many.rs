//! The records a bulk delete names, each through the caller's scope and object permissions, read in one
//! transaction with the rows locked; the statements are the store's ([`crate::store`]).

use std::collections::HashMap;

use sea_orm::{ColumnTrait, DatabaseTransaction, ModelTrait, QueryFilter, QuerySelect, Value};

use super::scoped_query;
use crate::contract::hooks::Hooks;
use crate::contract::lookup::Lookup;
use crate::contract::permission;
use crate::contract::viewset::ModelOf;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::types::params::Filters;

/// [`super::fetch_visible_locked`] for many keys: the records of `V` whose lookup values are `keys`, in the order
/// of `keys`, read inside `txn` (from [`super::begin_locking`]) through [`scoped_query`] with the rows locked, one
/// `SELECT … WHERE <lookup> IN (…)` per chunk of keys. A key that names no record this caller may see is a 404
/// naming it ([`ApiError::NotFoundKey`], the first such key in `keys`); then every record passes the object
/// permissions (403). `keys` should hold each value once.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use viewset_core::access::{self, Lookup};
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity)]
/// pub struct PostViewSet;
///
/// /// Read posts 1 and 2 as this caller sees them; nobody changes them until the transaction ends.
/// async fn both(request: RequestContext) -> Result<Vec<post::Model>, ApiError> {
///     let keys = [Lookup::parse::<PostViewSet>("1")?, Lookup::parse::<PostViewSet>("2")?];
///     let txn = access::begin_locking::<PostViewSet>(&request).await?;
///     let posts = access::fetch_visible_many_locked::<PostViewSet>(&request, &keys, &txn).await?;
///     txn.commit().await.map_err(|e| ApiError::from_db(e, "posts"))?;
///     Ok(posts)
/// }
/// ```
pub async fn fetch_visible_many_locked<V: Hooks>(
    request: &RequestContext,
    keys: &[Lookup],
    txn: &DatabaseTransaction,
) -> Result<Vec<ModelOf<V>>, ApiError> {
    fetch_visible_many_locked_by::<V>(request, V::CONFIG.lookup_field, keys, txn).await
}

/// [`fetch_visible_many_locked`] by the values of the unique field `field` (an upsert's key) instead of the
/// `lookup_field`.
///
/// ```
/// # mod tag { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "tags")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, #[sea_orm(unique)] pub slug: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use viewset_core::access::{self, Lookup};
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = tag::Entity, upsert_keys = ["slug"])]
/// pub struct Tags;
///
/// /// The tag `rust` as this caller sees it, locked until the transaction ends.
/// async fn rust(request: RequestContext) -> Result<Vec<tag::Model>, ApiError> {
///     let keys = [Lookup { raw: "rust".into(), value: "rust".into() }];
///     let txn = access::begin_locking::<Tags>(&request).await?;
///     let tags = access::fetch_visible_many_locked_by::<Tags>(&request, "slug", &keys, &txn).await?;
///     txn.commit().await.map_err(|e| ApiError::from_db(e, "tags"))?;
///     Ok(tags)
/// }
/// ```
pub async fn fetch_visible_many_locked_by<V: Hooks>(
    request: &RequestContext,
    field: &str,
    keys: &[Lookup],
    txn: &DatabaseTransaction,
) -> Result<Vec<ModelOf<V>>, ApiError> {
    let column = crate::types::columns::column::<V::Entity>(field).ok_or(ApiError::NotFound)?;
    let per_statement = crate::store::rows_per_statement(request.db.get_database_backend(), 1);
    let mut found = Vec::with_capacity(keys.len());
    for chunk in keys.chunks(per_statement) {
        let values = chunk.iter().map(|key| key.value.clone());
        let select = scoped_query::<V>(request, &Filters::new())?.filter(column.is_in(values)).lock_exclusive();
        found.extend(crate::store::all_in::<V>(txn, select, chunk.len(), "lookup").await?);
    }
    let models = in_order_of(keys, found, |model| model.get(column))?;
    for model in &models {
        V::permission_classes(&mut |p| permission::check_object(p, request, model))?;
    }
    Ok(models)
}

/// `found` in the order of `keys`, each record once, matched by its value of the key field (`value_of`): one pass
/// over each instead of a search of `found` per key (a bulk request of 1,000 keys compared half a million values).
/// A key matching no record left is a 404 naming it.
fn in_order_of<M>(keys: &[Lookup], found: Vec<M>, value_of: impl Fn(&M) -> Value) -> Result<Vec<M>, ApiError> {
    let mut by_value: HashMap<Value, Vec<M>> = HashMap::with_capacity(found.len());
    for model in found {
        by_value.entry(value_of(&model)).or_default().push(model);
    }
    let mut models = Vec::with_capacity(keys.len());
    for key in keys {
        let Some(model) = by_value.get_mut(&key.value).and_then(Vec::pop) else {
            return Err(ApiError::NotFoundKey(key.raw.clone()));
        };
        models.push(model);
    }
    Ok(models)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: i32) -> Lookup {
        Lookup { raw: n.to_string(), value: Value::Int(Some(n)) }
    }

    #[test]
    fn records_come_back_in_the_order_of_the_keys_each_once() {
        let found = vec![(3, "c"), (1, "a"), (2, "b")];
        let ordered = in_order_of(&[key(2), key(3), key(1)], found, |m| Value::Int(Some(m.0))).unwrap();
        assert_eq!(ordered, [(2, "b"), (3, "c"), (1, "a")]);
        // A key named twice finds its record once: the second is a 404 naming it, as is a key with no record.
        let twice = in_order_of(&[key(1), key(1)], vec![(1, "a")], |m| Value::Int(Some(m.0)));
        assert!(matches!(twice, Err(ApiError::NotFoundKey(raw)) if raw == "1"));
        let missing = in_order_of(&[key(1), key(9)], vec![(1, "a")], |m| Value::Int(Some(m.0)));
        assert!(matches!(missing, Err(ApiError::NotFoundKey(raw)) if raw == "9"));
    }
}
