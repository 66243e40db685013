//! The bulk writes in the document (`#[viewset(bulk)]`): the create body and its 201 as one record or an array of
//! them (`oneOf`, the object first), `PATCH <prefix>/` with its array of partial records, `DELETE <prefix>/` with
//! its `<lookup>__in` parameter, and the upsert of a ViewSet with `upsert_keys` (`on_conflict`, its answer).

use utoipa::openapi::path::{OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{RefOr, Required};

use super::doc::Doc;

/// `single` (a create body, or the record a create answers) as `V` accepts it: with `bulk(create)`, one of that
/// object or an array of 1 to `max_bulk` of them; otherwise `single` itself.
pub(super) fn one_or_many(doc: &Doc, single: RefOr<Schema>, description: &str) -> RefOr<Schema> {
    if !doc.config.bulk.create {
        return single;
    }
    let many = ArrayBuilder::new()
        .items(single.clone())
        .min_items(Some(1))
        .max_items(Some(doc.config.bulk.max))
        .description(Some(description));
    RefOr::T(Schema::OneOf(OneOfBuilder::new().item(single).item(many).build()))
}

/// The description of the create's 201.
pub(super) fn created_description(doc: &Doc) -> &'static str {
    if !doc.config.bulk.upsert_keys.is_empty() {
        "Created: the record, or for an array body the records in request order (no body with `Prefer: \
         return=minimal`); an upsert (`on_conflict`) answers which rows were created, updated or ignored."
    } else if doc.config.bulk.create {
        "Created: the record, or for an array body the records in request order (no body with `Prefer: \
         return=minimal`)."
    } else {
        "Created: the record (no body with `Prefer: return=minimal`)."
    }
}

/// The bulk update's body: an array of 1 to `max_bulk` PATCH bodies (`patch`, a closed object schema), each with
/// the lookup field, required.
pub(super) fn update_rows(doc: &Doc, patch: RefOr<Schema>) -> RefOr<Schema> {
    let lookup = doc.config.lookup_field;
    let row = match patch {
        RefOr::T(Schema::Object(mut object)) => {
            let described = match doc.lookup.clone() {
                RefOr::T(Schema::Object(mut key)) => {
                    key.description = Some(format!("The record to update (its `{lookup}`); not written."));
                    RefOr::T(Schema::Object(key))
                }
                other => other,
            };
            object.properties.insert(lookup.to_string(), described);
            if !object.required.iter().any(|name| name == lookup) {
                object.required.insert(0, lookup.to_string());
            }
            RefOr::T(Schema::Object(object))
        }
        other => other,
    };
    ArrayBuilder::new()
        .items(row)
        .min_items(Some(1))
        .max_items(Some(doc.config.bulk.max))
        .description(Some(format!(
            "Partial records, each naming its record by `{lookup}` (each record once): every record or none is \
             updated."
        )))
        .into()
}

/// `op` with the bulk update's summary of what it refuses.
pub(super) fn update_description(op: OperationBuilder) -> OperationBuilder {
    op.description(Some(
        "Updates every named record or none, in one transaction: the records are read with their rows locked through \
         the caller's row policies, then each row is validated and written as a single PATCH writes it (one \
         `UPDATE … RETURNING` per row). A row naming no record the caller may see is a 404 naming it (`index`, \
         `key`); object permissions: 403; the input errors of every row: one 422 at `[\"body\", \"<index>\", …]`. \
         One `updated` event per changed record.",
    ))
}

/// The `<lookup>__in` parameter of the bulk delete.
pub(super) fn keys_parameter(doc: &Doc) -> utoipa::openapi::path::Parameter {
    let lookup = doc.config.lookup_field;
    let max = doc.config.bulk.max;
    ParameterBuilder::new()
        .name(format!("{lookup}__in"))
        .parameter_in(ParameterIn::Query)
        .required(Required::True)
        .schema(Some(ObjectBuilder::new().schema_type(Type::String).min_length(Some(1))))
        .description(Some(format!(
            "The `{lookup}` of each record to delete, separated by commas (`1,2,3`), at most {max}. The only \
             parameter: a bulk delete never deletes by filter."
        )))
        .build()
}

/// The bulk delete's 200 body: how many records were deleted, and their primary keys.
pub(super) fn deleted_many() -> RefOr<Schema> {
    let any = ObjectBuilder::new().schema_type(SchemaType::AnyValue);
    ObjectBuilder::new()
        .property("deleted", ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1)))
        .required("deleted")
        .property("ids", ArrayBuilder::new().items(any))
        .required("ids")
        .into()
}

/// `op` with the bulk delete's summary of what it refuses.
pub(super) fn delete_description(op: OperationBuilder) -> OperationBuilder {
    op.description(Some(
        "Deletes every named record or none, in one transaction. A key naming no record the caller may see is a 404 \
         naming it (`key`); a record still referenced by others is a 400 `foreign_key_violation`.",
    ))
}

/// The `on_conflict` parameter of a create with `upsert_keys`: which unique key decides that a record exists.
pub(super) fn on_conflict_parameter(doc: &Doc) -> Option<utoipa::openapi::path::Parameter> {
    let keys = doc.config.bulk.upsert_keys;
    if keys.is_empty() {
        return None;
    }
    let schema = ObjectBuilder::new().schema_type(Type::String).enum_values(Some(keys.iter().copied()));
    Some(
        ParameterBuilder::new()
            .name("on_conflict")
            .parameter_in(ParameterIn::Query)
            .required(Required::False)
            .schema(Some(schema))
            .description(Some(
                "Upsert: the unique field that says a record exists (may be left out when there is one). Needs \
                 `Prefer: resolution=merge-duplicates` (the existing record is updated, which needs the `update` \
                 permission and passes PATCH's checks) or `Prefer: resolution=ignore-duplicates` (it is left as it \
                 is); without one the request is a plain create (an existing key: 409). A key held by a record the caller may not see is a 404 naming it, and \
                 nothing is written.",
            ))
            .build(),
    )
}

/// `created` (the create's answer) with the upsert's answer beside it when `V` has `upsert_keys`: which rows were
/// created, updated or ignored (row indices), and each row's record in request order (`null` when ignored).
pub(super) fn or_upserted(doc: &Doc, created: RefOr<Schema>, record: RefOr<Schema>) -> RefOr<Schema> {
    if doc.config.bulk.upsert_keys.is_empty() {
        return created;
    }
    RefOr::T(Schema::OneOf(OneOfBuilder::new().item(created).item(upserted(record)).build()))
}

/// The upsert's answer (201 when a row was created, otherwise 200).
pub(super) fn upserted(record: RefOr<Schema>) -> RefOr<Schema> {
    let indices = || ArrayBuilder::new().items(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)));
    let nullable = OneOfBuilder::new().item(record).item(ObjectBuilder::new().schema_type(Type::Null));
    ObjectBuilder::new()
        .property("created", indices())
        .required("created")
        .property("updated", indices())
        .required("updated")
        .property("ignored", indices())
        .required("ignored")
        .property("records", ArrayBuilder::new().items(nullable))
        .required("records")
        .description(Some("An upsert's answer (`Prefer: resolution=...`): the rows by index, and their records."))
        .into()
}
