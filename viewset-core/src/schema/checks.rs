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
