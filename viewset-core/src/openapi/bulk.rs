//! The bulk writes and the upsert in the document, each an operation of its own with exact bodies and answers:
//! `POST <prefix>/bulk` (`<basename>_create_many`: an array of create bodies, the records in request order),
//! `PATCH <prefix>/bulk` (`_update_many`: an array of partial records with their keys), `DELETE <prefix>/bulk`
//! (`_delete_many`: its `<lookup>__in` parameter) with `#[viewset(bulk)]`, and `POST <prefix>/upsert`
//! (`_upsert`: `on_conflict`, `Prefer: resolution=`, the upsert's answer) with `upsert_keys`.

use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{Paths, RefOr, Required};

use super::doc::Doc;
use super::operations::{body, closed, crud_id, operation, read, response};
use super::retries;
use super::shapes::{component, validation_error};
use crate::contract::paths;
use crate::types::operation::Operation;

/// The bulk operations and the upsert `doc`'s ViewSet declares, on `paths`.
pub(super) fn add_paths(doc: &Doc, out: &mut Paths) {
    let bulk = paths::bulk(paths::base(&doc.prefix));
    if doc.config.bulk.create {
        let summary = "Create many records";
        let op = operation(doc, crud_id(doc, "create_many"), summary, Some(Operation::Create), true)
            .description(Some(
                "Creates every record or none, in one transaction: each row passes what a single \
                create checks; the input errors of every row are one 422 at `[\"body\", \"<index>\", …]`.",
            ))
            .request_body(body(many(doc, closed(doc.create.clone()), "Records to create, all or none.")));
        let created = many(doc, read(doc, doc.detail.clone()), "The created records, in request order.");
        let created = response("Created: the records (no body with `Prefer: return=minimal`).", created);
        out.add_path_operation(&bulk, vec![HttpMethod::Post], retries::create_many(op, created));
    }
    if doc.config.bulk.update {
        let summary = "Update the sent fields of many records";
        let op = operation(doc, crud_id(doc, "update_many"), summary, Some(Operation::Update), true)
            .request_body(body(update_rows(doc, closed(doc.update.clone()))))
            .response("404", response("A row names no record visible to the caller.", component("Error")));
        let updated = ArrayBuilder::new().items(read(doc, doc.detail.clone())).into();
        let op = retries::update_many(update_description(op), response("The records, in request order.", updated));
        out.add_path_operation(&bulk, vec![HttpMethod::Patch], op);
    }
    if doc.config.bulk.delete {
        let op = operation(doc, crud_id(doc, "delete_many"), "Delete many records", Some(Operation::Delete), false);
        let op = delete_description(op)
            .parameter(keys_parameter(doc))
            .response("200", response("Deletion confirmation: how many, and their primary keys.", deleted_many()))
            .response("400", response("Invalid identifier, or a record is still referenced.", component("Error")))
            .response("404", response("A key names no record visible to the caller.", component("Error")))
            .response("422", response("Missing keys, another parameter, or too many keys.", validation_error()));
        out.add_path_operation(&bulk, vec![HttpMethod::Delete], op);
    }
    if let Some(on_conflict) = on_conflict_parameter(doc) {
        let summary = "Create or update records by a unique key";
        let row = keyed(doc, closed(doc.create.clone()));
        let max = if doc.config.bulk.create { doc.config.bulk.max } else { 1 };
        let rows = ArrayBuilder::new()
            .items(row)
            .min_items(Some(1))
            .max_items(Some(max))
            .description(Some("Records to upsert, all or none (more than one with `bulk(create)`)."))
            .into();
        let op = operation(doc, crud_id(doc, "upsert"), summary, Some(Operation::Create), true)
            .parameter(on_conflict)
            .request_body(body(rows))
            .response("404", response("A key is held by a record the caller may not see.", component("Error")));
        let upserted = upserted(read(doc, doc.detail.clone()));
        let op = retries::upsert(op, upserted);
        out.add_path_operation(paths::upsert(paths::base(&doc.prefix)), vec![HttpMethod::Post], op);
    }
}

/// An upsert's row: the create body with its key required and not null, when the ViewSet declares one key (with
/// several, `on_conflict` names the one each row must carry, which a schema cannot relate).
fn keyed(doc: &Doc, row: RefOr<Schema>) -> RefOr<Schema> {
    let (RefOr::T(Schema::Object(mut object)), [key]) = (row.clone(), doc.config.bulk.upsert_keys) else { return row };
    if let Some(RefOr::T(Schema::OneOf(nullable))) = object.properties.get(*key) {
        let not_null = nullable.items.iter().find(|item| !is_null(item)).cloned();
        if let Some(not_null) = not_null {
            object.properties.insert(key.to_string(), not_null);
        }
    }
    if !object.required.iter().any(|name| name == key) {
        object.required.push(key.to_string());
    }
    RefOr::T(Schema::Object(object))
}

/// Whether `schema` is `{"type": "null"}`.
fn is_null(schema: &RefOr<Schema>) -> bool {
    matches!(schema, RefOr::T(Schema::Object(object)) if object.schema_type == Type::Null.into())
}

/// An array of 1 to `max_bulk` `single`s.
fn many(doc: &Doc, single: RefOr<Schema>, description: &str) -> RefOr<Schema> {
    ArrayBuilder::new()
        .items(single)
        .min_items(Some(1))
        .max_items(Some(doc.config.bulk.max))
        .description(Some(description))
        .into()
}

/// The bulk update's body: an array of 1 to `max_bulk` PATCH bodies (`patch`, a closed object schema), each with
/// the lookup field, required.
fn update_rows(doc: &Doc, patch: RefOr<Schema>) -> RefOr<Schema> {
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
fn update_description(op: OperationBuilder) -> OperationBuilder {
    op.description(Some(
        "Updates every named record or none, in one transaction: the records are read with their rows locked through \
         the caller's row policies, then each row is validated and written as a single PATCH writes it (one \
         `UPDATE … RETURNING` per row). A row naming no record the caller may see is a 404 naming it (`index`, \
         `key`); object permissions: 403; the input errors of every row: one 422 at `[\"body\", \"<index>\", …]`. \
         One `updated` event per changed record.",
    ))
}

/// The `<lookup>__in` parameter of the bulk delete.
fn keys_parameter(doc: &Doc) -> utoipa::openapi::path::Parameter {
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
fn deleted_many() -> RefOr<Schema> {
    let any = ObjectBuilder::new().schema_type(SchemaType::AnyValue);
    ObjectBuilder::new()
        .property("deleted", ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1)))
        .required("deleted")
        .property("ids", ArrayBuilder::new().items(any))
        .required("ids")
        .into()
}

/// `op` with the bulk delete's summary of what it refuses.
fn delete_description(op: OperationBuilder) -> OperationBuilder {
    op.description(Some(
        "Deletes every named record or none, in one transaction. A key naming no record the caller may see is a 404 \
         naming it (`key`); a record still referenced by others is a 400 `foreign_key_violation`.",
    ))
}

/// The `on_conflict` parameter of the upsert: which unique key decides that a record exists (required when the
/// ViewSet declares more than one); `None` without `upsert_keys`.
fn on_conflict_parameter(doc: &Doc) -> Option<utoipa::openapi::path::Parameter> {
    let keys = doc.config.bulk.upsert_keys;
    if keys.is_empty() {
        return None;
    }
    let schema = ObjectBuilder::new().schema_type(Type::String).enum_values(Some(keys.iter().copied()));
    let required = if keys.len() > 1 { Required::True } else { Required::False };
    Some(
        ParameterBuilder::new()
            .name("on_conflict")
            .parameter_in(ParameterIn::Query)
            .required(required)
            .schema(Some(schema))
            .description(Some(
                "The unique field that says a record exists (may be left out when there is one). A record whose \
                 key exists is updated (which needs the `update` permission and passes PATCH's checks), or left as \
                 it is with `Prefer: resolution=ignore-duplicates`. A key held by a record the caller may not see \
                 is a 404 naming it, and nothing is written.",
            ))
            .build(),
    )
}

/// The upsert's answer (201 when a row was created, otherwise 200).
fn upserted(record: RefOr<Schema>) -> RefOr<Schema> {
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
        .description(Some("An upsert's answer: the rows by index, and their records."))
        .into()
}
