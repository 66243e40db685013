//! `new_resource`: validates a table description and writes its entity, migration and ViewSet with their
//! registrations.

use super::columns::check_table;
use super::errors::{CodegenError, Errors, identifier, loc, pascal, type_name};
use super::layout::{self, ENTITIES, LIB, MIGRATION, VIEWSETS};
use super::operations::{ColumnType, NewResource};
use super::render::{self, ViewSetText};
use super::rust_text::{Source, viewset_decls};
use super::workspace::Workspace;

/// The built-in permission classes a generated ViewSet may name.
pub(crate) const PERMISSIONS: [&str; 4] = ["AllowAny", "IsAuthenticated", "IsAuthenticatedOrReadOnly", "IsAdminUser"];

/// Whether `prefix` is a route prefix the generator writes: `/` then lowercase segments of letters, digits, `_`
/// and `-`, no trailing slash.
fn valid_prefix(prefix: &str) -> bool {
    prefix.strip_prefix('/').is_some_and(|rest| {
        !rest.is_empty()
            && rest.split('/').all(|s| {
                !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
            })
    })
}

/// Validates `op` against the project in `ws` and writes its files; notes go to `notes`.
pub(crate) fn apply(ws: &mut Workspace, op: &NewResource, notes: &mut Vec<String>) -> Result<(), CodegenError> {
    let mut errors = Errors::default();
    let entities = layout::entities(ws)?;
    let table = op.table.as_str();
    if identifier(table, false, &loc!["table"], &mut errors) {
        let file = format!("src/entities/{table}.rs");
        if entities.iter().any(|e| e.table == table) || ws.read(&file)?.is_some() {
            errors.push(&loc!["table"], "already_exists", format!("the project already has an entity for `{table}`"));
        }
        if table == "entity" {
            errors.push(&loc!["table"], "already_exists", "`entity` is the name of the first entity's module");
        }
    }
    let columns = check_table(&op.columns, &entities, &mut errors);
    super::both_sides::check(op, &columns, &entities, &mut errors);

    let viewsets_text = ws.require(VIEWSETS, "ViewSets")?;
    let source = Source::new(&viewsets_text);
    let decls = viewset_decls(&source);
    let spec = &op.viewset;
    let name = spec.name.clone().unwrap_or_else(|| format!("{}ViewSet", pascal(table)));
    if type_name(&name, &loc!["viewset", "name"], &mut errors)
        && (decls.iter().any(|d| d.name == name) || source.find(&format!("struct {name}"), 0).is_some())
    {
        errors.push(&loc!["viewset", "name"], "already_exists", format!("`{name}` is already declared in {VIEWSETS}"));
    }
    let prefix = spec.prefix.clone().unwrap_or_else(|| format!("/api/{table}"));
    if !valid_prefix(&prefix) {
        errors.push(
            &loc!["viewset", "prefix"],
            "invalid_prefix",
            format!("`{prefix}` is not a prefix: `/` then lowercase segments (`/api/tags`), no trailing slash"),
        );
    } else if source.find(&format!("prefix = \"{prefix}\""), 0).is_some() {
        errors.push(&loc!["viewset", "prefix"], "already_exists", format!("another ViewSet serves `{prefix}`"));
    }
    let column_named = |field: &str| columns.iter().find(|c| c.column.name == field);
    for (key, fields) in [
        ("filterable_fields", &spec.filterable_fields),
        ("search_fields", &spec.search_fields),
        ("ordering_fields", &spec.ordering_fields),
    ] {
        for (i, field) in fields.iter().enumerate() {
            let at = loc!["viewset", key, i];
            match column_named(field) {
                None => errors.push(&at, "unknown_field", format!("`{field}` is not a column of `{table}`")),
                Some(c)
                    if key == "search_fields"
                        && !matches!(c.column.column_type, ColumnType::Text | ColumnType::String) =>
                {
                    errors.push(
                        &at,
                        "not_text",
                        format!("`{field}` is not a text or string column: it cannot be searched"),
                    )
                }
                Some(_) if fields[..i].contains(field) => {
                    errors.push(&at, "duplicate", format!("`{field}` is listed twice"))
                }
                Some(_) => {}
            }
        }
    }
    for (i, term) in spec.ordering.iter().enumerate() {
        let field = term.strip_prefix('-').unwrap_or(term);
        let allowed = if spec.ordering_fields.is_empty() {
            column_named(field).is_some()
        } else {
            spec.ordering_fields.iter().any(|f| f == field)
        };
        if !allowed {
            errors.push(
                &loc!["viewset", "ordering", i],
                "unknown_field",
                format!("`{term}`: `{field}` is not a column (or not in ordering_fields when that is given)"),
            );
        }
    }
    for (i, class) in spec.permission_classes.iter().enumerate() {
        if !PERMISSIONS.contains(&class.as_str()) {
            errors.push(
                &loc!["viewset", "permission_classes", i],
                "unknown_permission",
                format!("`{class}` is not a built-in permission class; use one of {}", PERMISSIONS.join(", ")),
            );
        }
    }
    if !errors.is_empty() {
        return Err(CodegenError::Invalid(errors.list));
    }

    let module = format!("crate::entities::{table}");
    let plan = super::both_sides::plan(ws, op, &columns, &entities, notes)?;
    ws.write(&format!("src/entities/{table}.rs"), render::entity(table, &columns, &plan.impls))?;
    let list = ws.read(ENTITIES)?;
    ws.write(ENTITIES, layout::add_entity_module(list.as_deref(), table))?;

    let migration = ws.require(MIGRATION, "registering the migration")?;
    let count = layout::migration_count(&migration)?;
    let migration_module = layout::migration_module(ws, count, &format!("create_{table}"))?;
    ws.write(&format!("src/migration/{migration_module}.rs"), render::create_migration(table, &columns, &plan.joins))?;
    ws.write(MIGRATION, layout::add_migration(&migration, &migration_module)?)?;

    let default_permissions = spec.permission_classes.iter().all(|p| p == "IsAuthenticatedOrReadOnly");
    let permissions = if spec.permission_classes.is_empty() {
        vec!["IsAuthenticatedOrReadOnly".to_string()]
    } else {
        spec.permission_classes.clone()
    };
    let declaration = render::viewset(&ViewSetText {
        name: &name,
        module: &module,
        prefix: &prefix,
        filterable: &spec.filterable_fields,
        search: &spec.search_fields,
        ordering_fields: &spec.ordering_fields,
        ordering: &spec.ordering,
        permissions: &permissions,
        sides: &plan.sides,
    });
    ws.write(VIEWSETS, format!("{}\n{declaration}", viewsets_text.trim_end()))?;
    plan.write_others(ws, notes)?;

    let lib = ws.require(LIB, "registering modules and ViewSets")?;
    let lib = layout::add_lib_module(&lib, "entities")?;
    ws.write(LIB, layout::add_include(&lib, &name)?)?;
    notes.push(format!(
        "`{table}`: entity {module}, migration {migration_module} (applied by `Migrator::up` at the next start), \
         {name} at {prefix}/ registered in api()"
    ));
    match super::resource_test::write(ws, table, &prefix, default_permissions)? {
        Some(test) => notes.push(format!("{test}: lists {prefix}/ and refuses an anonymous write (`cargo test`)")),
        None => notes.push(
            "no test written (it needs `pub async fn test_database()` in src/lib.rs, as `viewset new` writes, and \
             the default permission classes)"
                .to_string(),
        ),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn prefixes() {
        for good in ["/api/tags", "/tags", "/api/v1/tag-links"] {
            assert!(super::valid_prefix(good), "{good}");
        }
        for bad in ["api/tags", "/api/tags/", "/", "/api//x", "/API", "/api/{pk}", "/api/tags\"x"] {
            assert!(!super::valid_prefix(bad), "{bad}");
        }
    }
}
