//! The document's components: error bodies, the error responses every route can give, and the bearer security
//! scheme; and the security requirement of an operation, told by `permission_classes`.

use utoipa::openapi::path::OperationBuilder;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{Components, ComponentsBuilder, Content, Ref, ResponseBuilder};

use super::shapes::{component, error_components};
use crate::access::Operation;
use crate::viewset::Hooks;

/// The name of the bearer security scheme in `components.securitySchemes`.
pub const BEARER: &str = "bearerAuth";

/// The error responses any route can give, by status: `(status, component name, description)`.
const COMMON: &[(&str, &str, &str)] = &[
    ("405", "MethodNotAllowed", "The path exists, the method does not (`method_not_allowed`)."),
    ("500", "InternalError", "An unexpected database error (`database_error`); details are logged, not sent."),
    ("503", "DatabaseUnavailable", "The database cannot be reached (`database_unavailable`); retry later."),
];

/// The error responses of a route that reads a body.
const BODY: &[(&str, &str, &str)] = &[
    ("413", "PayloadTooLarge", "The body is larger than the configured limit."),
    ("415", "UnsupportedMediaType", "The body is not `application/json`."),
];

/// Every component of the document: error schemas, error responses and the bearer scheme.
pub fn components() -> Components {
    let mut builder = ComponentsBuilder::new();
    for (name, schema) in error_components() {
        builder = builder.schema(name, schema);
    }
    for (_, name, description) in COMMON.iter().chain(BODY) {
        let response = ResponseBuilder::new()
            .description(*description)
            .content("application/json", Content::new(Some(component("Error"))))
            .build();
        builder = builder.response(*name, response);
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
pub fn with_security<V: Hooks>(op: OperationBuilder, operation: Option<Operation>) -> OperationBuilder {
    let bearer = SecurityRequirement::new(BEARER, Vec::<String>::new());
    match operation {
        Some(operation) if !crate::access::admits_anonymous::<V>(operation) => op.security(bearer),
        _ => op.security(SecurityRequirement::default()).security(bearer),
    }
}
