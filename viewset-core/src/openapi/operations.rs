//! The operations of one ViewSet.

use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{AdditionalProperties, ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Content, PathItem, Paths, RefOr, Required, ResponseBuilder};

use super::bulk;
use super::conditional::{self, with_etag};
use super::embedded::{expand_parameter, with_embedded};
use super::filters::{fields_parameter, list_parameters};
use super::responses::{with_common_errors, with_security};
use super::retries;
use super::shapes::{component, envelope, validation_error};
use crate::access::operation::Operation;
use crate::registration::paths::operation_id;
use crate::schema::{CreateSchema, UpdateSchema};
use crate::viewset::hooks::Hooks;
use crate::viewset::paginator::Paginator;

const JSON: &str = "application/json";

fn response(description: &str, schema: RefOr<Schema>) -> utoipa::openapi::Response {
    ResponseBuilder::new().description(description).content(JSON, Content::new(Some(schema))).build()
}

/// An operation with its tags, id, summary, security (told by `permission_classes` for `operation`; optional when
/// it cannot be told) and the error responses every generated route can give (and a body's, when it reads one).
fn operation<V: Hooks>(id: String, summary: &str, operation: Option<Operation>, reads_body: bool) -> OperationBuilder {
    let mut op = OperationBuilder::new()
        .operation_id(Some(id))
        .summary(Some(summary))
        .response("403", response("Permission denied.", component("Error")));
    for tag in V::CONFIG.tags {
        op = op.tag(*tag);
    }
    with_security::<V>(with_common_errors(op, reads_body), operation)
}

/// The `operationId` of a CRUD or stream operation: the name of its AI tool too.
fn crud_id<V: Hooks>(handler: &str) -> String {
    operation_id(&V::basename(), handler, "", 1)
}

/// A read schema as `V` answers it: fields in `staff_only_fields` are absent for other callers, so not required.
fn read<V: Hooks>(schema: RefOr<Schema>) -> RefOr<Schema> {
    match schema {
        RefOr::T(Schema::Object(mut object)) => {
            object.required.retain(|field| !V::CONFIG.staff_only_fields.contains(&field.as_str()));
            RefOr::T(Schema::Object(object))
        }
        other => other,
    }
}

/// A read schema of list and retrieve: `?fields=` may leave any field out, so none is required.
fn sparse(schema: RefOr<Schema>) -> RefOr<Schema> {
    match schema {
        RefOr::T(Schema::Object(mut object)) => {
            object.required.clear();
            let note = "Every field the caller may see is present unless `fields` names a subset.";
            object.description = Some(object.description.map_or_else(|| note.to_string(), |d| format!("{d} {note}")));
            RefOr::T(Schema::Object(object))
        }
        other => other,
    }
}

/// A body schema as the server parses it: an object schema that does not say whether other keys are allowed is
/// closed (`additionalProperties: false`), as the derived bodies refuse unknown fields with a 422.
fn closed(schema: RefOr<Schema>) -> RefOr<Schema> {
    match schema {
        RefOr::T(Schema::Object(mut object)) if object.additional_properties.is_none() => {
            object.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(false)));
            RefOr::T(Schema::Object(object))
        }
        other => other,
    }
}

fn pk_parameter<V: Hooks>() -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name("pk")
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .schema(Some(V::lookup_schema()))
        .description(Some(format!("The record's `{}`.", V::CONFIG.lookup_field)))
        .build()
}

fn body(schema: RefOr<Schema>) -> Option<utoipa::openapi::request_body::RequestBody> {
    Some(RequestBodyBuilder::new().required(Some(Required::True)).content(JSON, Content::new(Some(schema))).build())
}

/// The list's 200: the JSON page, or (`Accept: text/csv`, `?format=csv`) the same page's records as CSV.
fn list_response<V: Hooks>() -> utoipa::openapi::Response {
    let page = envelope(V::Pagination::RESPONSE_FIELDS, sparse(with_embedded::<V>(V::list_item_schema())));
    let csv = ObjectBuilder::new().schema_type(Type::String).description(Some(
        "RFC 4180 CSV of this page's records: a header row of the fields the JSON records carry (in their order), \
         then one row per record; `null` is empty, nested values are JSON text.",
    ));
    ResponseBuilder::new()
        .description("One page (as CSV with `Accept: text/csv` or `?format=csv`).")
        .content(JSON, Content::new(Some(page)))
        .content("text/csv", Content::new(Some(RefOr::T(Schema::Object(csv.build())))))
        .build()
}

/// Every path of `V`: the CRUD routes and the custom actions.
pub fn viewset_paths<V: Hooks>() -> Paths {
    let prefix = V::prefix();
    let base = crate::registration::paths::base(&prefix);
    let mut paths = Paths::new();
    let list = operation::<V>(crud_id::<V>("list"), "List records", Some(Operation::List), false)
        .parameters(Some(list_parameters::<V>()))
        .response("200", list_response::<V>())
        .response("422", response("Invalid query parameter.", component("InputValidationError")));
    let records = "Records to create, all or none (`bulk`).";
    let create = operation::<V>(crud_id::<V>("create"), "Create a record", Some(Operation::Create), true)
        .request_body(body(bulk::one_or_many::<V>(closed(V::Create::openapi_schema()), records)));
    let created = bulk::one_or_many::<V>(read::<V>(V::detail_schema()), "The created records, in request order.");
    let created = bulk::or_upserted::<V>(created, read::<V>(V::detail_schema()));
    let created = with_etag(response(bulk::created_description::<V>(), created));
    let mut create = retries::create(create, created);
    if let Some(on_conflict) = bulk::on_conflict_parameter::<V>() {
        let upserted = bulk::upserted(read::<V>(V::detail_schema()));
        create = create
            .parameter(on_conflict)
            .response("200", response("Upserted, every row's key existed: updated or ignored.", upserted))
            .response("404", response("A key is held by a record the caller may not see.", component("Error")));
    }
    paths.add_path_operation(crate::registration::paths::collection(base), vec![HttpMethod::Get], list);
    paths.add_path_operation(crate::registration::paths::collection(base), vec![HttpMethod::Post], create);
    if V::CONFIG.bulk.update {
        let summary = "Update the sent fields of many records";
        let op = operation::<V>(crud_id::<V>("update_many"), summary, Some(Operation::Update), true)
            .request_body(body(bulk::update_rows::<V>(closed(V::Update::openapi_schema()))))
            .response("404", response("A row names no record visible to the caller.", component("Error")));
        let updated = ArrayBuilder::new().items(read::<V>(V::detail_schema())).into();
        let op =
            retries::update_many(bulk::update_description(op), response("The records, in request order.", updated));
        paths.add_path_operation(crate::registration::paths::collection(base), vec![HttpMethod::Patch], op);
    }
    if V::CONFIG.bulk.delete {
        let op = operation::<V>(crud_id::<V>("delete_many"), "Delete many records", Some(Operation::Delete), false);
        let op = bulk::delete_description(op)
            .parameter(bulk::keys_parameter::<V>())
            .response("200", response("Deletion confirmation: how many, and their primary keys.", bulk::deleted_many()))
            .response("400", response("Invalid identifier, or a record is still referenced.", component("Error")))
            .response("404", response("A key names no record visible to the caller.", component("Error")))
            .response("422", response("Missing keys, another parameter, or too many keys.", validation_error()));
        paths.add_path_operation(crate::registration::paths::collection(base), vec![HttpMethod::Delete], op);
    }

    let detail = crate::registration::paths::detail(base);
    let not_found = || response("No such record, or not visible to the caller.", component("Error"));
    let invalid_id = || response("Invalid identifier.", component("Error"));
    let mut retrieve = operation::<V>(crud_id::<V>("retrieve"), "Retrieve a record", Some(Operation::Retrieve), false)
        .parameter(pk_parameter::<V>())
        .parameter(fields_parameter::<V>());
    if let Some(expand) = expand_parameter::<V>() {
        retrieve = retrieve.parameter(expand);
    }
    let retrieve = retrieve
        .response("200", with_etag(response("The record.", sparse(with_embedded::<V>(V::detail_schema())))))
        .response("400", invalid_id())
        .response("404", not_found())
        .response("422", response("Invalid query parameter.", component("InputValidationError")));
    let update =
        operation::<V>(crud_id::<V>("update"), "Update the sent fields of a record", Some(Operation::Update), true)
            .parameter(pk_parameter::<V>())
            .request_body(body(closed(V::Update::openapi_schema())))
            .response("404", not_found());
    let updated = with_etag(response("The updated record.", read::<V>(V::detail_schema())));
    let update = retries::update(update, updated);
    let deleted = ObjectBuilder::new()
        .property("deleted", ObjectBuilder::new().schema_type(Type::Boolean))
        .required("deleted")
        .property("id", V::lookup_schema())
        .required("id");
    let delete = operation::<V>(crud_id::<V>("delete"), "Delete a record", Some(Operation::Delete), false)
        .parameter(pk_parameter::<V>())
        .response("200", response("Deletion confirmation.", deleted.into()))
        .response("400", response("Invalid identifier, or the record is still referenced.", component("Error")))
        .response("404", not_found());
    let required = V::require_if_match();
    paths.add_path_operation(&detail, vec![HttpMethod::Get], conditional::read(retrieve));
    paths.add_path_operation(&detail, vec![HttpMethod::Patch], conditional::write(update, required));
    paths.add_path_operation(&detail, vec![HttpMethod::Delete], conditional::write(delete, required));

    if V::CONFIG.stream_enabled {
        let events = ResponseBuilder::new()
            .description("Server-sent events: `ready`, then `created`, `updated`, `deleted` (and `reset`).")
            .content("text/event-stream", Content::new(Some(ObjectBuilder::new().schema_type(Type::String))))
            .build();
        let stream =
            operation::<V>(crud_id::<V>("stream"), "Stream record lifecycle events", Some(Operation::Stream), false)
                .parameter(fields_parameter::<V>())
                .response("200", events)
                .response("422", response("Invalid query parameter.", component("InputValidationError")));
        paths.add_path_operation(crate::registration::paths::stream(base), vec![HttpMethod::Get], stream);
    }
    for action in V::actions() {
        let path = crate::registration::paths::action(base, action.detail, action.path);
        for method in action.methods {
            let returns = action.response_schema.map_or_else(any_value, |schema| schema());
            // An action's own permission_classes are not known here: its security is documented as optional.
            let id = operation_id(&V::basename(), action.name, method, action.methods.len());
            let mut op = operation::<V>(id, action.name, None, action.request_schema.is_some())
                .description((!action.doc.is_empty()).then_some(action.doc))
                .response("200", response("The action's own response.", returns))
                .response("400", response("Invalid identifier, or the action's own refusal.", component("Error")));
            if let Some(schema) = action.request_schema {
                op = op.request_body(body(schema())).response("422", response("Invalid body.", validation_error()));
            }
            if action.detail {
                op = op.parameter(pk_parameter::<V>()).response("404", not_found());
            }
            paths.add_path_operation(&path, vec![http_method(method)], op);
        }
    }
    paths
}

/// A schema any JSON value satisfies.
fn any_value() -> RefOr<Schema> {
    ObjectBuilder::new().schema_type(utoipa::openapi::schema::SchemaType::AnyValue).into()
}

fn http_method(method: &str) -> HttpMethod {
    match method {
        "POST" => HttpMethod::Post,
        "PUT" => HttpMethod::Put,
        "PATCH" => HttpMethod::Patch,
        "DELETE" => HttpMethod::Delete,
        "HEAD" => HttpMethod::Head,
        "OPTIONS" => HttpMethod::Options,
        _ => HttpMethod::Get,
    }
}

/// A path item for hand-written routes merged into the document.
pub fn manual_path_item(method: HttpMethod, summary: &str) -> PathItem {
    PathItem::new(
        method,
        OperationBuilder::new().summary(Some(summary)).response("200", ResponseBuilder::new().description("OK")),
    )
}
