//! The OpenAPI schema of a model field's Rust type.

use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::{RefOr, schema::ArrayBuilder};

/// A field type with an OpenAPI schema. Implemented for the usual column types; implement it for your own
/// (an active enum, a newtype) to use them in a `#[derive(ModelSchema)]` model.
///
/// ```
/// use viewset_core::openapi::FieldSchema;
/// let schema = serde_json::to_value(<Option<i32> as FieldSchema>::field_schema()).unwrap();
/// assert!(schema.to_string().contains("null"));
/// ```
#[diagnostic::on_unimplemented(
    message = "field type `{Self}` has no OpenAPI schema",
    note = "implement `viewset_core::openapi::FieldSchema` for `{Self}` to use it in a `#[derive(ModelSchema)]` model"
)]
pub trait FieldSchema {
    /// The schema.
    fn field_schema() -> RefOr<Schema>;
}

fn typed(ty: Type, format: Option<KnownFormat>) -> RefOr<Schema> {
    ObjectBuilder::new().schema_type(ty).format(format.map(SchemaFormat::KnownFormat)).into()
}

macro_rules! field_schema {
    ($($t:ty => $ty:expr, $format:expr;)*) => {$(
        impl FieldSchema for $t {
            fn field_schema() -> RefOr<Schema> {
                typed($ty, $format)
            }
        }
    )*};
}

field_schema! {
    bool => Type::Boolean, None;
    i8 => Type::Integer, None;
    i16 => Type::Integer, None;
    i32 => Type::Integer, Some(KnownFormat::Int32);
    i64 => Type::Integer, Some(KnownFormat::Int64);
    u8 => Type::Integer, None;
    u16 => Type::Integer, None;
    u32 => Type::Integer, None;
    u64 => Type::Integer, None;
    f32 => Type::Number, Some(KnownFormat::Float);
    f64 => Type::Number, Some(KnownFormat::Double);
    String => Type::String, None;
    char => Type::String, None;
    chrono::DateTime<chrono::Utc> => Type::String, Some(KnownFormat::DateTime);
    chrono::DateTime<chrono::FixedOffset> => Type::String, Some(KnownFormat::DateTime);
    chrono::NaiveDateTime => Type::String, Some(KnownFormat::DateTime);
    chrono::NaiveDate => Type::String, Some(KnownFormat::Date);
    chrono::NaiveTime => Type::String, None;
    sea_orm::prelude::Uuid => Type::String, Some(KnownFormat::Uuid);
}

/// A decimal is a JSON string (`"9.99"`), as `rust_decimal`'s serde writes it by default and as Django REST
/// framework renders decimals: exact, where a JSON number would pass through a binary float in most clients. A body
/// may send a JSON number too (`9.99`), which serde accepts; responses always carry the string.
///
/// ```
/// use viewset_core::openapi::FieldSchema;
/// let schema = serde_json::to_value(<sea_orm::prelude::Decimal as FieldSchema>::field_schema()).unwrap();
/// assert_eq!((schema["type"].as_str(), schema["format"].as_str()), (Some("string"), Some("decimal")));
/// ```
impl FieldSchema for sea_orm::prelude::Decimal {
    fn field_schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::Custom("decimal".into())))
            .pattern(Some(DECIMAL_PATTERN))
            .description(Some("A decimal number as a string, e.g. \"9.99\" (a JSON number is accepted on writes)."))
            .examples(["9.99"])
            .into()
    }
}

/// The text of a decimal as responses write it (and as the query string takes it).
pub(crate) const DECIMAL_PATTERN: &str = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$";

impl FieldSchema for serde_json::Value {
    fn field_schema() -> RefOr<Schema> {
        ObjectBuilder::new().into()
    }
}

impl FieldSchema for Vec<u8> {
    fn field_schema() -> RefOr<Schema> {
        ArrayBuilder::new().items(typed(Type::Integer, None)).into()
    }
}

impl<T: FieldSchema> FieldSchema for Option<T> {
    fn field_schema() -> RefOr<Schema> {
        OneOfBuilder::new().item(ObjectBuilder::new().schema_type(Type::Null)).item(T::field_schema()).into()
    }
}
