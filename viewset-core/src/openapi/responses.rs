//! The document's components: error bodies, the error responses every route can give, and the bearer security
//! scheme; and the security requirement of an operation, told by `permission_classes`.
//!
//! Some shared responses come from layers the application mounts around the routes, not from the routes
//! themselves: 401 `invalid_token` from [`crate::auth::Authenticate`], and 413, 414, 431 and the 503
//! `request_timeout` from [`crate::limits::Limits`]. A route cannot tell whether they are mounted, so every
//! operation lists them and their descriptions say when they happen.

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::OperationBuilder;
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{Components, ComponentsBuilder, Content, Ref, RefOr, Response, ResponseBuilder};

use super::doc::Doc;
use super::shapes::{component, error_components};
use crate::types::operation::Operation;

/// The name of the bearer security scheme in `components.securitySchemes`.
pub const BEARER: &str = "bearerAuth";

/// A shared error response: `(status, component name, the response)`.
type Shared = (&'static str, &'static str, fn() -> Response);

/// The error responses any route can give.
const COMMON: &[Shared] = &[
    ("401", "Unauthorized", unauthorized),
    ("405", "MethodNotAllowed", method_not_allowed),
    ("413", "PayloadTooLarge", payload_too_large),
    ("414", "UriTooLong", uri_too_long),
    ("429", "TooManyRequests", too_many_requests),
    ("431", "RequestHeaderFieldsTooLarge", request_header_fields_too_large),
    ("500", "InternalError", internal_error),
    ("503", "ServiceUnavailable", service_unavailable),
];

/// The error responses of a route that reads a body.
const BODY: &[Shared] = &[("415", "UnsupportedMediaType", unsupported_media_type)];

/// When the responses of [`crate::limits::Limits`] happen.
const WITH_LIMITS: &str =
    "On any route, when the application applies `viewset_core::limits::Limits` (`Limits::apply`).";

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// The component schema `base` with `code` (and `limit`) narrowed to the given values.
fn narrowed(base: &str, code: &str, limit: Option<&str>) -> RefOr<Schema> {
    let mut narrowing = ObjectBuilder::new().property("code", string().enum_values(Some([code])));
    if let Some(limit) = limit {
        narrowing = narrowing.property("limit", string().enum_values(Some([limit])));
    }
    AllOfBuilder::new().item(component(base)).item(narrowing).into()
}

fn json(description: impl Into<String>, schema: RefOr<Schema>) -> ResponseBuilder {
    ResponseBuilder::new().description(description).content("application/json", Content::new(Some(schema)))
}

fn header(schema: Type, description: &str) -> utoipa::openapi::header::Header {
    HeaderBuilder::new().schema(Some(ObjectBuilder::new().schema_type(schema))).description(Some(description)).build()
}

fn unauthorized() -> Response {
    let description = "Behind `viewset_core::auth::Authenticate`: the credential (bearer token or session cookie) was \
        refused (`invalid_token`, unless the layer is made `refused_as_anonymous`), or, behind a bearer layer \
        (`bearer` or `jwt`), a caller without one was refused by a permission that needs an identity \
        (`not_authenticated`, challenged with `WWW-Authenticate: Bearer`). Without a bearer layer that refusal is the \
        403.";
    let either = OneOfBuilder::new().item(narrowed("Error", "invalid_token", None)).item(narrowed(
        "Error",
        "not_authenticated",
        None,
    ));
    json(description, either.into())
        .header(
            "WWW-Authenticate",
            header(
                Type::String,
                "`Bearer error=\"invalid_token\", error_description=\"…\"` (RFC 6750), or `Bearer` for `not_authenticated`.",
            ),
        )
        .build()
}

fn method_not_allowed() -> Response {
    json("The path exists, the method does not (`method_not_allowed`).", component("Error")).build()
}

fn payload_too_large() -> Response {
    let description = format!(
        "The body is larger than the limit: `payload_too_large` with `limit: max_body_bytes` when `Limits` refuses \
         it (as soon as `Content-Length` is larger), or `invalid_body` when a route that reads a body finds it too \
         long while reading it (no `Content-Length`, or axum's default 2 MB limit without `Limits`). The first: \
         {WITH_LIMITS}"
    );
    let either = OneOfBuilder::new()
        .item(narrowed("LimitError", "payload_too_large", Some("max_body_bytes")))
        .item(narrowed("Error", "invalid_body", None));
    json(description, either.into()).build()
}

fn uri_too_long() -> Response {
    let description = format!(
        "The request target (path and query) is longer than `max_uri_bytes` (`uri_too_long`), \
         {WITH_LIMITS} hyper itself refuses targets over 64 KiB before any route runs."
    );
    json(description, narrowed("LimitError", "uri_too_long", Some("max_uri_bytes"))).build()
}

fn request_header_fields_too_large() -> Response {
    let description = format!(
        "The header names and values add up to more than `max_header_bytes` (`request_header_fields_too_large`), \
         {WITH_LIMITS} hyper itself refuses far larger headers before any route runs."
    );
    json(description, narrowed("LimitError", "request_header_fields_too_large", Some("max_header_bytes"))).build()
}

fn too_many_requests() -> Response {
    let description = "The caller is over a rate (`throttled`): the ViewSet's or action's `throttle`, or the \
        application's `viewset_core::throttle::Throttle` defaults. `scope` names the policy (`anon`, `user`, `staff`, \
        an operation or an action), `retry_after` the seconds to wait.";
    let body = ObjectBuilder::new()
        .property("detail", string())
        .required("detail")
        .property("code", string().enum_values(Some(["throttled"])))
        .required("code")
        .property("scope", string())
        .required("scope")
        .property("retry_after", ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1)))
        .required("retry_after");
    json(description, body.into())
        .header("Retry-After", header(Type::Integer, "Seconds until the next request is admitted."))
        .header(
            "RateLimit-Policy",
            header(Type::String, "Each policy counted: `\"anon\";q=100;w=60` (quota per window in seconds)."),
        )
        .header("RateLimit", header(Type::String, "The refusing policy: `\"anon\";r=0;t=18` (remaining, seconds)."))
        .build()
}

fn internal_error() -> Response {
    let description = "An unexpected database error (`database_error`); details are logged, not sent.";
    json(description, component("Error")).build()
}

fn service_unavailable() -> Response {
    let description = format!(
        "Retry later: the database cannot be reached (`database_unavailable`, with `Retry-After`), it rolled the \
         write back over a lock held by a concurrent request (`database_busy`, with `Retry-After`), the response \
         did not start within `request_timeout` (`request_timeout` with `limit: request_timeout`), the instance is \
         at `max_in_flight` requests or `max_streams` streams (`overloaded`, with `Retry-After`), or the rate-limit \
         store cannot be asked and the throttle fails closed (`throttle_unavailable`, with `Retry-After`); or, for \
         a write with `Idempotency-Key`, the database keeps no idempotency records (`idempotency_unavailable`: \
         nothing was written; send it without the key). The timeout and the bounds: {WITH_LIMITS}"
    );
    let either = OneOfBuilder::new()
        .item(narrowed("Error", "database_unavailable", None))
        .item(narrowed("Error", "database_busy", None))
        .item(narrowed("LimitError", "request_timeout", Some("request_timeout")))
        .item(narrowed("LimitError", "overloaded", None))
        .item(narrowed("LimitError", "throttle_unavailable", Some("throttle_store")))
        .item(narrowed("Error", "idempotency_unavailable", None));
    json(description, either.into())
        .header(
            "Retry-After",
            header(
                Type::Integer,
                "Seconds to wait before retrying (all but `request_timeout` and `idempotency_unavailable`).",
            ),
        )
        .build()
}

fn unsupported_media_type() -> Response {
    json("The body is not `application/json` (`unsupported_media_type`).", component("Error")).build()
}

/// Every component of the document: error schemas, error responses and the bearer scheme.
pub fn components() -> Components {
    let mut builder = ComponentsBuilder::new();
    for (name, schema) in error_components() {
        builder = builder.schema(name, schema);
    }
    for (_, name, response) in COMMON.iter().chain(BODY) {
        builder = builder.response(*name, response());
    }
    let bearer = HttpBuilder::new()
        .scheme(HttpAuthScheme::Bearer)
        .description(Some("`Authorization: Bearer <token>`: the application's middleware maps it to a principal."))
        .build();
    builder.security_scheme(BEARER, SecurityScheme::Http(bearer)).build()
}

/// Adds the error responses every route can give (and those of a body, when it reads one).
pub fn with_common_errors(mut op: OperationBuilder, reads_body: bool) -> OperationBuilder {
    let body: &[_] = if reads_body { BODY } else { &[] };
    for (status, name, _) in COMMON.iter().chain(body) {
        op = op.response(*status, Ref::from_response_name(*name));
    }
    op
}

/// The operation's security: bearer required when the permission classes refuse anonymous callers, else optional
/// (`{}` or bearer: a token may still change what the caller sees).
pub(crate) fn with_security(doc: &Doc, op: OperationBuilder, operation: Option<Operation>) -> OperationBuilder {
    let bearer = SecurityRequirement::new(BEARER, Vec::<String>::new());
    match operation {
        Some(operation) if !doc.admits_anonymous(operation) => op.security(bearer),
        _ => op.security(SecurityRequirement::default()).security(bearer),
    }
}
