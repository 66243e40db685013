//! Validation of one column (names, types, defaults, keys) and of its foreign key against the project's entities.

use serde_json::Value;

use super::errors::{Errors, identifier, loc};
use super::layout::Entity;
use super::operations::{Column, ColumnType};
use super::render::Resolved;

/// Where a column is declared: in a new table, or added to an existing one.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    NewTable,
    AddColumn,
}

/// Checks `column` (errors under `at`) and resolves its foreign key among `entities`.
pub(crate) fn check(
    column: &Column,
    context: Context,
    entities: &[Entity],
    at: &[Value],
    errors: &mut Errors,
) -> Resolved {
    let here = |tail: &[Value]| -> Vec<Value> { at.iter().chain(tail).cloned().collect() };
    identifier(&column.name, true, &here(&loc!["name"]), errors);
    let t = column.column_type;
    if column.max_length.is_some() && t != ColumnType::String {
        errors.push(&here(&loc!["max_length"]), "not_applicable", "max_length applies to string columns only");
    }
    if column.max_length == Some(0) {
        errors.push(&here(&loc!["max_length"]), "out_of_range", "max_length must be at least 1");
    }
    if let Some(doc) = &column.doc
        && (doc.chars().any(char::is_control) || doc.chars().count() > 200)
    {
        errors.push(&here(&loc!["doc"]), "invalid_doc", "doc is one line of at most 200 characters");
    }
    if let Some(default) = &column.default {
        check_default(column, default, &here(&loc!["default"]), errors);
    }
    if column.primary_key {
        if context == Context::AddColumn {
            errors.push(&here(&loc!["primary_key"]), "not_supported", "add_column does not add primary keys");
        } else if !matches!(t, ColumnType::Integer | ColumnType::BigInteger) {
            errors.push(
                &here(&loc!["primary_key"]),
                "unsupported_primary_key",
                "a generated primary key is an auto-increment integer or big_integer",
            );
        } else if column.nullable || column.default.is_some() || column.references.is_some() {
            errors.push(
                &here(&loc!["primary_key"]),
                "unsupported_primary_key",
                "a primary key is not nullable and has no default or foreign key",
            );
        }
    }
    if context == Context::AddColumn {
        if column.unique {
            errors.push(
                &here(&loc!["unique"]),
                "not_supported",
                "add_column does not add unique columns (SQLite cannot add one with ALTER TABLE); add a unique \
                 index in a migration of your own",
            );
        }
        if !column.nullable && column.default.is_none() {
            errors.push(
                &here(&loc!["default"]),
                "default_required",
                format!("existing rows need a value: make `{}` nullable or give it a default", column.name),
            );
        }
    }
    let mut target = None;
    if let Some(reference) = &column.references {
        let at = here(&loc!["references"]);
        if context == Context::AddColumn {
            errors.push(&at, "not_supported", "add_column does not add foreign keys; create the table with it");
        } else if !matches!(t, ColumnType::Integer | ColumnType::BigInteger) {
            errors.push(&at, "invalid_reference", "a foreign key column is an integer or big_integer");
        } else if let Some(entity) = entities.iter().find(|e| e.table == reference.table) {
            match entity.field(&reference.column) {
                Some(field) if field.ty == t.rust_type() => {
                    target = Some((entity.module.clone(), entity.table.clone()));
                }
                Some(field) => errors.push(
                    &at,
                    "invalid_reference",
                    format!(
                        "`{}.{}` is `{}`, this column would be `{}`: use the same type",
                        entity.table,
                        reference.column,
                        field.ty,
                        t.rust_type()
                    ),
                ),
                None => errors.push(
                    &at,
                    "unknown_field",
                    format!("`{}` has no field `{}`; fields: {}", entity.table, reference.column, entity.field_names()),
                ),
            }
        } else {
            let tables: Vec<&str> = entities.iter().map(|e| e.table.as_str()).collect();
            errors.push(
                &at,
                "unknown_table",
                format!("no entity of this project has the table `{}`; tables: {}", reference.table, tables.join(", ")),
            );
        }
    }
    Resolved { column: column.clone(), target }
}

fn check_default(column: &Column, default: &Value, at: &[Value], errors: &mut Errors) {
    let t = column.column_type;
    let ok = match (t, default) {
        (ColumnType::Boolean, Value::Bool(_)) => true,
        (ColumnType::Integer, Value::Number(n)) => n.as_i64().is_some_and(|v| i32::try_from(v).is_ok()),
        (ColumnType::BigInteger, Value::Number(n)) => n.as_i64().is_some(),
        (ColumnType::Float, Value::Number(n)) => n.as_f64().is_some_and(f64::is_finite),
        (ColumnType::Text | ColumnType::String, Value::String(s)) => {
            column.max_length.is_none_or(|max| s.chars().count() <= max as usize)
        }
        _ => false,
    };
    if !ok {
        errors.push(
            at,
            "invalid_default",
            format!(
                "a default is a literal of the column's type: a boolean for boolean, an integer in range for \
                 integer/big_integer, a number for float, a string (within max_length) for text/string; {t:?} \
                 columns take none here (write the default in the migration by hand)"
            ),
        );
    }
}

/// Checks the columns of a new table together: each one, unique names, one primary key (an `id` is added first
/// when none is declared).
pub(crate) fn check_table(columns: &[Column], entities: &[Entity], errors: &mut Errors) -> Vec<Resolved> {
    let mut resolved = Vec::new();
    for (i, column) in columns.iter().enumerate() {
        let at = loc!["columns", i];
        if columns[..i].iter().any(|c| c.name == column.name) {
            errors.push(&loc!["columns", i, "name"], "duplicate", format!("`{}` is declared twice", column.name));
        }
        resolved.push(check(column, Context::NewTable, entities, &at, errors));
    }
    let keys = columns.iter().filter(|c| c.primary_key).count();
    if keys > 1 {
        errors.push(&loc!["columns"], "unsupported_primary_key", "composite primary keys are not generated");
    }
    if keys == 0 {
        if let Some(i) = columns.iter().position(|c| c.name == "id") {
            errors.push(
                &loc!["columns", i, "primary_key"],
                "primary_key_required",
                "`id` would be the added primary key: mark this column `primary_key` or rename it",
            );
        }
        let id = Column { primary_key: true, ..Column::new("id", ColumnType::Integer) };
        resolved.insert(0, Resolved { column: id, target: None });
    }
    resolved
}
