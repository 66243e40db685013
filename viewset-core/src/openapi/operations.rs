//! The operations of one ViewSet.

use utoipa::openapi::path::{HttpMethod, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::{Content, PathItem, Paths, RefOr, Required, ResponseBuilder};

use super::shapes::{component, envelope, validation_error};
use crate::pagination::Paginator;
use crate::schema::{CreateSchema, UpdateSchema};
use crate::viewset::Hooks;

const JSON: &str = "application/json";
const LOOKUPS: &[&str] = &["gt", "gte", "lt", "lte", "in", "isnull", "contains", "icontains"];

fn response(description: &str, schema: RefOr<Schema>) -> utoipa::openapi::Response {
    ResponseBuilder::new().description(description).content(JSON, Content::new(Some(schema))).build()
}

fn query(name: &str, schema: RefOr<Schema>, description: &str) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .schema(Some(schema))
        .description(Some(description))
        .build()
}

fn string() -> RefOr<Schema> {
    ObjectBuilder::new().schema_type(Type::String).into()
}

fn integer() -> RefOr<Schema> {
    ObjectBuilder::new().schema_type(Type::Integer).into()
}

/// An operation with its tags, id, summary and the error responses every generated route can give.
fn operation<V: Hooks>(id: &str, summary: &str) -> OperationBuilder {
    let name = V::CONFIG.name;
    let mut op = OperationBuilder::new()
        .operation_id(Some(format!("{name}_{id}")))
        .summary(Some(summary))
        .response("403", response("Permission denied.", component("Error")));
    for tag in V::CONFIG.tags {
        op = op.tag(*tag);
    }
    op
}

fn list_parameters<V: Hooks>() -> Vec<utoipa::openapi::path::Parameter> {
    let config = V::CONFIG;
    let mut params: Vec<_> = V::Pagination::PARAMETERS
        .iter()
        .map(|p| {
            let schema = if *p == "cursor" { string() } else { integer() };
            query(p, schema, "Pagination parameter.")
        })
        .collect();
    let has = |backend: &str| config.filter_backends.contains(&backend);
    for field in V::get_filter_fields() {
        if config.tenant_field == Some(field) {
            continue;
        }
        params.push(query(field, string(), "Exact-match filter."));
    }
    if has("ServiceFilterBackend") || has("DjangoFilterBackend") {
        for field in config.filterable_fields {
            for lookup in LOOKUPS {
                params.push(query(
                    &format!("{field}__{lookup}"),
                    string(),
                    &format!("`{lookup}` lookup on `{field}`."),
                ));
            }
        }
    }
    if has("SearchFilter") && !config.search_fields.is_empty() {
        let fields = config.search_fields.join(", ");
        params.push(query("search", string(), &format!("Case-insensitive substring over {fields}.")));
    }
    if has("OrderingFilter") {
        let allowed = match config.ordering_fields {
            crate::viewset::OrderingFields::All => "any field".to_string(),
            crate::viewset::OrderingFields::Only(list) => list.join(", "),
        };
        params.push(query(
            "ordering",
            string(),
            &format!("Comma-separated terms, `-` for descending; allowed: {allowed}."),
        ));
    }
    params
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

/// Every path of `V`: the CRUD routes and the custom actions.
pub fn viewset_paths<V: Hooks>() -> Paths {
    let prefix = V::prefix();
    let base = crate::registration::paths::base(&prefix);
    let mut paths = Paths::new();
    let list = operation::<V>("list", "List records")
        .parameters(Some(list_parameters::<V>()))
        .response("200", response("One page.", envelope(V::Pagination::RESPONSE_FIELDS, V::list_item_schema())))
        .response("422", response("Invalid query parameter.", component("InputValidationError")));
    let create = operation::<V>("create", "Create a record")
        .request_body(body(V::Create::openapi_schema()))
        .response("201", response("Created.", V::detail_schema()))
        .response("400", response("Foreign-key violation.", component("Error")))
        .response("409", response("Uniqueness violation.", component("Error")))
        .response("422", response("Invalid body.", validation_error()));
    paths.add_path_operation(crate::registration::paths::collection(base), vec![HttpMethod::Get], list);
    paths.add_path_operation(crate::registration::paths::collection(base), vec![HttpMethod::Post], create);

    let detail = crate::registration::paths::detail(base);
    let not_found = || response("No such record, or not visible to the caller.", component("Error"));
    let invalid_id = || response("Invalid identifier.", component("Error"));
    let retrieve = operation::<V>("retrieve", "Retrieve a record")
        .parameter(pk_parameter::<V>())
        .response("200", response("The record.", V::detail_schema()))
        .response("400", invalid_id())
        .response("404", not_found());
    let update = operation::<V>("update", "Update the sent fields of a record")
        .parameter(pk_parameter::<V>())
        .request_body(body(V::Update::openapi_schema()))
        .response("200", response("The updated record.", V::detail_schema()))
        .response("400", invalid_id())
        .response("404", not_found())
        .response("409", response("Uniqueness violation.", component("Error")))
        .response("422", response("Invalid body.", validation_error()));
    let deleted = ObjectBuilder::new()
        .property("deleted", ObjectBuilder::new().schema_type(Type::Boolean))
        .required("deleted")
        .property("id", ObjectBuilder::new())
        .required("id");
    let delete = operation::<V>("delete", "Delete a record")
        .parameter(pk_parameter::<V>())
        .response("200", response("Deletion confirmation.", deleted.into()))
        .response("400", invalid_id())
        .response("404", not_found());
    paths.add_path_operation(&detail, vec![HttpMethod::Get], retrieve);
    paths.add_path_operation(&detail, vec![HttpMethod::Patch], update);
    paths.add_path_operation(&detail, vec![HttpMethod::Delete], delete);

    if V::CONFIG.stream_enabled {
        let events = ResponseBuilder::new()
            .description("Server-sent events: `ready`, then `created`, `updated`, `deleted` (and `reset`).")
            .content("text/event-stream", Content::new(Some(ObjectBuilder::new().schema_type(Type::String))))
            .build();
        let stream = operation::<V>("stream", "Stream record lifecycle events").response("200", events);
        paths.add_path_operation(crate::registration::paths::stream(base), vec![HttpMethod::Get], stream);
    }
    for action in V::actions() {
        let path = crate::registration::paths::action(base, action.detail, action.path);
        for method in action.methods {
            let returns = action.response_schema.map_or_else(|| ObjectBuilder::new().into(), |schema| schema());
            let mut op = operation::<V>(&format!("{}_{}", action.name, method.to_ascii_lowercase()), action.name)
                .description((!action.doc.is_empty()).then_some(action.doc))
                .response("200", response("The action's own response.", returns));
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
