//! Conditional requests in the document ([`crate::handlers::etag`]): the `ETag` header of every detail
//! representation, `If-None-Match` and its 304 on retrieve, `If-Match` and its 412 (and 428 when a ViewSet
//! requires it) on PATCH and DELETE.

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{OperationBuilder, Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{Content, Required, Response, ResponseBuilder};

use super::shapes::component;

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// `response` with the `ETag` header of the representation it carries.
pub(super) fn with_etag(mut response: Response) -> Response {
    let etag = HeaderBuilder::new()
        .schema(Some(string()))
        .description(Some("Strong tag of this representation as this caller receives it (BLAKE3 hash of the body)."))
        .build();
    response.headers.insert("ETag".into(), utoipa::openapi::RefOr::T(etag));
    response
}

fn header(name: &str, required: bool, description: &str) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Header)
        .required(if required { Required::True } else { Required::False })
        .schema(Some(string()))
        .description(Some(description))
        .build()
}

fn error(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content("application/json", Content::new(Some(component("Error"))))
        .build()
}

/// Retrieve: `If-None-Match` and the 304 it can give.
pub(super) fn read(op: OperationBuilder) -> OperationBuilder {
    let not_modified = ResponseBuilder::new()
        .description("Not modified: `If-None-Match` lists the current tag (or `*`). No body.")
        .build();
    op.parameter(header("If-None-Match", false, "Tags the caller holds; a match answers 304 without a body."))
        .response("304", with_etag(not_modified))
}

/// PATCH and DELETE: `If-Match` (required when the ViewSet's `require_if_match` is on) and its 412 / 428.
pub(super) fn write(op: OperationBuilder, required: bool) -> OperationBuilder {
    let description = "The `ETag` the caller last saw, or `*`; the write happens only if it is still current.";
    let op = op
        .parameter(header("If-Match", required, description))
        .response("412", error("`If-Match` does not list the current tag (`precondition_failed`); nothing written."));
    if required {
        op.response("428", error("This API requires `If-Match` on writes (`precondition_required`)."))
    } else {
        op
    }
}
