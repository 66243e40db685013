//! The operations of one ViewSet.

use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Content, PathItem, Paths, RefOr, Required, ResponseBuilder};

use super::bulk;
use super::conditional::{self, with_etag};
use super::doc::Doc;
use super::embedded::{expand_parameter, with_embedded, with_written};
use super::filters::{fields_parameter, list_parameters};
use super::responses::{with_common_errors, with_security};
use super::retries;
use super::shapes::{component, envelope, validation_error};
use crate::contract::hooks::Hooks;
use crate::contract::paths::operation_id;
use crate::types::operation::Operation;

const JSON: &str = "application/json";

pub(super) fn response(description: &str, schema: RefOr<Schema>) -> utoipa::openapi::Response {
    ResponseBuilder::new().description(description).content(JSON, Content::new(Some(schema))).build()
}

/// An operation with its tags, id, summary, security (told by `permission_classes` for `operation`; optional when
/// it cannot be told) and the error responses every generated route can give (and a body's, when it reads one).
pub(super) fn operation(
    doc: &Doc,
    id: String,
    summary: &str,
    operation: Option<Operation>,
    reads_body: bool,
) -> OperationBuilder {
    let mut op = OperationBuilder::new()
        .operation_id(Some(id))
        .summary(Some(summary))
        .response("403", response("Permission denied.", component("Error")));
    for tag in doc.config.tags {
        op = op.tag(*tag);
    }
    with_security(doc, with_common_errors(op, reads_body), operation)
}

/// The `operationId` of a CRUD or stream operation: the name of its AI tool too.
pub(super) fn crud_id(doc: &Doc, handler: &str) -> String {
    operation_id(&doc.basename, handler, "", 1)
}

/// A read schema as `V` answers it: fields in `staff_only_fields` are absent for other callers, so not required.
pub(crate) fn read(doc: &Doc, schema: RefOr<Schema>) -> RefOr<Schema> {
    match schema {
        RefOr::T(Schema::Object(mut object)) => {
            object.required.retain(|field| !doc.config.staff_only_fields.contains(&field.as_str()));
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
/// closed (`additionalProperties: false`), as the derived bodies refuse unknown fields with a 422; and its string
/// fields refuse the NUL character (`string_nul`), which no database column stores alike.
pub(super) fn closed(schema: RefOr<Schema>) -> RefOr<Schema> {
    match schema {
        RefOr::T(Schema::Object(mut object)) => {
            if object.additional_properties.is_none() {
                object.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(false)));
            }
            for property in object.properties.values_mut() {
                without_nul(property);
            }
            RefOr::T(Schema::Object(object))
        }
        other => other,
    }
}

/// What a body's string refuses: the NUL character.
const NO_NUL: &str = "^[^\\u0000]*$";

/// `schema` (a field's, or the alternatives of a nullable one) with [`NO_NUL`] on a string that has no pattern.
fn without_nul(schema: &mut RefOr<Schema>) {
    match schema {
        RefOr::T(Schema::Object(field))
            if field.pattern.is_none() && field.format.is_none() && field.schema_type == Type::String.into() =>
        {
            field.pattern = Some(NO_NUL.to_string());
        }
        RefOr::T(Schema::OneOf(one_of)) => one_of.items.iter_mut().for_each(without_nul),
        _ => {}
    }
}

fn pk_parameter(doc: &Doc) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name("pk")
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .schema(Some(doc.lookup.clone()))
        .description(Some(format!("The record's `{}`.", doc.config.lookup_field)))
        .build()
}

pub(super) fn body(schema: RefOr<Schema>) -> Option<utoipa::openapi::request_body::RequestBody> {
    Some(RequestBodyBuilder::new().required(Some(Required::True)).content(JSON, Content::new(Some(schema))).build())
}

/// The list's 200: the JSON page, or (`Accept: text/csv`, `?format=csv`) the same page's records as CSV.
fn list_response(doc: &Doc) -> utoipa::openapi::Response {
    let page = envelope(doc.pagination_fields, sparse(with_embedded(doc, doc.list_item.clone())));
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
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, prefix = "/posts")]
/// pub struct Posts;
///
/// let paths = viewset_core::openapi::viewset_paths::<Posts>();
/// assert!(paths.paths.contains_key("/posts/{pk}"));
/// ```
pub fn viewset_paths<V: Hooks>() -> Paths {
    paths(&Doc::of::<V>())
}

/// Every path of the ViewSet `doc` describes.
fn paths(doc: &Doc) -> Paths {
    let base = crate::contract::paths::base(&doc.prefix);
    let mut paths = Paths::new();
    let list = operation(doc, crud_id(doc, "list"), "List records", Some(Operation::List), false)
        .parameters(Some(list_parameters(doc)))
        .response("200", list_response(doc))
        .response("422", response("Invalid query parameter.", component("InputValidationError")));
    let create = operation(doc, crud_id(doc, "create"), "Create a record", Some(Operation::Create), true)
        .request_body(body(super::nested::create_body(doc, closed(doc.create.clone()))));
    let created = "Created: the record (no body with `Prefer: return=minimal`).";
    let record = read(doc, with_written(doc, doc.detail.clone()));
    let create = retries::create(create, with_etag(response(created, record)));
    paths.add_path_operation(crate::contract::paths::collection(base), vec![HttpMethod::Get], list);
    paths.add_path_operation(crate::contract::paths::collection(base), vec![HttpMethod::Post], create);
    bulk::add_paths(doc, &mut paths);

    let detail = crate::contract::paths::detail(base);
    let not_found = || response("No such record, or not visible to the caller.", component("Error"));
    let invalid_id = || response("Invalid identifier.", component("Error"));
    let mut retrieve = operation(doc, crud_id(doc, "retrieve"), "Retrieve a record", Some(Operation::Retrieve), false)
        .parameter(pk_parameter(doc))
        .parameter(fields_parameter(doc));
    if let Some(expand) = expand_parameter(doc) {
        retrieve = retrieve.parameter(expand);
    }
    let retrieve = retrieve
        .response("200", with_etag(response("The record.", sparse(with_embedded(doc, doc.detail.clone())))))
        .response("400", invalid_id())
        .response("404", not_found())
        .response("422", response("Invalid query parameter.", component("InputValidationError")));
    let update =
        operation(doc, crud_id(doc, "update"), "Update the sent fields of a record", Some(Operation::Update), true)
            .parameter(pk_parameter(doc))
            .request_body(body(super::nested::update_body(doc, closed(doc.update.clone()))))
            .response("404", not_found());
    let updated = with_etag(response("The updated record.", read(doc, with_written(doc, doc.detail.clone()))));
    let update = retries::update(update, updated);
    let deleted = ObjectBuilder::new()
        .property("deleted", ObjectBuilder::new().schema_type(Type::Boolean))
        .required("deleted")
        .property("id", doc.lookup.clone())
        .required("id");
    let delete = operation(doc, crud_id(doc, "delete"), "Delete a record", Some(Operation::Delete), false)
        .parameter(pk_parameter(doc))
        .response("200", response("Deletion confirmation.", deleted.into()))
        .response("400", response("Invalid identifier, or the record is still referenced.", component("Error")))
        .response("404", not_found());
    let required = doc.require_if_match;
    paths.add_path_operation(&detail, vec![HttpMethod::Get], conditional::read(retrieve));
    paths.add_path_operation(&detail, vec![HttpMethod::Patch], conditional::write(update, required));
    paths.add_path_operation(&detail, vec![HttpMethod::Delete], conditional::write(delete, required));

    if doc.config.stream_enabled {
        let events = ResponseBuilder::new()
            .description("Server-sent events: `ready`, then `created`, `updated`, `deleted` (and `reset`).")
            .content("text/event-stream", Content::new(Some(ObjectBuilder::new().schema_type(Type::String))))
            .build();
        let stream =
            operation(doc, crud_id(doc, "stream"), "Stream record lifecycle events", Some(Operation::Stream), false)
                .parameter(fields_parameter(doc))
                .response("200", events)
                .response("422", response("Invalid query parameter.", component("InputValidationError")));
        paths.add_path_operation(crate::contract::paths::stream(base), vec![HttpMethod::Get], stream);
    }
    if let Some(declared) = &doc.config.aggregates {
        let summary = "Aggregate records per group";
        let op = operation(doc, crud_id(doc, "aggregate"), summary, Some(Operation::Aggregate), false);
        let op = super::aggregate::operation(doc, declared, op, list_parameters(doc));
        paths.add_path_operation(crate::contract::paths::aggregate(base), vec![HttpMethod::Get], op);
    }
    for action in &doc.actions {
        let path = crate::contract::paths::action(base, action.detail, action.path);
        for method in action.methods.iter().copied() {
            let returns = action.response_schema.map_or_else(any_value, |schema| schema());
            // An action's own permission_classes are not known here: its security is documented as optional.
            let id = operation_id(&doc.basename, action.name, method, action.methods.len());
            let mut op = operation(doc, id, action.name, None, action.request_schema.is_some())
                .description((!action.doc.is_empty()).then_some(action.doc))
                .response("200", response("The action's own response.", returns))
                .response("400", response("Invalid identifier, or the action's own refusal.", component("Error")));
            if let Some(schema) = action.request_schema {
                op = op.request_body(body(schema())).response("422", response("Invalid body.", validation_error()));
            }
            if action.detail {
                op = op.parameter(pk_parameter(doc)).response("404", not_found());
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
