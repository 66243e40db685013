//! Writes in the document: `Prefer: return=minimal` ([`crate::handlers::prefer`]: a bodiless 201, a 204) and
//! `Idempotency-Key` ([`crate::idempotency`]: replayed answers, 409 and 422) on create and update.

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{OperationBuilder, Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Content, RefOr, Required, Response, ResponseBuilder};

use super::conditional::with_etag;
use super::shapes::{component, validation_error};

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

fn header(name: &str, schema: ObjectBuilder, description: &str) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .schema(Some(schema))
        .description(Some(description))
        .build()
}

fn error(description: &str) -> Response {
    ResponseBuilder::new()
        .description(description)
        .content("application/json", Content::new(Some(component("Error"))))
        .build()
}

/// `response` with the headers a write's answer may carry.
fn with_write_headers(mut response: Response, location: &str) -> Response {
    let headers = [
        ("Location", location),
        ("Preference-Applied", "`return=minimal` when the minimal answer was given."),
        ("Idempotent-Replayed", "`true` when this is the stored answer of an earlier request with the same key."),
    ];
    for (name, description) in headers {
        let value = HeaderBuilder::new().schema(Some(string())).description(Some(description)).build();
        response.headers.insert(name.into(), RefOr::T(value));
    }
    response
}

/// The parameters and answers both writes share; `created` is the create's 201, or the update's 200.
fn writes(op: OperationBuilder, answer: (&str, Response)) -> OperationBuilder {
    let prefer = "`return=minimal`: answer without a body (create: 201 with `Location`; update: 204). \
        `return=representation` (the default) answers the record. On an upsert, `resolution=ignore-duplicates` \
        leaves a record whose key exists as it is (`resolution=merge-duplicates`, the default, updates it). Other \
        preferences are ignored (RFC 7240).";
    let key = "1 to 255 visible ASCII characters, unique per intended write and caller (authenticated callers \
        only). Repeats within 24 hours answer the first request's stored answer (`Idempotent-Replayed: true`) \
        without writing again.";
    let invalid_body =
        RefOr::T(Schema::OneOf(OneOfBuilder::new().item(validation_error()).item(component("Error")).build()));
    // What `idempotency::key` accepts: 1 to 255 visible ASCII characters.
    let key_schema = string().min_length(Some(1)).max_length(Some(255)).pattern(Some("^[!-~]+$"));
    op.parameter(header("Prefer", string(), prefer))
        .parameter(header("Idempotency-Key", key_schema, key))
        .response(answer.0, answer.1)
        .response(
            "422",
            ResponseBuilder::new()
                .description(
                    "Invalid body; or the Idempotency-Key was used for another request (`idempotency_key_reused`).",
                )
                .content("application/json", Content::new(Some(invalid_body)))
                .build(),
        )
}

/// Create: the 201 (bodiless with `return=minimal`), and the answers of `Idempotency-Key`.
pub(super) fn create(op: OperationBuilder, created: Response) -> OperationBuilder {
    let created = with_write_headers(created, "The new record's URL (with `Prefer: return=minimal`).");
    creates(writes(op, ("201", created)))
}

/// The 400 and 409 of a write that creates records.
fn creates(op: OperationBuilder) -> OperationBuilder {
    op.response(
            "400",
            error(
                "Foreign-key violation; or an invalid Idempotency-Key (`invalid_idempotency_key`), or one sent \
                 without credentials (`idempotency_requires_identity`).",
            ),
        )
        .response(
            "409",
            error("Uniqueness violation; or a request with this Idempotency-Key is still running (`idempotency_in_progress`)."),
        )
}

/// Update: the 200, the 204 of `return=minimal`, and the answers of `Idempotency-Key`.
pub(super) fn update(op: OperationBuilder, updated: Response) -> OperationBuilder {
    let updated = with_write_headers(updated, "The record's URL (with `Prefer: return=minimal`).");
    let minimal = ResponseBuilder::new().description("Updated; `Prefer: return=minimal` asked for no body.").build();
    let minimal = with_write_headers(with_etag(minimal), "The record's URL.");
    writes(op, ("200", updated))
        .response("204", minimal)
        .response(
            "400",
            error(
                "Invalid identifier, or a foreign-key violation; or an invalid Idempotency-Key \
                 (`invalid_idempotency_key`), or one sent without credentials (`idempotency_requires_identity`).",
            ),
        )
        .response(
            "409",
            error("Uniqueness violation; or a request with this Idempotency-Key is still running (`idempotency_in_progress`)."),
        )
}

/// A bulk update: the 200 (the records), the 204 of `return=minimal` (no `Location`: there is no one record's URL),
/// and the answers of `Idempotency-Key`.
pub(super) fn update_many(op: OperationBuilder, updated: Response) -> OperationBuilder {
    let mut updated = with_write_headers(updated, "");
    updated.headers.remove("Location");
    let mut minimal = with_write_headers(
        ResponseBuilder::new().description("Updated; `Prefer: return=minimal` asked for no body.").build(),
        "",
    );
    minimal.headers.remove("Location");
    writes(op, ("200", updated))
        .response("204", minimal)
        .response(
            "400",
            error(
                "A foreign-key violation; or an invalid Idempotency-Key (`invalid_idempotency_key`), or one sent \
                 without credentials (`idempotency_requires_identity`).",
            ),
        )
        .response(
            "409",
            error("Uniqueness violation; or a request with this Idempotency-Key is still running (`idempotency_in_progress`)."),
        )
}

/// A bulk create: the 201 (the records; bodiless with `return=minimal`, and no `Location`: there is no one record's
/// URL), and the answers of `Idempotency-Key`.
pub(super) fn create_many(op: OperationBuilder, created: Response) -> OperationBuilder {
    let mut created = with_write_headers(created, "");
    created.headers.remove("Location");
    creates(writes(op, ("201", created)))
}

/// An upsert: its answer with 201 (a row was created) or 200 (every key existed), and the answers of
/// `Idempotency-Key`. `Prefer: resolution=` is documented in the `Prefer` header's description.
pub(super) fn upsert(op: OperationBuilder, upserted: RefOr<Schema>) -> OperationBuilder {
    let answer = |description: &str| {
        let answer = ResponseBuilder::new()
            .description(description)
            .content("application/json", Content::new(Some(upserted.clone())))
            .build();
        let mut answer = with_write_headers(answer, "");
        answer.headers.remove("Location");
        answer
    };
    create_many(op, answer("Upserted, at least one row created: which rows were created, updated or ignored."))
        .response("200", answer("Upserted, every row's key existed: updated or ignored."))
}
