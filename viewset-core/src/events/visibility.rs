//! Who may see an event: the record is loaded through the subscriber's own view ([`access::fetch_where`]: the
//! scoped query and object permissions); a deleted row, which can no longer be loaded, is checked by running the
//! subscriber's [`access::scoped_query`] over its last state (the store's one-row common table expression).

use sea_orm::{ColumnTrait, Condition, EntityTrait, Iterable, PrimaryKeyToColumn, Value};

use crate::access;
use crate::error::ApiError;
use crate::query::columns::field_name;
use crate::query::params::Filters;
use crate::query::value::from_json;
use crate::request::RequestContext;
use crate::viewset::contract::ModelOf;
use crate::viewset::hooks::Hooks;

fn typed<C: ColumnTrait>(column: C, json: &serde_json::Value) -> Option<Value> {
    from_json(column.def().get_column_type(), json).ok()
}

/// The record with primary key `pk`, as this subscriber may see it now (`None`: not visible).
pub async fn visible_record<V: Hooks>(
    request: &RequestContext,
    pk: &serde_json::Value,
) -> Result<Option<ModelOf<V>>, ApiError> {
    let keys: Vec<_> = <V::Entity as EntityTrait>::PrimaryKey::iter().map(|k| k.into_column()).collect();
    let values: Vec<&serde_json::Value> = match (keys.len(), pk) {
        (1, v) => vec![v],
        (_, serde_json::Value::Array(vs)) => vs.iter().collect(),
        _ => return Ok(None),
    };
    let mut condition = Condition::all();
    for (col, value) in keys.into_iter().zip(values) {
        let Some(v) = typed(col, value) else { return Ok(None) };
        condition = condition.add(col.eq(v));
    }
    match access::fetch_where::<V>(request, condition, V::permission_classes).await {
        Ok(model) => Ok(Some(model)),
        Err(ApiError::NotFound | ApiError::PermissionDenied(_)) => Ok(None),
        Err(err) => Err(err),
    }
}

/// Whether this subscriber could see the row `snapshot` (the last state of a deleted record).
pub async fn could_see_deleted<V: Hooks>(
    request: &RequestContext,
    snapshot: &serde_json::Value,
) -> Result<bool, ApiError> {
    let mut row = Vec::new();
    for col in <V::Entity as EntityTrait>::Column::iter() {
        let field = snapshot.get(field_name::<V::Entity>(col)).unwrap_or(&serde_json::Value::Null);
        let Some(value) = typed(col, field) else {
            return Ok(false);
        };
        row.push((col, value));
    }
    let scope = access::scoped_query::<V>(request, &Filters::new())?;
    crate::store::admits_row::<V>(request.reader(), scope, row).await
}
