//! What Studio publishes about a ViewSet's `aggregates(...)` (in its description, `/ai/context/full`'s `viewsets`
//! and the Model Browser's models): the route, each group key with the time buckets it has, the fields each function
//! may name (`functions`: `sum`, `avg`, `min`, `max`, `count_distinct`; `count` needs no field) and the bounds, all read from the derive's declaration ([`viewset_core::Config::aggregates`]) and the
//! model's column types, so the web UI's chart offers exactly what the route accepts and hard-codes nothing. `null`
//! when the ViewSet declares none. A field hidden from a caller is listed too: the route refuses it to that caller
//! as a field that does not exist, and the UI shows that answer.

use std::str::FromStr;

use sea_orm::{ColumnTrait, EntityTrait};
use serde_json::{Value, json};
use viewset_core::Hooks;
use viewset_core::aggregate::{Bucket, Function, MAX_GROUP_KEYS};
use viewset_core::registration::paths;

/// The group keys of `V`'s declaration: `(field, whether it has time buckets)`.
pub(crate) fn group_keys<V: Hooks>() -> Vec<(&'static str, bool)> {
    let declared = V::CONFIG.aggregates.map_or(&[][..], |a| a.group_by);
    declared
        .iter()
        .map(|field| {
            let column = <V::Entity as EntityTrait>::Column::from_str(field).ok();
            (*field, column.is_some_and(|c| Bucket::applies_to(c.def().get_column_type())))
        })
        .collect()
}

/// `V`'s aggregates as Studio describes them, or `null`.
pub(crate) fn describe<V: Hooks>() -> Value {
    let Some(declared) = V::CONFIG.aggregates else { return Value::Null };
    let buckets: Vec<&str> = Bucket::ALL.iter().map(|b| b.name()).collect();
    let group_by: Vec<Value> = group_keys::<V>()
        .into_iter()
        .map(|(field, timed)| json!({"field": field, "buckets": if timed { buckets.clone() } else { Vec::new() }}))
        .collect();
    let functions: serde_json::Map<String, Value> =
        Function::OF_FIELDS.into_iter().map(|f| (f.name().to_string(), json!(declared.fields(f.name())))).collect();
    json!({
        "path": paths::aggregate(paths::base(&V::prefix())),
        "group_by": group_by,
        "functions": functions,
        "max_groups": declared.max_groups,
        "max_group_keys": MAX_GROUP_KEYS,
    })
}
