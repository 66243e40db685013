//! Representations of a model: the create and update bodies and the read representation.
//! `#[derive(ModelSchema)]` on a sea-orm `Model` derives the first two; the model itself (with `Serialize`) is the
//! default read representation. The ViewSet's `*_serializer_class` / `*_schema_class` attributes swap in your types.
//! Bodies are parsed by [`parse_json_body`], whose errors are 422s locating the problem.

pub(crate) mod body;
pub(crate) mod checks;
pub(crate) mod explain;
mod located;
pub mod names;
mod object;
pub mod rows;
pub(crate) mod storable;

use sea_orm::EntityTrait;
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

pub use crate::types::field_schema::FieldSchema;
pub use body::{parse_json_body, require_json};
pub use storable::check_storable_body;

use crate::error::FieldErrors;

/// What `#[derive(ModelSchema)]` knows about one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldInfo {
    /// Field (and column) name.
    pub name: &'static str,
    /// `Option<T>` or `#[sea_orm(nullable)]`.
    pub nullable: bool,
    /// Part of the primary key.
    pub primary_key: bool,
    /// Never writable by clients (auto-increment key, `#[viewset(read_only)]`).
    pub read_only: bool,
    /// A create body must carry it.
    pub required_on_create: bool,
    /// Longest accepted string.
    pub max_length: Option<usize>,
    /// `#[sea_orm(unique)]`: no two rows hold the same value (or the primary key); what `upsert_keys` may name.
    pub unique: bool,
}

/// A model with derived create and update representations; implement it with `#[derive(ModelSchema)]`.
///
/// Field options: `#[viewset(read_only)]` (server-set, e.g. `created_at`), `#[viewset(max_length = 200)]`
/// (also read from `#[sea_orm(column_type = "String(StringLen::N(200))")]`). Primary keys with auto-increment
/// are read-only; fields with `#[sea_orm(default_value = ..)]` or `Option` types are optional on create.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no derived create/update schema",
    label = "add `#[derive(viewset_core::ModelSchema)]` to this model",
    note = "or name your own types with `create_serializer_class` and `update_serializer_class`"
)]
pub trait ModelSchema {
    /// The create body.
    type Create;
    /// The PATCH body.
    type Update;
    /// The fields, in declaration order.
    const FIELDS: &'static [FieldInfo];
    /// OpenAPI schema of the read representation (the model).
    fn read_schema() -> RefOr<Schema>;
    /// The model decoded from `row` by position, for a row holding the entity's columns in the entity's order (as
    /// [`rows::decode_in_order`] checks); the derive implements it. `None` (the default): decode by name.
    fn from_row_in_order(row: &sea_orm::QueryResult) -> Option<Result<Self, sea_orm::DbErr>>
    where
        Self: Sized,
    {
        let _ = row;
        None
    }
    /// The models of `rows`, by position where the derive allows it ([`rows::decode_in_order`]): what a derived
    /// `ViewSet::decode_rows` calls, through this trait so that a model without `ModelSchema` is one error.
    fn decode_rows(rows: &[sea_orm::QueryResult]) -> Result<Vec<Self>, sea_orm::DbErr>
    where
        Self: Sized + sea_orm::ModelTrait + sea_orm::FromQueryResult,
    {
        rows::decode_in_order(rows)
    }
}

/// A free-form object schema, for types that declare none.
pub fn free_form_schema() -> RefOr<Schema> {
    utoipa::openapi::schema::ObjectBuilder::new()
        .additional_properties(Some(utoipa::openapi::schema::AdditionalProperties::FreeForm(true)))
        .into()
}

/// A create body: validated, then turned into an `ActiveModel` to insert.
pub trait CreateSchema<E: EntityTrait>: for<'de> Deserialize<'de> + Send + 'static {
    /// Checks beyond the types (length, null on non-null columns).
    fn validate(&self) -> Result<(), FieldErrors>;
    /// OpenAPI schema of the body (default: a free-form object).
    fn openapi_schema() -> RefOr<Schema> {
        free_form_schema()
    }
    /// The model to insert; fields not sent stay `NotSet` (so database defaults apply).
    fn into_active_model(self) -> E::ActiveModel;
}

/// A PATCH body: only the fields sent are written.
pub trait UpdateSchema<E: EntityTrait>: for<'de> Deserialize<'de> + Send + 'static {
    /// Checks beyond the types (length, null on non-null columns).
    fn validate(&self) -> Result<(), FieldErrors>;
    /// OpenAPI schema of the body (default: a free-form object).
    fn openapi_schema() -> RefOr<Schema> {
        free_form_schema()
    }
    /// Whether the body changes nothing.
    fn is_empty(&self) -> bool;
    /// Sets the sent fields on the fetched model.
    fn apply(self, model: &mut E::ActiveModel);
}

/// A read representation built from the model.
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Title { title: String }
/// struct Model { title: String }
/// impl From<Model> for Title { fn from(m: Model) -> Self { Title { title: m.title } } }
/// fn takes<T: viewset_core::schema::ReadSchema<Model>>() {}
/// takes::<Title>();
/// ```
pub trait ReadSchema<M>: Serialize + Send + 'static {
    /// Builds the representation.
    fn from_model(model: M) -> Self;
}

impl<M, T: From<M> + Serialize + Send + 'static> ReadSchema<M> for T {
    fn from_model(model: M) -> Self {
        T::from(model)
    }
}

/// One field of a PATCH (or optional create) body: not sent, sent as `null`, or sent with a value.
///
/// ```
/// use viewset_core::schema::Patch;
/// #[derive(serde::Deserialize)]
/// struct Body { #[serde(default)] rating: Patch<f64> }
/// let b: Body = serde_json::from_str(r#"{"rating": null}"#).unwrap();
/// assert!(b.rating.is_null());
/// let b: Body = serde_json::from_str("{}").unwrap();
/// assert!(b.rating.is_missing());
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Patch<T> {
    /// The key was absent: leave the column as it is.
    #[default]
    Missing,
    /// The key was `null`.
    Null,
    /// The key had a value.
    Value(T),
}

impl<T> Patch<T> {
    /// Absent from the body.
    pub fn is_missing(&self) -> bool {
        matches!(self, Patch::Missing)
    }
    /// Sent as `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Patch::Null)
    }
    /// The value, when one was sent.
    pub fn value(&self) -> Option<&T> {
        match self {
            Patch::Value(v) => Some(v),
            _ => None,
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Patch<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(deserializer)? {
            Some(v) => Patch::Value(v),
            None => Patch::Null,
        })
    }
}
