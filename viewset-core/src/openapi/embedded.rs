//! `?expand=` in the document: the parameter (the names this ViewSet declares, each optionally followed by nested
//! names) and, in the read schemas of list and retrieve, each embeddable relation as an optional property.

use sea_orm::RelationType;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{RefOr, Required};

use super::doc::Doc;
use crate::embed::tree::MAX_EXPAND_DEPTH;

/// `expand` for list and retrieve, when `V` declares `expandable`.
pub(crate) fn expand_parameter(doc: &Doc) -> Option<Parameter> {
    let declared = doc.config.expandable;
    if declared.is_empty() {
        return None;
    }
    let names = declared.iter().map(|e| e.name).collect::<Vec<_>>().join("|");
    let nested = MAX_EXPAND_DEPTH - 1;
    let path = format!("({names})(\\.[a-z_][a-z0-9_]*){{0,{nested}}}");
    let schema = ObjectBuilder::new().schema_type(Type::String).pattern(Some(format!("^{path}(,{path})*$")));
    let description = format!(
        "Embed related records, comma-separated: {}. A dotted path (`a.b`, at most {MAX_EXPAND_DEPTH} deep) embeds in \
         the embedded records through their own ViewSet's `expandable`. Each related record is shown as its own \
         ViewSet lists it to this caller; one it may not see is `null` (or absent from a list).",
        declared.iter().map(|e| format!("`{}`", e.name)).collect::<Vec<_>>().join(", ")
    );
    Some(
        ParameterBuilder::new()
            .name("expand")
            .parameter_in(ParameterIn::Query)
            .required(Required::False)
            .schema(Some(schema))
            .description(Some(description))
            .build(),
    )
}

/// A read schema with `V`'s embeddable relations as optional properties: an object or `null` for a to-one
/// relation, an array of objects for a has-many one.
pub(crate) fn with_embedded(doc: &Doc, schema: RefOr<Schema>) -> RefOr<Schema> {
    let RefOr::T(Schema::Object(mut object)) = schema else { return schema };
    for entry in doc.config.expandable {
        let record = ObjectBuilder::new().schema_type(Type::Object);
        let many = (entry.relation)().rel_type == RelationType::HasMany;
        let description =
            format!("With `expand={}`: the related record(s) as their own ViewSet lists them.", entry.name);
        let property: Schema = if many {
            ArrayBuilder::new().items(record).description(Some(description)).into()
        } else {
            let types = utoipa::openapi::schema::SchemaType::from_iter([Type::Object, Type::Null]);
            ObjectBuilder::new().schema_type(types).description(Some(description)).into()
        };
        object.properties.insert(entry.name.to_string(), RefOr::T(property));
    }
    RefOr::T(Schema::Object(object))
}
