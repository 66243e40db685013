//! What a new table's relations write beyond its own files: `many_to_many` validated, then for each foreign key and
//! many-to-many relation the join table, the other entity's `Relation` / `Related` and both ViewSets' declarations
//! ([`Plan`]), applied to the workspace by [`Plan::write_others`].

use serde_json::Value;

use super::errors::{CodegenError, Errors, identifier, loc};
use super::layout::{self, ENTITIES, Entity, VIEWSETS};
use super::operations::{ColumnType, NewResource};
use super::plural::{plural, singular};
use super::relations::{self, Side};
use super::render::Resolved;
use super::render_join::{self, Join};
use super::rust_text::{Source, viewset_decls};
use super::workspace::Workspace;

/// Checks `op.many_to_many` against the new table's columns and the project's entities.
pub(crate) fn check(op: &NewResource, columns: &[Resolved], entities: &[Entity], errors: &mut Errors) {
    let tables: Vec<&str> = entities.iter().map(|e| e.table.as_str()).collect();
    for (i, m) in op.many_to_many.iter().enumerate() {
        let at = |key: &str| -> Vec<Value> { loc!["many_to_many", i, key].to_vec() };
        if identifier(&m.name, true, &at("name"), errors) {
            if columns.iter().any(|c| c.column.name == m.name) {
                errors.push(&at("name"), "duplicate", format!("`{}` is also a column of `{}`", m.name, op.table));
            } else if op.many_to_many[..i].iter().any(|o| o.name == m.name) {
                errors.push(&at("name"), "duplicate", format!("`{}` is declared twice", m.name));
            }
        }
        let Some(target) = entities.iter().find(|e| e.table == m.table) else {
            errors.push(
                &at("table"),
                "unknown_table",
                format!("no entity of this project has the table `{}`; tables: {}", m.table, tables.join(", ")),
            );
            continue;
        };
        if !target.field("id").is_some_and(|f| f.ty == "i32" || f.ty == "i64") {
            errors.push(&at("table"), "invalid_reference", format!("`{}` has no integer `id` to link to", m.table));
        }
        if columns.iter().any(|c| c.target.as_ref().is_some_and(|(_, t)| *t == m.table)) {
            errors.push(
                &at("table"),
                "duplicate",
                format!("`{}` also has a foreign key to `{}`: one relation per pair of tables", op.table, m.table),
            );
        } else if op.many_to_many[..i].iter().any(|o| o.table == m.table) {
            errors.push(&at("table"), "duplicate", format!("a second many-to-many relation to `{}`", m.table));
        }
        let join = format!("{}_{}", op.table, m.name);
        if entities.iter().any(|e| e.table == join) {
            errors.push(&at("name"), "already_exists", format!("the join table `{join}` exists already"));
        }
        if singular(&op.table) == singular(&m.table) {
            errors.push(&at("table"), "invalid_reference", "a table is not linked to itself here");
        }
    }
}

/// An edit of another entity: the variant added to its `Relation` (if any) and the impl after it.
struct EntityEdit {
    path: String,
    table: String,
    variant: Option<String>,
    impl_text: String,
}

/// Everything the relations of one new table write.
#[derive(Default)]
pub(crate) struct Plan {
    /// The new ViewSet's relations.
    pub(crate) sides: Vec<Side>,
    /// More `Related` impls of the new entity (through join tables).
    pub(crate) impls: Vec<String>,
    /// The join tables (created by the new table's migration).
    pub(crate) joins: Vec<Join>,
    entities: Vec<EntityEdit>,
    viewsets: Vec<(String, Side)>,
}

/// The Rust type of the key of `entity` (`id`), `i32` when unknown.
fn key_type(entity: &Entity) -> String {
    entity.field("id").map_or("i32".to_string(), |f| f.ty.clone())
}

/// Plans both sides of the new table's relations (validated).
pub(crate) fn plan(
    ws: &mut Workspace,
    op: &NewResource,
    columns: &[Resolved],
    entities: &[Entity],
    notes: &mut Vec<String>,
) -> Result<Plan, CodegenError> {
    let table = op.table.as_str();
    let module = format!("crate::entities::{table}");
    let text = ws.require(VIEWSETS, "ViewSets")?;
    let source = Source::new(&text);
    let decls = viewset_decls(&source);
    let own_strings: Vec<String> = std::iter::once("id".to_string())
        .chain(
            columns
                .iter()
                .filter(|c| c.column.column_type == ColumnType::String && !c.column.primary_key)
                .filter(|c| {
                    [&op.viewset.filterable_fields, &op.viewset.search_fields]
                        .iter()
                        .any(|l| l.contains(&c.column.name))
                })
                .map(|c| c.column.name.clone()),
        )
        .collect();
    let reverse = plural(table);
    let mut plan = Plan::default();
    let mut seen = Vec::new();
    for c in columns {
        let Some((target_module, target_table)) = &c.target else { continue };
        let Some(target) = entities.iter().find(|e| &e.table == target_table) else { continue };
        let first = !seen.contains(target_table);
        seen.push(target_table.clone());
        let decl = relations::viewset_of(&text, &decls, target);
        // The relation is named after its column without `_id` (`category_id` → `category`), as its `Relation`
        // variant is; a column named otherwise would share its name with the relation.
        match (c.column.name.strip_suffix("_id"), decl) {
            (Some(name), Some(d)) => plan.sides.push(Side {
                name: name.to_string(),
                module: target_module.clone(),
                filters: relations::filterable_strings(&text, d, target),
                related: first,
                writable: false,
            }),
            (Some(name), None) => notes.push(format!("no ViewSet serves `{target_table}`: `{name}` is not expandable")),
            (None, _) => notes.push(format!(
                "`{}` does not end in `_id`: its relation is not declared on the ViewSet",
                c.column.name
            )),
        }
        if !first {
            continue;
        }
        if target.field(&reverse).is_some() {
            notes.push(format!(
                "`{target_table}` has a field `{reverse}`: its side of `{}` is not written",
                c.column.name
            ));
            continue;
        }
        let doc = format!("Its `{reverse}` (`{table}.{}`).", c.column.name);
        let (variant, variant_name) = relations::has_many_variant(&doc, &reverse, &module);
        plan.entities.push(EntityEdit {
            path: target.path.clone(),
            table: target_table.clone(),
            variant: Some(variant),
            impl_text: relations::related_impl(&doc, &module, &variant_name),
        });
        if let Some(d) = decl {
            plan.viewsets.push((d.name.clone(), Side::reverse(&reverse, &module, &own_strings)));
        }
    }
    let own_key = columns.iter().find(|c| c.column.primary_key).map_or("i32", |c| c.column.column_type.rust_type());
    for m in &op.many_to_many {
        let Some(target) = entities.iter().find(|e| e.table == m.table) else { continue };
        let join = Join {
            table: format!("{table}_{}", m.name),
            owner: (table.to_string(), module.clone(), format!("{}_id", singular(table)), own_key.to_string()),
            target: (m.table.clone(), target.module.clone(), format!("{}_id", singular(&m.table)), key_type(target)),
        };
        let (owner_variant, target_variant) = join.variants();
        let doc = format!("`{table}` and `{}` through `{}` (many-to-many).", m.table, join.table);
        plan.impls.push(relations::related_via(&doc, &target.module, &join.module(), &target_variant, &owner_variant));
        let decl = relations::viewset_of(&text, &decls, target);
        match decl {
            Some(d) => plan.sides.push(Side {
                name: m.name.clone(),
                module: target.module.clone(),
                filters: relations::filterable_strings(&text, d, target),
                related: true,
                writable: true,
            }),
            None => notes.push(format!("no ViewSet serves `{}`: `{}` is not expandable", m.table, m.name)),
        }
        plan.entities.push(EntityEdit {
            path: target.path.clone(),
            table: m.table.clone(),
            variant: None,
            impl_text: relations::related_via(&doc, &module, &join.module(), &owner_variant, &target_variant),
        });
        if let Some(d) = decl {
            if target.field(&reverse).is_some() {
                notes.push(format!("`{}` has a field `{reverse}`: its side of `{}` is not declared", m.table, m.name));
            } else {
                plan.viewsets.push((d.name.clone(), Side::reverse(&reverse, &module, &own_strings)));
            }
        }
        plan.joins.push(join);
    }
    Ok(plan)
}

impl Plan {
    /// Writes the join entities, the other entities' relations and the other ViewSets' declarations (after the
    /// new ViewSet was added to `src/viewsets.rs`).
    pub(crate) fn write_others(&self, ws: &mut Workspace, notes: &mut Vec<String>) -> Result<(), CodegenError> {
        for join in &self.joins {
            ws.write(&format!("src/entities/{}.rs", join.table), render_join::entity(join))?;
            let list = ws.read(ENTITIES)?;
            ws.write(ENTITIES, layout::add_entity_module(list.as_deref(), &join.table))?;
            notes.push(format!("`{}`: join entity {} (the pair is its primary key)", join.table, join.module()));
        }
        for edit in &self.entities {
            let text = ws.require(&edit.path, "the entity")?;
            match relations::add_to_entity(&text, edit.variant.as_deref(), &edit.impl_text) {
                Some(edited) => {
                    ws.write(&edit.path, edited)?;
                    notes.push(format!("`{}`: the other side of the relation in {}", edit.table, edit.path));
                }
                None => notes.push(format!(
                    "{} has no `pub enum Relation`: add the other side of the relation to `{}` by hand",
                    edit.path, edit.table
                )),
            }
        }
        for (viewset, side) in &self.viewsets {
            let text = ws.require(VIEWSETS, "ViewSets")?;
            ws.write(VIEWSETS, relations::add_side(&text, viewset, side, notes)?)?;
        }
        Ok(())
    }
}
