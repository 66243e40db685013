//! `viewset generate`: the code generator of viewset-codegen (the one behind Studio's `/ai/codegen` endpoints) on
//! the project in the current directory: field arguments become its operations, `--dry-run` prints the preview's
//! diff, otherwise the preview is applied.

use std::path::Path;

use serde_json::Value;
use viewset_codegen::{
    AddColumn, AddToAllowlist, Allowlist, CodegenError, Column, ColumnType, NewMigration, NewResource, Operation,
    Reference, ViewSetSpec,
};

/// The types a field argument may name, with the generator's column type.
const TYPES: &[(&str, ColumnType)] = &[
    ("string", ColumnType::String),
    ("text", ColumnType::Text),
    ("i32", ColumnType::Integer),
    ("i64", ColumnType::BigInteger),
    ("f64", ColumnType::Float),
    ("decimal", ColumnType::Decimal),
    ("bool", ColumnType::Boolean),
    ("date", ColumnType::Date),
    ("datetime", ColumnType::DateTime),
    ("uuid", ColumnType::Uuid),
    ("json", ColumnType::Json),
];

fn type_names() -> String {
    let mut names: Vec<&str> = TYPES.iter().map(|(name, _)| *name).collect();
    names.push("references:<resource>");
    names.join(", ")
}

/// Parses `<name>:<type>[?][=<default>]` or `<name>:references:<resource>[?]`.
pub fn parse_field(argument: &str) -> Result<Column, String> {
    let usage = || {
        format!(
            "`{argument}` is not a field: write <name>:<type>, `?` after the type for a nullable field, `=<value>` \
             for a database default (`stock:i32=0`); types: {}",
            type_names()
        )
    };
    let (name, rest) = argument.split_once(':').ok_or_else(usage)?;
    let (rest, default) = match rest.split_once('=') {
        Some((rest, default)) => (rest, Some(default)),
        None => (rest, None),
    };
    let (rest, nullable) = match rest.strip_suffix('?') {
        Some(rest) => (rest, true),
        None => (rest, false),
    };
    let mut column = Column { nullable, ..Column::new(name, ColumnType::Integer) };
    if let Some(table) = rest.strip_prefix("references:") {
        if table.is_empty() || default.is_some() {
            return Err(usage());
        }
        column.references = Some(Reference { table: table.to_string(), column: "id".to_string() });
        return Ok(column);
    }
    column.column_type = TYPES.iter().find(|(n, _)| *n == rest).map(|(_, t)| *t).ok_or_else(usage)?;
    if let Some(default) = default {
        column.default = Some(match column.column_type {
            ColumnType::String | ColumnType::Text => Value::from(default.trim_matches('"')),
            _ => serde_json::from_str(default).map_err(|_| format!("`{argument}`: `{default}` is not a value"))?,
        });
    }
    Ok(column)
}

/// Whether a field of this type goes in `filterable_fields` (not long text, not JSON).
fn filterable(column: &Column) -> bool {
    !matches!(column.column_type, ColumnType::Text | ColumnType::Json)
}

/// Whether a field of this type goes in `ordering_fields`: what is filterable, but a UUID (its order means nothing).
fn orderable(column: &Column) -> bool {
    filterable(column) && column.column_type != ColumnType::Uuid
}

fn searchable(column: &Column) -> bool {
    matches!(column.column_type, ColumnType::Text | ColumnType::String)
}

/// `generate resource`: one `new_resource` with allowlists every field fits.
pub fn resource(name: &str, columns: Vec<Column>) -> Vec<Operation> {
    let names = |keep: fn(&Column) -> bool| columns.iter().filter(|c| keep(c)).map(|c| c.name.clone()).collect();
    let mut ordering_fields = vec!["id".to_string()];
    ordering_fields.extend(names(orderable));
    let viewset = ViewSetSpec {
        filterable_fields: names(filterable),
        search_fields: names(searchable),
        ordering_fields,
        ordering: vec!["-id".to_string()],
        ..ViewSetSpec::default()
    };
    vec![Operation::NewResource(NewResource { table: name.to_string(), columns, viewset })]
}

/// `generate field`: an `add_column`, then the column in the allowlists it fits of the resource's ViewSet.
pub fn field(resource: &str, viewset: &str, column: Column) -> Vec<Operation> {
    let mut lists = Vec::new();
    if filterable(&column) {
        lists.push(Allowlist::FilterableFields);
    }
    if orderable(&column) {
        lists.push(Allowlist::OrderingFields);
    }
    if searchable(&column) {
        lists.push(Allowlist::SearchFields);
    }
    let name = column.name.clone();
    let mut operations = vec![Operation::AddColumn(AddColumn { table: resource.to_string(), column })];
    operations.extend(lists.into_iter().map(|allowlist| {
        Operation::AddToAllowlist(AddToAllowlist { viewset: viewset.to_string(), allowlist, field: name.clone() })
    }));
    operations
}

/// `generate migration`: one `new_migration`.
pub fn migration(name: &str) -> Vec<Operation> {
    vec![Operation::NewMigration(NewMigration { name: name.to_string() })]
}

/// The generator's refusal as lines for the terminal: each invalid value under the argument it came from
/// (`arguments`: the resource, or migration, then the fields).
fn describe(error: &CodegenError, arguments: &[String]) -> String {
    let CodegenError::Invalid(errors) = error else { return error.to_string() };
    let lines: Vec<String> = errors
        .iter()
        .map(|e| {
            let key = e.loc.get(1).and_then(Value::as_str).unwrap_or_default();
            let argument = match key {
                "columns" => e.loc.get(2).and_then(Value::as_u64).and_then(|i| arguments.get(i as usize + 1)),
                "column" => arguments.get(1),
                "table" | "name" => arguments.first(),
                _ => None,
            };
            let at = match argument {
                Some(argument) => format!("`{argument}`"),
                None => e
                    .loc
                    .iter()
                    .skip(1)
                    .map(|l| l.to_string().trim_matches('"').to_string())
                    .collect::<Vec<_>>()
                    .join("."),
            };
            format!("{at}: {}", e.msg)
        })
        .collect();
    lines.join("\n")
}

/// Previews `operations` on the project in `dir`; prints the diff (`dry_run`) or applies it and lists the files.
/// `arguments` are the command's own (the resource then its fields), to say which one an error is about.
pub fn run(dir: &Path, operations: &[Operation], dry_run: bool, arguments: &[String]) -> Result<String, String> {
    let preview = viewset_codegen::preview(dir, operations).map_err(|e| describe(&e, arguments))?;
    let notes: String = preview.steps.iter().flat_map(|s| &s.notes).map(|n| format!("note: {n}\n")).collect();
    if dry_run {
        return Ok(format!("{}{notes}dry run: nothing was written", preview.diff()));
    }
    let written = viewset_codegen::apply(dir, &preview).map_err(|e| describe(&e, arguments))?;
    let files: String = written.iter().map(|f| format!("{:>6} {}\n", f.action, f.path)).collect();
    Ok(format!("{files}{notes}next: cargo run (the server applies the new migration at start-up)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_arguments() {
        let c = parse_field("price:f64?").unwrap();
        assert_eq!((c.column_type, c.nullable), (ColumnType::Float, true));
        let c = parse_field("author_id:references:authors?").unwrap();
        assert_eq!((c.references.unwrap().table.as_str(), c.nullable), ("authors", true));
        assert_eq!(parse_field("stock:i32=0").unwrap().default, Some(Value::from(0)));
        assert_eq!(parse_field("colour:string=blue").unwrap().default, Some(Value::from("blue")));
        for bad in ["price", "price:float64", "x:references:", "n:i32=zero"] {
            assert!(parse_field(bad).is_err(), "{bad}");
        }
        let c = parse_field("total:decimal?").unwrap();
        assert_eq!((c.column_type, c.nullable), (ColumnType::Decimal, true));
        assert_eq!(parse_field("code:uuid").unwrap().column_type, ColumnType::Uuid);
    }

    #[test]
    fn allowlists_follow_the_types() {
        let columns = ["title:string", "body:text?", "extra:json?", "views:i64", "price:decimal", "code:uuid?"]
            .map(|a| parse_field(a).unwrap());
        let operations = resource("posts", columns.to_vec());
        let [Operation::NewResource(op)] = operations.as_slice() else { panic!("{operations:?}") };
        assert_eq!(op.viewset.filterable_fields, ["title", "views", "price", "code"]);
        assert_eq!(op.viewset.search_fields, ["title", "body"]);
        assert_eq!(op.viewset.ordering_fields, ["id", "title", "views", "price"]);
        let lists = |operations: Vec<Operation>| -> Vec<Allowlist> {
            operations
                .into_iter()
                .filter_map(|op| if let Operation::AddToAllowlist(add) = op { Some(add.allowlist) } else { None })
                .collect()
        };
        let price = lists(field("posts", "PostsViewSet", parse_field("cost:decimal?").unwrap()));
        assert_eq!(price, [Allowlist::FilterableFields, Allowlist::OrderingFields]);
        let code = lists(field("posts", "PostsViewSet", parse_field("ref:uuid?").unwrap()));
        assert_eq!(code, [Allowlist::FilterableFields]);
    }
}
