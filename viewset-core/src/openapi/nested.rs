//! Nested writes in the document (`writable_relations`, [`crate::viewset::nested`]): the single create's body gains
//! each writable relation as an optional property — a to-one relation a key or the related ViewSet's create body,
//! a to-many relation an array of create bodies, a many-to-many relation an array of keys or create bodies — and
//! the foreign key a to-one relation fills in is no longer required. The related create bodies are components,
//! `<table>_create`, one per written table, from the ViewSet serving it (the one the write goes through), with its
//! own writable relations and without the foreign keys the relations writing it fill in. The PATCH body gains the
//! changes a to-many (`add`) or many-to-many (`add`, `remove`, `set`) relation may send.

use std::collections::{BTreeMap, BTreeSet};

use sea_orm::{Identity, RelationType};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};

use super::doc::Doc;
use super::embedded::Record;

/// A table some writable relation writes, and the foreign key column it fills in there (a to-many relation).
#[derive(Debug, Clone)]
pub(crate) struct Writes {
    pub table: String,
    pub fills: Option<String>,
}

/// The component naming the create body of the ViewSet serving `table` (`posts` → `posts_create`).
pub(crate) fn create_component(table: &str) -> String {
    format!("{table}_create")
}

/// How `doc`'s writable relation `name` is written: its table, whether it is many, through a join table, and the
/// foreign key column it involves (this model's for a to-one relation, the related one's for a to-many one).
fn relation(doc: &Doc, name: &str) -> Option<(String, Kind, String)> {
    let entry = doc.config.expandable.iter().find(|e| e.name == name)?;
    let def = (entry.relation)();
    let table = match &def.to_tbl {
        sea_orm::sea_query::TableRef::Table(name, _) => name.1.to_string(),
        other => format!("{other:?}"),
    };
    let column = |identity: &Identity| match identity {
        Identity::Unary(column) => column.to_string(),
        _ => String::new(),
    };
    Some(if (entry.via)().is_some() {
        (table, Kind::ManyToMany, String::new())
    } else if def.rel_type == RelationType::HasMany {
        (table, Kind::ToMany, column(&def.to_col))
    } else {
        (table, Kind::ToOne, column(&def.from_col))
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    ToOne,
    ToMany,
    ManyToMany,
}

/// The tables `doc`'s writable relations write.
pub(crate) fn writes(doc: &Doc) -> Vec<Writes> {
    let mut out = Vec::new();
    for name in doc.config.nested.writable {
        if let Some((table, kind, column)) = relation(doc, name) {
            out.push(Writes { table, fills: (kind == Kind::ToMany).then_some(column) });
        }
    }
    out
}

/// The single create's body of `doc` (`closed`: no other property), with its writable relations.
pub(crate) fn create_body(doc: &Doc, closed: RefOr<Schema>) -> RefOr<Schema> {
    let RefOr::T(Schema::Object(mut object)) = closed else { return closed };
    for name in doc.config.nested.writable {
        let Some((table, kind, column)) = relation(doc, name) else { continue };
        let create = Ref::from_schema_name(create_component(&table));
        let key = || -> RefOr<Schema> {
            ObjectBuilder::new()
                .schema_type(utoipa::openapi::schema::SchemaType::from_iter([Type::Integer, Type::String]))
                .description(Some("The key of an existing record the caller may see."))
                .into()
        };
        let property: Schema = match kind {
            Kind::ToOne => {
                let field = doc.field_names().find(|f| *f == column).unwrap_or_default();
                let key = object.properties.get(field).cloned().unwrap_or_else(key);
                object.required.retain(|required| required != field);
                let description = format!(
                    "Instead of `{field}`: the key of an existing record, or a new record created first, in the same \
                     transaction."
                );
                OneOfBuilder::new().item(key).item(create).description(Some(description)).into()
            }
            Kind::ToMany => {
                let description = "Records created with this one, in the same transaction, their key filled in.";
                ArrayBuilder::new().items(create).description(Some(description)).into()
            }
            Kind::ManyToMany => {
                let item = OneOfBuilder::new().item(key()).item(create);
                let description =
                    "Records linked to this one: existing ones by key, or new ones, in the same transaction.";
                ArrayBuilder::new().items(item).description(Some(description)).into()
            }
        };
        object.properties.insert(name.to_string(), RefOr::T(property));
    }
    RefOr::T(Schema::Object(object))
}

/// The PATCH body of `doc` (`closed`), with the changes its to-many relations (`{"add": [...]}`) and many-to-many
/// relations (`{"add": [...]}`, `{"remove": [...]}` or `{"set": [...]}`) may send.
pub(crate) fn update_body(doc: &Doc, closed: RefOr<Schema>) -> RefOr<Schema> {
    let RefOr::T(Schema::Object(mut object)) = closed else { return closed };
    for name in doc.config.nested.writable {
        let Some((table, kind, _)) = relation(doc, name) else { continue };
        let create = Ref::from_schema_name(create_component(&table));
        let key = || -> RefOr<Schema> {
            ObjectBuilder::new()
                .schema_type(utoipa::openapi::schema::SchemaType::from_iter([Type::Integer, Type::String]))
                .into()
        };
        let changes = match kind {
            Kind::ToOne => continue,
            Kind::ToMany => ObjectBuilder::new()
                .property("add", ArrayBuilder::new().items(create))
                .description(Some("New records, created with their key filled in (children are never removed here)."))
                .additional_properties(Some(utoipa::openapi::schema::AdditionalProperties::FreeForm(false))),
            Kind::ManyToMany => {
                let item = || OneOfBuilder::new().item(key()).item(create.clone());
                ObjectBuilder::new()
                    .property("add", ArrayBuilder::new().items(item()))
                    .property("remove", ArrayBuilder::new().items(key()))
                    .property("set", ArrayBuilder::new().items(item()))
                    .description(Some(
                        "Links added (existing records by key, or new ones), removed, or replaced (`set`, alone; links \
                         to records the caller may not see are kept). Records are never deleted.",
                    ))
                    .additional_properties(Some(utoipa::openapi::schema::AdditionalProperties::FreeForm(false)))
            }
        };
        object.properties.insert(name.to_string(), RefOr::T(changes.into()));
    }
    RefOr::T(Schema::Object(object))
}

/// The create components of `records`: one per table some writable relation writes, from the first ViewSet
/// registered for it (the one the write goes through), without the foreign keys filled in by to-many relations
/// (neither required nor allowed).
pub(crate) fn create_components(records: &[Record]) -> Vec<(String, RefOr<Schema>)> {
    let mut fills: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for write in records.iter().flat_map(|r| &r.writes) {
        let filled = fills.entry(&write.table).or_default();
        if let Some(column) = &write.fills {
            filled.insert(column);
        }
    }
    let mut components = Vec::new();
    for (table, filled) in fills {
        let schema = match records.iter().find(|r| r.table == table) {
            Some(record) => match record.create.clone() {
                RefOr::T(Schema::Object(mut object)) => {
                    // A nested record never names the key its parent fills in (a 422 `nested_conflict` if it does).
                    object.required.retain(|field| !filled.contains(field.as_str()));
                    object.properties.retain(|field, _| !filled.contains(field.as_str()));
                    RefOr::T(Schema::Object(object))
                }
                other => other,
            },
            None => {
                let description = format!("A record of `{table}`; no registered ViewSet serves this table.");
                ObjectBuilder::new().schema_type(Type::Object).description(Some(description)).into()
            }
        };
        components.push((create_component(table), schema));
    }
    components
}
