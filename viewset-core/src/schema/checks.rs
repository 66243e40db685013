//! Type assertions the derive's generated code makes, so rustc reports a wrong field at the user's token.

/// A column type that `search_fields` can match with a substring.
#[diagnostic::on_unimplemented(
    message = "search field has type `{Self}`, which is not a text column",
    label = "`search_fields` accepts only text (`String`) columns",
    note = "filter numbers with `filterable_fields` and lookups such as `views__gte=10`"
)]
pub trait TextColumn {}
impl TextColumn for String {}
impl TextColumn for Option<String> {}

/// Compiles only when `T` is a text column type (the derive names it through [`crate::schema::names::Gate`]).
pub fn assert_text_type<T: TextColumn + ?Sized>() {}

/// The OpenAPI schema of the field the closure selects (the closure only names the type).
pub fn schema_of<M, T: crate::types::field_schema::FieldSchema, F: Fn(&M) -> &T>(
    field: F,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    let _ = field;
    T::field_schema()
}

/// A column type `aggregates(sum = [...], avg = [...])` can add up.
#[diagnostic::on_unimplemented(
    message = "aggregate field has type `{Self}`, which is not numeric",
    label = "`sum` and `avg` accept only numeric fields (integers, floats, decimals)",
    note = "count values of any field with `count_distinct`; group by it with `group_by`"
)]
pub trait NumericColumn {}

/// A column type `aggregates(min = [...], max = [...])` can order.
#[diagnostic::on_unimplemented(
    message = "aggregate field has type `{Self}`, which has no order for `min` and `max`",
    label = "`min` and `max` accept numbers, text, dates and times",
    note = "count its values with `count_distinct`, or group by it with `group_by`"
)]
pub trait OrderedColumn {}

macro_rules! columns {
    ($trait:ident: $($t:ty),*) => { $(impl $trait for $t {} impl $trait for Option<$t> {})* };
}
columns!(NumericColumn: i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, sea_orm::prelude::Decimal);
columns!(OrderedColumn: i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, sea_orm::prelude::Decimal, String,
    chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::FixedOffset>, chrono::NaiveDateTime, chrono::NaiveDate,
    chrono::NaiveTime);

/// Compiles only when `T` is a numeric column type (`sum`, `avg`; named through [`crate::schema::names::Gate`]).
pub fn assert_numeric_type<T: NumericColumn + ?Sized>() {}

/// Compiles only when `T` is a column type with an order (`min`, `max`).
pub fn assert_ordered_type<T: OrderedColumn + ?Sized>() {}
