//! Shared schemas: the error bodies and the page envelopes.

use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// `components.schemas` entries for the error bodies.
pub fn error_components() -> Vec<(&'static str, RefOr<Schema>)> {
    let input_error = ObjectBuilder::new()
        .property("loc", ArrayBuilder::new().items(string()))
        .required("loc")
        .property("msg", string())
        .required("msg")
        .property("type", string())
        .required("type");
    vec![
        (
            "InputValidationError",
            ObjectBuilder::new()
                .description(Some("Route input validation failure (422)."))
                .property("detail", ArrayBuilder::new().items(input_error))
                .required("detail")
                .into(),
        ),
        (
            "ServiceValidationError",
            ObjectBuilder::new()
                .description(Some("Service-level validation failure (422)."))
                .property("detail", string())
                .required("detail")
                .property("code", string().enum_values(Some(["validation_error"])))
                .required("code")
                .property(
                    "errors",
                    ObjectBuilder::new().additional_properties(Some(ArrayBuilder::new().items(string()))),
                )
                .required("errors")
                .into(),
        ),
        (
            "Error",
            ObjectBuilder::new()
                .description(Some("Any other error: not_found, permission_denied, unique_violation, foreign_key_violation, invalid_id, method_not_allowed, unsupported_media_type, invalid_body, precondition_failed, precondition_required, invalid_token, database_error, database_unavailable, database_busy."))
                .property("detail", string())
                .required("detail")
                .property("code", string())
                .required("code")
                .property("field", string())
                .property("key", string().description(Some("A bulk request's key that names no record the caller may see (404).")))
                .property(
                    "index",
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .minimum(Some(0))
                        .description(Some("The row of a bulk update that names that key (404).")),
                )
                .property(
                    "request_id",
                    string().description(Some("On a 5xx: the request's `x-request-id`, as logged by the server.")),
                )
                .into(),
        ),
        ("LimitError", limit_error()),
    ]
}

/// The body of a request over one of the transport [`crate::limits::Limits`]: the error's code and the limit.
fn limit_error() -> RefOr<Schema> {
    let codes = [
        "payload_too_large",
        "uri_too_long",
        "request_header_fields_too_large",
        "request_timeout",
        "overloaded",
        "throttle_unavailable",
    ];
    let limits = [
        "max_body_bytes",
        "max_uri_bytes",
        "max_header_bytes",
        "request_timeout",
        "max_in_flight",
        "max_streams",
        "throttle_store",
    ];
    ObjectBuilder::new()
        .description(Some("A request over one of the application's limits (`viewset_core::limits::Limits`), or refused because rate limits cannot be checked (`throttle_store`)."))
        .property("detail", string())
        .required("detail")
        .property("code", string().enum_values(Some(codes)))
        .required("code")
        .property("limit", string().enum_values(Some(limits)).description(Some("The `Limits` field exceeded.")))
        .required("limit")
        .property("request_id", string().description(Some("On the 503: the request's `x-request-id`, as logged.")))
        .into()
}

/// A reference to a component schema.
pub fn component(name: &str) -> RefOr<Schema> {
    Ref::from_schema_name(name).into()
}

/// Either 422 body.
pub fn validation_error() -> RefOr<Schema> {
    OneOfBuilder::new().item(component("InputValidationError")).item(component("ServiceValidationError")).into()
}

/// The envelope of a paginator around `item`, from its declared response fields.
pub fn envelope(fields: &[&str], item: RefOr<Schema>) -> RefOr<Schema> {
    let mut object = ObjectBuilder::new().description(Some("One page of records."));
    for field in fields {
        let schema: RefOr<Schema> = match *field {
            "results" => ArrayBuilder::new().items(item.clone()).into(),
            "next" | "previous" => OneOfBuilder::new()
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .item(string().description(Some("Relative URL of the adjacent page")))
                .into(),
            // `null` with `?count=none`.
            "count" | "total_pages" => OneOfBuilder::new()
                .item(ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)))
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .into(),
            "limit" | "offset" | "page" | "page_size" => {
                ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).into()
            }
            _ => ObjectBuilder::new().into(),
        };
        object = object.property(*field, schema).required(*field);
    }
    if fields.contains(&"count") {
        let modes = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(crate::pagination::CountMode::VALUES))
            .description(Some(
                "Present when the request gave `count` or the ViewSet's default count mode is not `exact`: how `count` \
                 was found.",
            ));
        object = object.property("count_mode", modes);
    }
    object.additional_properties(Some(utoipa::openapi::schema::AdditionalProperties::FreeForm(true))).into()
}
