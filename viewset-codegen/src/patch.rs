//! `add_to_allowlist` (an edit of a `#[viewset(...)]` attribute's text) and `add_column` (a field in the entity's
//! `Model` and a migration adding the column).

use super::columns::{self, Context};
use super::errors::{CodegenError, Errors, identifier, loc};
use super::layout::{self, MIGRATION, VIEWSETS};
use super::operations::{AddColumn, AddToAllowlist, Allowlist};
use super::render;
use super::rust_text::{Source, ViewSetDecl, indent_at, model_fields, string_list, viewset_decls};
use super::workspace::Workspace;

/// `text` with `item` (`key = value`) added as the last item of the attribute `decl`.
pub(crate) fn add_item(text: &str, decl: &ViewSetDecl, item: &str) -> String {
    let Some(last) = decl.items.last() else {
        return format!("{}{item}{}", &text[..decl.inner.start], &text[decl.inner.end..]);
    };
    let inner = &text[decl.inner.clone()];
    if inner.contains('\n') {
        let indent = indent_at(text, last.range.start);
        let after = &text[last.range.end..decl.inner.end];
        if after.trim_start().starts_with(',') {
            let comma = last.range.end + after.find(',').unwrap_or(0) + 1;
            format!("{}\n{indent}{item},{}", &text[..comma], &text[comma..])
        } else {
            format!("{},\n{indent}{item}{}", &text[..last.range.end], &text[last.range.end..])
        }
    } else {
        format!("{}, {item}{}", &text[..last.range.end], &text[last.range.end..])
    }
}

/// `text` with `entry` appended to the list value `value` (`["a"]` → `["a", "b"]`).
pub(crate) fn append_to_list(text: &str, value: std::ops::Range<usize>, entry: &str) -> String {
    let source = Source::new(text);
    let items = source.split_items(value.start + 1..value.end - 1);
    match items.last() {
        Some(last) => format!("{}, {entry}{}", &text[..last.end], &text[last.end..]),
        None => format!("{}{entry}{}", &text[..value.start + 1], &text[value.end - 1..]),
    }
}

pub(crate) fn decl<'a>(decls: &'a [ViewSetDecl], name: &str) -> &'a ViewSetDecl {
    decls.iter().find(|d| d.name == name).expect("the ViewSet was found before the edit")
}

/// Validates and applies `add_to_allowlist`.
pub(crate) fn add_to_allowlist(
    ws: &mut Workspace,
    op: &AddToAllowlist,
    notes: &mut Vec<String>,
) -> Result<(), CodegenError> {
    let mut errors = Errors::default();
    let text = ws.require(VIEWSETS, "ViewSets")?;
    let source = Source::new(&text);
    let decls = viewset_decls(&source);
    let Some(found) = decls.iter().find(|d| d.name == op.viewset) else {
        let known: Vec<&str> = decls.iter().map(|d| d.name.as_str()).collect();
        errors.push(
            &loc!["viewset"],
            "unknown_viewset",
            format!("no ViewSet `{}` in {VIEWSETS}; ViewSets: {}", op.viewset, known.join(", ")),
        );
        return Err(CodegenError::Invalid(errors.list));
    };
    let model = found.item("model").map(|i| text[i.value.clone()].to_string()).unwrap_or_default();
    let entities = layout::entities(ws)?;
    let entity = layout::entity_of_model(&entities, &model).ok_or_else(|| {
        CodegenError::UnsupportedLayout(format!(
            "the model of {} (`{model}`) is not an entity of src/entity.rs or src/entities/",
            op.viewset
        ))
    })?;
    let field = op.field.as_str();
    if identifier(field, op.allowlist == Allowlist::FilterableFields, &loc!["field"], &mut errors) {
        match entity.field(field) {
            None => errors.push(
                &loc!["field"],
                "unknown_field",
                format!("`{}` has no field `{field}`; fields: {}", entity.table, entity.field_names()),
            ),
            Some(f) if op.allowlist == Allowlist::SearchFields && f.ty != "String" && f.ty != "Option<String>" => {
                errors.push(
                    &loc!["field"],
                    "not_text",
                    format!("`{field}` is `{}`: only text fields are searched", f.ty),
                )
            }
            Some(_) => {}
        }
    }
    if !errors.is_empty() {
        return Err(CodegenError::Invalid(errors.list));
    }

    if let Some(text) = insert_in_allowlist(&text, &op.viewset, op.allowlist, field, notes)? {
        ws.write(VIEWSETS, text)?;
    }
    Ok(())
}

/// `text` (`src/viewsets.rs`) with `field` in the allowlist `allowlist` of the ViewSet `viewset` (declared there)
/// and the filter backend it needs; `None` when it is there already (a note says so).
pub(crate) fn insert_in_allowlist(
    text: &str,
    viewset: &str,
    allowlist: Allowlist,
    field: &str,
    notes: &mut Vec<String>,
) -> Result<Option<String>, CodegenError> {
    let key = allowlist.key();
    let source = Source::new(text);
    let decls = viewset_decls(&source);
    let found = decl(&decls, viewset);
    let quoted = format!("\"{field}\"");
    let mut text = text.to_string();
    match found.item(key) {
        Some(item) if super::rust_text::string_literal(&text[item.value.clone()]).as_deref() == Some("__all__") => {
            notes.push(format!("{viewset}: {key} is \"__all__\", which already has `{field}`"));
            return Ok(None);
        }
        Some(item) => match string_list(&source, item.value.clone()) {
            Some(list) if list.iter().any(|f| f == field) => {
                notes.push(format!("{viewset}: `{field}` is already in {key}; nothing to change"));
                return Ok(None);
            }
            Some(_) => text = append_to_list(&text, item.value.clone(), &quoted),
            None => {
                return Err(CodegenError::UnsupportedLayout(format!(
                    "{key} of {viewset} is not a literal list of strings; edit it by hand"
                )));
            }
        },
        None => text = add_item(&text, found, &format!("{key} = [{quoted}]")),
    }
    let (backend, satisfied_by) = allowlist.backend();
    let source = Source::new(&text);
    let decls = viewset_decls(&source);
    let current = decl(&decls, viewset);
    match current.item("filter_backends") {
        Some(item) => {
            let items = source.split_items(item.value.start + 1..item.value.end - 1);
            let has = items.iter().any(|r| {
                let last = text[r.clone()].rsplit("::").next().unwrap_or_default().trim().to_string();
                satisfied_by.contains(&last.as_str())
            });
            if !has {
                text = append_to_list(&text, item.value.clone(), backend);
                notes.push(format!("{viewset}: added {backend} to filter_backends ({key} needs it)"));
            }
        }
        None => {
            text = add_item(&text, current, &format!("filter_backends = [{backend}]"));
            notes.push(format!("{viewset}: added filter_backends = [{backend}] ({key} needs it)"));
        }
    }
    notes.push(format!("{viewset}: `{field}` added to {key}"));
    Ok(Some(text))
}

/// Validates and applies `add_column`.
pub(crate) fn add_column(ws: &mut Workspace, op: &AddColumn, notes: &mut Vec<String>) -> Result<(), CodegenError> {
    let mut errors = Errors::default();
    let entities = layout::entities(ws)?;
    let Some(entity) = entities.iter().find(|e| e.table == op.table) else {
        let tables: Vec<&str> = entities.iter().map(|e| e.table.as_str()).collect();
        errors.push(
            &loc!["table"],
            "unknown_table",
            format!("no entity of this project has the table `{}`; tables: {}", op.table, tables.join(", ")),
        );
        return Err(CodegenError::Invalid(errors.list));
    };
    let column = &op.column;
    columns::check(column, Context::AddColumn, &entities, &loc!["column"], &mut errors);
    if entity.field(&column.name).is_some() {
        errors.push(
            &loc!["column", "name"],
            "already_exists",
            format!("`{}` already has a field `{}`", entity.table, column.name),
        );
    }
    if !errors.is_empty() {
        return Err(CodegenError::Invalid(errors.list));
    }
    let text = ws.require(&entity.path, "the entity")?;
    let (_, close) = model_fields(&Source::new(&text))
        .ok_or_else(|| CodegenError::UnsupportedLayout(format!("`{}` has no `pub struct Model`", entity.path)))?;
    let head = text[..close].trim_end();
    let head = if head.ends_with(',') || head.ends_with('{') { head.to_string() } else { format!("{head},") };
    ws.write(&entity.path, format!("{head}\n{}{}", render::field(column), &text[close..]))?;

    let migration = ws.require(MIGRATION, "registering the migration")?;
    let count = layout::migration_count(&migration)?;
    let module = layout::migration_module(ws, count, &format!("add_{}_{}", entity.table, column.name))?;
    ws.write(&format!("src/migration/{module}.rs"), render::add_column_migration(&entity.table, column))?;
    ws.write(MIGRATION, layout::add_migration(&migration, &module)?)?;
    notes.push(format!(
        "`{}.{}`: field in {} and migration {module} (applied by `Migrator::up` at the next start)",
        entity.table, column.name, entity.path
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_added_in_the_attribute_style() {
        let multi = "#[viewset(\n    model = entity::Entity,\n    ordering = \"-id\",\n)]\npub struct A;\n";
        let source = Source::new(multi);
        let decls = viewset_decls(&source);
        let out = add_item(multi, &decls[0], "search_fields = [\"name\"]");
        assert_eq!(
            out,
            "#[viewset(\n    model = entity::Entity,\n    ordering = \"-id\",\n    search_fields = [\"name\"],\n)]\npub struct A;\n"
        );
        let single = "#[viewset(model = entity::Entity, filterable_fields = [])]\npub struct A;";
        let source = Source::new(single);
        let decls = viewset_decls(&source);
        let value = decls[0].item("filterable_fields").unwrap().value.clone();
        assert_eq!(
            append_to_list(single, value, "\"done\""),
            "#[viewset(model = entity::Entity, filterable_fields = [\"done\"])]\npub struct A;"
        );
        let out = add_item(single, &decls[0], "x = [1]");
        assert_eq!(out, "#[viewset(model = entity::Entity, filterable_fields = [], x = [1])]\npub struct A;");
    }
}
