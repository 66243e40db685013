//! Loading embedded records: one `IN (...)` query per relation per page, through the related ViewSet's access path.

use std::collections::HashMap;

use futures_util::future::BoxFuture;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use serde_json::Value as Json;

use super::tree::Expand;
use super::{MAX_EMBEDDED_ROWS, tree::Item};
use crate::access::{self, permission, visible};
use crate::error::ApiError;
use crate::query::columns::{column_named, field_name};
use crate::query::ordering::{apply_order, effective_order};
use crate::query::value::from_json;
use crate::query::{Filters, ListQuery};
use crate::request::RequestContext;
use crate::schema::ReadSchema;
use crate::viewset::{Hooks, ModelOf, ViewSet};

/// What one relation asks of the ViewSet serving its table.
pub(crate) struct Batch<'a> {
    /// The column (database name) the keys are values of.
    pub column: &'a str,
    /// Distinct keys, as the embedding rows serialize them.
    pub keys: Vec<Json>,
    /// Relations to embed in the loaded records.
    pub nested: &'a Expand,
}

/// The JSON value of the field of `E` stored in database column `column` (`Null` when there is none).
fn field_of<E: EntityTrait>(row: &Json, column: &str) -> Json {
    column_named::<E>(column).and_then(|c| row.get(field_name::<E>(c)).cloned()).unwrap_or(Json::Null)
}

/// The embedded values of each of `rows` (in order): for every relation of `expand`, its name and the related
/// record (or `null`), or the array of related records for a has-many relation.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// # async fn run() -> Result<(), viewset_core::ApiError> {
/// use viewset_core::embed::{Expand, embed_rows};
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, prefix = "/posts")]
/// pub struct PostViewSet;
///
/// let db = sea_orm::Database::connect("sqlite::memory:").await.unwrap();
/// let request = RequestContext::new(db, Operation::List);
/// let rows = vec![post::Model { id: 1 }];
/// let embedded = embed_rows::<PostViewSet>(&rows, &Expand::default(), &request).await?;
/// assert_eq!(embedded, vec![Vec::new()]); // nothing asked, nothing embedded, no query
/// # Ok(()) }
/// ```
pub async fn embed_rows<V: ViewSet>(
    rows: &[ModelOf<V>],
    expand: &Expand,
    request: &RequestContext,
) -> Result<Vec<Vec<(&'static str, Json)>>, ApiError> {
    let mut out: Vec<Vec<(&'static str, Json)>> = rows.iter().map(|_| Vec::with_capacity(expand.items.len())).collect();
    if expand.is_empty() || rows.is_empty() {
        return Ok(out);
    }
    let models: Vec<Json> = rows.iter().map(|row| serde_json::to_value(row).unwrap_or(Json::Null)).collect();
    for item in &expand.items {
        let keys: Vec<Json> = models.iter().map(|m| field_of::<V::Entity>(m, &item.from)).collect();
        let related = related(item, &keys, request).await?;
        for (slot, key) in out.iter_mut().zip(&keys) {
            let found = related.get(&key.to_string());
            let value = match (item.many, found) {
                (true, found) => Json::Array(found.cloned().unwrap_or_default()),
                (false, found) => found.and_then(|records| records.first().cloned()).unwrap_or(Json::Null),
            };
            slot.push((item.name, value));
        }
    }
    Ok(out)
}

/// The records of `item`'s table matching `keys`, grouped by key text.
async fn related(item: &Item, keys: &[Json], request: &RequestContext) -> Result<HashMap<String, Vec<Json>>, ApiError> {
    let mut distinct: Vec<Json> = Vec::new();
    for key in keys.iter().filter(|k| !k.is_null()) {
        if !distinct.contains(key) {
            distinct.push(key.clone());
        }
    }
    let mut grouped: HashMap<String, Vec<Json>> = HashMap::new();
    if distinct.is_empty() {
        return Ok(grouped);
    }
    let batch = Batch { column: &item.to, keys: distinct, nested: &item.nested };
    for (key, record) in (item.target.load)(request, batch).await? {
        grouped.entry(key).or_default().push(record);
    }
    Ok(grouped)
}

/// [`Batch`] for `R`: admitted to `list` like a request of its own (not admitted: nothing), its scoped query
/// (`get_queryset` and row policies), ordered as its list is by default, then object permissions and hidden fields.
pub(crate) fn load<'a, R: Hooks>(
    request: &'a RequestContext,
    batch: Batch<'a>,
) -> BoxFuture<'a, Result<Vec<(String, Json)>, ApiError>> {
    Box::pin(async move {
        let Some(own) = access::admit_related::<R>(request) else { return Ok(Vec::new()) };
        let column = column_named::<R::Entity>(batch.column);
        let missing = || sea_orm::DbErr::Custom(format!("no column `{}` to embed by", batch.column));
        let column = column.ok_or_else(|| ApiError::Database(missing()))?;
        let column_type = column.def().get_column_type().clone();
        let values: Vec<sea_orm::Value> = batch.keys.iter().filter_map(|k| from_json(&column_type, k).ok()).collect();
        let query = ListQuery::new(access::scoped_query::<R>(&own, &Filters::new())?.filter(column.is_in(values)));
        let order = effective_order::<R>(&query, &own);
        let select = apply_order(query.select, &order, false).limit(MAX_EMBEDDED_ROWS + 1);
        let rows: Vec<ModelOf<R>> = crate::store::all::<R>(&own.db, select, batch.keys.len(), "embed").await?;
        if rows.len() as u64 > MAX_EMBEDDED_ROWS {
            let msg =
                format!("More than {MAX_EMBEDDED_ROWS} records to embed (limit MAX_EMBEDDED_ROWS): ask a smaller page");
            return Err(ApiError::input(["query", "expand"], msg, "too_many_embedded"));
        }
        let rows: Vec<ModelOf<R>> = rows
            .into_iter()
            .filter(|row| R::permission_classes(&mut |p| permission::check_object(p, &own, row)).is_ok())
            .collect();
        let nested = embed_rows::<R>(&rows, batch.nested, &own).await?;
        let left_out = own.left_out();
        let field = field_name::<R::Entity>(column);
        Ok(rows
            .into_iter()
            .zip(nested)
            .map(|(row, embedded)| {
                let key = serde_json::to_value(&row).ok().and_then(|m| m.get(field).cloned()).unwrap_or_default();
                let mut record = visible(&R::ListItem::from_model(row), &left_out);
                super::attach(&mut record, embedded);
                (key.to_string(), record)
            })
            .collect())
    })
}
