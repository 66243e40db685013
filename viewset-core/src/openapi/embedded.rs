//! `?expand=` in the document: the parameter (the names this ViewSet declares, each optionally followed by nested
//! names) and, in the read schemas of list and retrieve, each embeddable relation as an optional property typed by
//! the related ViewSet's record (a component per embedded table, `<table>_record`).

use sea_orm::RelationType;
use sea_orm::sea_query::TableRef;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Paths, Ref, RefOr, Required};

use super::doc::Doc;
use crate::contract::hooks::Hooks;
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

/// A read schema with `V`'s embeddable relations as optional, typed properties: the related ViewSet's record
/// ([`record_component`]) or `null` for a to-one relation, an array of them for a has-many one, so a generated
/// client reads `post.author?.name` without a cast.
pub(crate) fn with_embedded(doc: &Doc, schema: RefOr<Schema>) -> RefOr<Schema> {
    embedding(
        doc,
        schema,
        |_| true,
        |name| format!("With `expand={name}`: the related record(s) as their own ViewSet lists them."),
    )
}

/// The answer of a create or PATCH with `V`'s writable relations as optional, typed properties: a nested write
/// answers the record with what it wrote embedded, as `?expand=` would ([`crate::viewset::nested`]).
pub(crate) fn with_written(doc: &Doc, schema: RefOr<Schema>) -> RefOr<Schema> {
    let writable = doc.config.nested.writable;
    embedding(
        doc,
        schema,
        |name| writable.contains(&name),
        |name| format!("When the request wrote `{name}`: what it wrote, as its own ViewSet lists it to the caller."),
    )
}

/// `schema` with the expandable relations `included` keeps as optional properties described by `description`.
fn embedding(
    doc: &Doc,
    schema: RefOr<Schema>,
    included: impl Fn(&str) -> bool,
    description: impl Fn(&str) -> String,
) -> RefOr<Schema> {
    let RefOr::T(Schema::Object(mut object)) = schema else { return schema };
    for entry in doc.config.expandable.iter().filter(|entry| included(entry.name)) {
        let def = (entry.relation)();
        let record = Ref::from_schema_name(record_component(&table_of(&def.to_tbl)));
        let description = description(entry.name);
        let property: Schema = if def.rel_type == RelationType::HasMany || (entry.via)().is_some() {
            ArrayBuilder::new().items(record).description(Some(description)).into()
        } else {
            let null = ObjectBuilder::new().schema_type(Type::Null);
            OneOfBuilder::new().item(record).item(null).description(Some(description)).into()
        };
        object.properties.insert(entry.name.to_string(), RefOr::T(property));
    }
    RefOr::T(Schema::Object(object))
}

/// The component naming the record of the ViewSet that serves `table` (`authors` → `authors_record`): its list
/// item schema, embedded relations included, which every relation to that table refers to.
pub(crate) fn record_component(table: &str) -> String {
    format!("{table}_record")
}

/// The table a relation names.
fn table_of(table: &TableRef) -> String {
    match table {
        TableRef::Table(name, _) => name.1.to_string(),
        other => format!("{other:?}"),
    }
}

/// What the document reads of one registered ViewSet: its paths, and its record for the relations that embed it.
#[derive(Clone, Copy)]
pub(crate) struct Described {
    pub paths: fn() -> Paths,
    pub record: fn() -> Record,
}

impl Described {
    /// `V`'s.
    pub(crate) fn of<V: Hooks>() -> Described {
        Described { paths: super::operations::viewset_paths::<V>, record: record_of::<V> }
    }
}

/// A ViewSet's record as the document shows it embedded elsewhere.
pub(crate) struct Record {
    /// The table it serves.
    pub table: &'static str,
    /// Its list item schema with its own relations.
    pub schema: RefOr<Schema>,
    /// The tables its relations embed.
    pub embeds: Vec<String>,
    /// Its single create's body, with its own writable relations ([`super::nested::create_body`]).
    pub create: RefOr<Schema>,
    /// The tables its writable relations write.
    pub writes: Vec<super::nested::Writes>,
}

fn record_of<V: Hooks>() -> Record {
    let doc = Doc::of::<V>();
    let embeds = doc.config.expandable.iter().map(|e| table_of(&(e.relation)().to_tbl)).collect();
    let table = sea_orm::EntityName::table_name(&<V::Entity as Default>::default());
    // As the related ViewSet lists it: a staff-only field is absent for other callers, so not required.
    let schema = super::operations::read(&doc, with_embedded(&doc, doc.list_item.clone()));
    let create = super::nested::create_body(&doc, super::operations::closed(doc.create.clone()));
    Record { table, schema, embeds, create, writes: super::nested::writes(&doc) }
}

/// The record components of `records`: one per table some relation embeds, from the first ViewSet registered for it
/// (the one `?expand=` follows), or a plain object when no registered ViewSet serves the table (`?expand=` answers
/// 422 for it then).
pub(crate) fn record_components(records: Vec<Record>) -> Vec<(String, RefOr<Schema>)> {
    let wanted: std::collections::BTreeSet<&str> =
        records.iter().flat_map(|r| r.embeds.iter().map(String::as_str)).collect();
    let mut components = Vec::new();
    for table in wanted {
        let schema = match records.iter().find(|r| r.table == table) {
            Some(record) => record.schema.clone(),
            None => {
                let description = format!("A record of `{table}`; no registered ViewSet serves this table.");
                ObjectBuilder::new().schema_type(Type::Object).description(Some(description)).into()
            }
        };
        components.push((record_component(table), schema));
    }
    components
}
