//! The detail identifier `{pk}`: parsed into the lookup field's own Rust type, so the bound value always matches
//! the column (an `i64` bound to an `INTEGER` key fails on PostgreSQL).

use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use sea_orm::Value;
use serde::de::DeserializeOwned;

use crate::contract::viewset::ViewSet;
use crate::error::ApiError;

/// A parsed detail identifier: the raw path segment and the typed value.
#[derive(Debug, Clone, PartialEq)]
pub struct Lookup {
    /// The path segment as sent.
    pub raw: String,
    /// The value, of the lookup field's type.
    pub value: Value,
}

impl Lookup {
    /// Parses a detail identifier for `V` (400 when it is not one).
    ///
    /// ```
    /// # mod post { use sea_orm::entity::prelude::*;
    /// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
    /// #   #[sea_orm(table_name = "posts")]
    /// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
    /// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
    /// #   impl ActiveModelBehavior for ActiveModel {} }
    /// use viewset_core::{ModelViewSet, access::Lookup};
    /// #[derive(ModelViewSet)]
    /// #[viewset(model = post::Entity)]
    /// pub struct Posts;
    /// assert_eq!(Lookup::parse::<Posts>("7").unwrap().value, sea_orm::Value::Int(Some(7)));
    /// assert!(Lookup::parse::<Posts>("seven").is_err());
    /// ```
    pub fn parse<V: ViewSet>(raw: &str) -> Result<Lookup, ApiError> {
        Ok(Lookup { value: V::lookup_value(raw)?, raw: raw.to_string() })
    }

    /// The `{pk}` segment of a detail route (400 when it is missing or not an identifier of `V`).
    pub fn from_path<V: ViewSet>(path: Result<Path<String>, PathRejection>) -> Result<Lookup, ApiError> {
        let Path(raw) = path.map_err(|e| ApiError::InvalidId(e.body_text()))?;
        Ok(Lookup { value: V::lookup_value(&raw)?, raw })
    }
}

impl std::fmt::Display for Lookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.raw)
    }
}

/// Parses `raw` as the type of the field `field` selects (the closure only names the type).
///
/// ```
/// struct Model { id: i32 }
/// let v = viewset_core::__private::parse_lookup(" 7", |m: &Model| &m.id);
/// assert!(v.is_err()); // whitespace is not an id
/// let v = viewset_core::__private::parse_lookup("7", |m: &Model| &m.id).unwrap();
/// assert_eq!(v, sea_orm::Value::Int(Some(7)));
/// struct Tagged { slug: String }
/// let v = viewset_core::__private::parse_lookup("2024", |m: &Tagged| &m.slug).unwrap();
/// assert_eq!(v, sea_orm::Value::String(Some("2024".into())));
/// ```
pub fn parse_lookup<M, T, F>(raw: &str, field: F) -> Result<Value, ApiError>
where
    F: Fn(&M) -> &T,
    T: DeserializeOwned + Into<Value>,
{
    let _ = field;
    let invalid = || ApiError::InvalidId(format!("`{raw}` is not a valid identifier for this resource."));
    if raw.is_empty() || raw.trim() != raw {
        return Err(invalid());
    }
    // Numbers and booleans parse as JSON scalars (tried first only when the segment looks like one, so the common
    // integer key is one parse); strings (slugs, UUIDs, digits of a text key) from the segment as it is.
    let scalar_like = raw.starts_with(|c: char| c.is_ascii_digit() || c == '-') || raw == "true" || raw == "false";
    let as_text = || serde_json::from_value::<T>(serde_json::Value::String(raw.to_string()));
    let parsed = if scalar_like { serde_json::from_str(raw).or_else(|_| as_text()) } else { as_text() };
    parsed.map(Into::into).map_err(|_| invalid())
}
