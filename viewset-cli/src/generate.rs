//! `viewset generate`: the code generator of viewset-codegen (the one behind Studio's `/ai/codegen` endpoints) on
//! the project in the current directory: field arguments become its operations, `--dry-run` prints the preview's
//! diff, otherwise the preview is applied.

use std::path::Path;

use serde_json::Value;
use viewset_codegen::{
    AddColumn, AddToAllowlist, Allowlist, CodegenError, Column, ColumnType, ManyToMany, NewMigration, NewResource,
    Operation, Reference, ViewSetSpec,
};

/// The length of a generated `string` field (`VARCHAR(255)`, checked on create and update by the ViewSet):
/// `name:string` is `#[sea_orm(column_type = "String(StringLen::N(255))")]` and `string_len("name", 255)`.
pub const STRING_MAX_LENGTH: u32 = 255;

/// One field argument of `generate resource`: a column, or a many-to-many relation (`tags:many_to_many:tag`).
///
/// ```text
/// name:string                       → Field::Column (VARCHAR(255))
/// category_id:references:category   → Field::Column with its reference
/// tags:many_to_many:tag             → Field::ManyToMany { name: "tags", table: "tag" }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    /// A column (`name:string`, `category_id:references:category`).
    Column(Column),
    /// A many-to-many relation through a join table of its own.
    ManyToMany(ManyToMany),
}

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
    names.push("many_to_many:<resource>");
    names.join(", ")
}

/// Parses `<name>:<type>[?][=<default>]`, `<name>:references:<resource>[?]` or `<name>:many_to_many:<resource>`.
///
/// ```text
/// viewset generate resource post title:string tags:many_to_many:tag   # a post's tags, through `post_tags`
/// ```
pub fn parse_argument(argument: &str) -> Result<Field, String> {
    if let Some((name, table)) = argument.split_once(":many_to_many:") {
        if name.is_empty() || table.is_empty() || table.contains([':', '?', '=']) {
            return Err(format!(
                "`{argument}` is not a field: write <name>:many_to_many:<resource> (`tags:many_to_many:tag`)"
            ));
        }
        return Ok(Field::ManyToMany(ManyToMany { name: name.to_string(), table: table.to_string() }));
    }
    parse_field(argument).map(Field::Column)
}

/// Parses `<name>:<type>[?][=<default>]` or `<name>:references:<resource>[?]`; a `string` is at most
/// [`STRING_MAX_LENGTH`] characters.
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
    if column.column_type == ColumnType::String {
        column.max_length = Some(STRING_MAX_LENGTH);
    }
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

/// `generate resource`: one `new_resource` served at `/api/<plural of name>`, with allowlists every field fits
/// and its many-to-many relations.
pub fn resource(name: &str, fields: Vec<Field>) -> Vec<Operation> {
    let mut columns = Vec::new();
    let mut many_to_many = Vec::new();
    for field in fields {
        match field {
            Field::Column(column) => columns.push(column),
            Field::ManyToMany(relation) => many_to_many.push(relation),
        }
    }
    let names = |keep: fn(&Column) -> bool| columns.iter().filter(|c| keep(c)).map(|c| c.name.clone()).collect();
    let mut ordering_fields = vec!["id".to_string()];
    ordering_fields.extend(names(orderable));
    let viewset = ViewSetSpec {
        filterable_fields: names(filterable),
        search_fields: names(searchable),
        ordering_fields,
        ordering: vec!["-id".to_string()],
        prefix: Some(format!("/api/{}", viewset_codegen::plural(name))),
        ..ViewSetSpec::default()
    };
    vec![Operation::NewResource(NewResource { table: name.to_string(), columns, viewset, many_to_many })]
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
    let fields = arguments.get(1..).unwrap_or_default();
    let is_relation = |a: &&String| a.contains(":many_to_many:");
    let columns: Vec<&String> = fields.iter().filter(|a| !is_relation(a)).collect();
    let relations: Vec<&String> = fields.iter().filter(is_relation).collect();
    let CodegenError::Invalid(errors) = error else { return error.to_string() };
    // The later operations of one command build on the first (a field's allowlists on its column): their errors
    // are consequences of the first failing one's, so only that operation's are printed.
    // Likewise the ViewSet's name and prefix come from the resource's name: a refused name says it all.
    let first = errors.iter().filter_map(|e| e.loc.first().and_then(Value::as_u64)).min();
    let key = |e: &viewset_codegen::FieldError| e.loc.get(1).and_then(Value::as_str).unwrap_or_default().to_string();
    let table_refused = errors.iter().any(|e| key(e) == "table");
    let lines: Vec<String> = errors
        .iter()
        .filter(|e| e.loc.first().and_then(Value::as_u64) == first)
        .filter(|e| !(table_refused && key(e) == "viewset"))
        .map(|e| {
            let key = e.loc.get(1).and_then(Value::as_str).unwrap_or_default();
            let argument = match key {
                "columns" => e.loc.get(2).and_then(Value::as_u64).and_then(|i| columns.get(i as usize).copied()),
                "many_to_many" => e.loc.get(2).and_then(Value::as_u64).and_then(|i| relations.get(i as usize).copied()),
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
        assert_eq!(parse_field("title:string").unwrap().max_length, Some(STRING_MAX_LENGTH));
        assert_eq!(parse_field("body:text").unwrap().max_length, None);
        let Field::ManyToMany(tags) = parse_argument("tags:many_to_many:tag").unwrap() else { panic!() };
        assert_eq!((tags.name.as_str(), tags.table.as_str()), ("tags", "tag"));
        for bad in ["tags:many_to_many:", ":many_to_many:tag", "tags:many_to_many:tag?", "tags:many_to_many"] {
            assert!(parse_argument(bad).is_err(), "{bad}");
        }
        let c = parse_field("total:decimal?").unwrap();
        assert_eq!((c.column_type, c.nullable), (ColumnType::Decimal, true));
        assert_eq!(parse_field("code:uuid").unwrap().column_type, ColumnType::Uuid);
    }

    #[test]
    fn resources_are_served_at_their_plural_with_their_relations() {
        let fields = ["name:string", "tags:many_to_many:tag"].map(|a| parse_argument(a).unwrap());
        let operations = resource("category", fields.to_vec());
        let [Operation::NewResource(op)] = operations.as_slice() else { panic!("{operations:?}") };
        assert_eq!(op.viewset.prefix.as_deref(), Some("/api/categories"));
        assert_eq!(op.columns.len(), 1);
        assert_eq!(op.many_to_many, [ManyToMany { name: "tags".into(), table: "tag".into() }]);
    }

    #[test]
    fn allowlists_follow_the_types() {
        let columns = ["title:string", "body:text?", "extra:json?", "views:i64", "price:decimal", "code:uuid?"]
            .map(|a| parse_field(a).unwrap());
        let operations = resource("posts", columns.into_iter().map(Field::Column).collect());
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
