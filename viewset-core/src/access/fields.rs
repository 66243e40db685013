//! Field visibility: fields a principal may not see are absent from responses, cannot be written, and are ignored
//! for filtering, search and ordering. The tenant field is never writable, filterable or orderable by clients.

use serde::ser::{Serialize, SerializeSeq, Serializer};

use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::types::columns::column_names;

/// Fields clients may not filter, search or order by, nor write: hidden ones and the tenant field.
pub fn restricted_fields<V: ViewSet>(hidden: &[&'static str]) -> Vec<&'static str> {
    let mut out = hidden.to_vec();
    out.extend(V::CONFIG.tenant_field);
    out
}

/// Rejects a body that sends a restricted field (422 at `["body", field]`).
pub fn reject_restricted_keys(bytes: &[u8], restricted: &[&'static str]) -> Result<(), ApiError> {
    if restricted.is_empty() {
        return Ok(());
    }
    // Malformed bodies are reported by the typed parse that follows.
    let Ok(serde_json::Value::Object(map)) = serde_json::from_slice::<serde_json::Value>(bytes) else { return Ok(()) };
    match restricted.iter().find(|f| map.contains_key(**f)) {
        Some(field) => Err(ApiError::input(["body", field], "This field cannot be written", "read_only")),
        None => Ok(()),
    }
}

/// `?fields=id,title` on list, retrieve and the stream: the fields to leave out of the response (every field this
/// caller may see that the list does not name); nothing when the parameter is absent. The value is field names
/// joined by commas, exactly: any other name (an empty one too) is a 422 at `["query", "fields"]` listing the
/// fields this caller may name. A hidden field is reported exactly like an unknown one, so the answer reveals
/// nothing about it.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// # mod post {
/// #     use sea_orm::entity::prelude::*;
/// #     #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #     #[sea_orm(table_name = "posts")]
/// #     pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String, pub body: String }
/// #     #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
/// #     pub enum Relation {}
/// #     impl ActiveModelBehavior for ActiveModel {}
/// # }
/// use viewset_core::prelude::*;
/// use viewset_core::access::sparse_fields;
/// use viewset_core::query::QueryParams;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, prefix = "/posts")]
/// struct PostViewSet;
///
/// let db = sea_orm::Database::connect("sqlite::memory:").await?;
/// let mut request = RequestContext::new(db, Operation::List);
/// request.query = QueryParams::parse(Some("fields=id,title"));
/// assert_eq!(sparse_fields::<PostViewSet>(&request).unwrap(), ["body"]);
/// request.query = QueryParams::parse(Some("fields=id,nope"));
/// assert!(sparse_fields::<PostViewSet>(&request).is_err());
/// # Ok(()) }
/// ```
pub fn sparse_fields<V: ViewSet>(request: &RequestContext) -> Result<Vec<&'static str>, ApiError> {
    sparse_fields_of(request, column_names::<V::Entity>())
}

/// [`sparse_fields`] of a model whose fields are `fields`: one function for every ViewSet.
fn sparse_fields_of(request: &RequestContext, fields: Vec<&'static str>) -> Result<Vec<&'static str>, ApiError> {
    let Some(raw) = request.query.one("fields")? else { return Ok(Vec::new()) };
    let shown: Vec<&'static str> = fields.into_iter().filter(|f| !request.hidden_fields.contains(f)).collect();
    let asked: Vec<&str> = raw.split(',').collect();
    let unknown: Vec<&str> = asked.iter().copied().filter(|name| !shown.contains(name)).collect();
    if !unknown.is_empty() {
        let names: Vec<String> = unknown.iter().map(|n| format!("`{n}`")).collect();
        let msg = format!("Unknown field {}; the fields you may name: {}", names.join(", "), shown.join(", "));
        return Err(ApiError::input(["query", "fields"], msg, "unknown_field"));
    }
    Ok(shown.into_iter().filter(|field| !asked.contains(field)).collect())
}

/// `fields` without those in `left_out`.
pub(crate) fn leave_out(fields: &mut Vec<&'static str>, left_out: &[&'static str]) {
    fields.retain(|field| !left_out.contains(field));
}

/// A representation without the hidden fields.
pub fn visible<T: Serialize>(item: &T, hidden: &[&'static str]) -> serde_json::Value {
    let mut value = serde_json::to_value(item).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(map) = &mut value {
        for field in hidden {
            map.remove(*field);
        }
    }
    value
}

/// Items of a list page, serialized without the hidden fields (as they are when nothing is hidden).
#[derive(Debug)]
pub struct Items<T> {
    items: Vec<T>,
    hidden: Vec<&'static str>,
    /// Per item, the embedded relations (`?expand=`); empty when none are.
    embedded: Vec<Vec<(&'static str, serde_json::Value)>>,
}

impl<T> Items<T> {
    /// Wraps page items.
    pub fn new(items: Vec<T>, hidden: Vec<&'static str>) -> Self {
        Items { items, hidden, embedded: Vec::new() }
    }
    /// The same items, each with its embedded relations (in order, one list per item).
    pub fn with_embedded(self, embedded: Vec<Vec<(&'static str, serde_json::Value)>>) -> Self {
        Items { embedded, ..self }
    }
    /// The number of items.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// Whether the page is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl<T: Serialize> Serialize for Items<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.hidden.is_empty() && self.embedded.is_empty() {
            return self.items.serialize(serializer);
        }
        let mut seq = serializer.serialize_seq(Some(self.items.len()))?;
        for (i, item) in self.items.iter().enumerate() {
            let mut value = visible(item, &self.hidden);
            if let Some(embedded) = self.embedded.get(i) {
                attach(&mut value, embedded.clone());
            }
            seq.serialize_element(&value)?;
        }
        seq.end()
    }
}

/// Adds `embedded` (relation name, value) to `record`, a JSON object (anything else is left as it is).
///
/// ```
/// let mut record = serde_json::json!({"id": 1});
/// viewset_core::embed::attach(&mut record, vec![("author", serde_json::Value::Null)]);
/// assert_eq!(record, serde_json::json!({"id": 1, "author": null}));
/// ```
pub fn attach(record: &mut serde_json::Value, embedded: Vec<(&'static str, serde_json::Value)>) {
    if let serde_json::Value::Object(map) = record {
        map.extend(embedded.into_iter().map(|(name, value)| (name.to_string(), value)));
    }
}
