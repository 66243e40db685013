//! The bulk writes in the document (`#[viewset(bulk)]`): the create body and its 201 as one record or an array of
//! them (`oneOf`, the object first), and `DELETE <prefix>/` with its `<lookup>__in` parameter.

use utoipa::openapi::path::{OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{RefOr, Required};

use crate::viewset::hooks::Hooks;

/// `single` (a create body, or the record a create answers) as `V` accepts it: with `bulk(create)`, one of that
/// object or an array of 1 to `max_bulk` of them; otherwise `single` itself.
pub(super) fn one_or_many<V: Hooks>(single: RefOr<Schema>, description: &str) -> RefOr<Schema> {
    if !V::CONFIG.bulk.create {
        return single;
    }
    let many = ArrayBuilder::new()
        .items(single.clone())
        .min_items(Some(1))
        .max_items(Some(V::CONFIG.bulk.max))
        .description(Some(description));
    RefOr::T(Schema::OneOf(OneOfBuilder::new().item(single).item(many).build()))
}

/// The description of the create's 201.
pub(super) fn created_description<V: Hooks>() -> &'static str {
    if V::CONFIG.bulk.create {
        "Created: the record, or for an array body the records in request order (no body with `Prefer: \
         return=minimal`)."
    } else {
        "Created: the record (no body with `Prefer: return=minimal`)."
    }
}

/// The `<lookup>__in` parameter of the bulk delete.
pub(super) fn keys_parameter<V: Hooks>() -> utoipa::openapi::path::Parameter {
    let lookup = V::CONFIG.lookup_field;
    let max = V::CONFIG.bulk.max;
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
