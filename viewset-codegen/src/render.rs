//! The text of generated files, in the shape of `viewset-cli/templates` and `examples/blog` (entities with
//! `ModelSchema`, sea-orm-migration `schema` helpers), formatted as rustfmt leaves it.

use serde_json::Value;

use super::operations::{Column, ColumnType};

/// A validated column with what rendering needs beyond the request.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    pub(crate) column: Column,
    /// For a foreign key: the referenced entity's module (`crate::entity`) and table.
    pub(crate) target: Option<(String, String)>,
}

/// A Rust literal of a JSON default for `column_type` (validated: a boolean, number or string of the right kind).
pub(crate) fn literal(column_type: ColumnType, value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        Value::Number(n) if column_type == ColumnType::Float && !n.to_string().contains(['.', 'e', 'E']) => {
            format!("{n}.0")
        }
        other => other.to_string(),
    }
}

fn doc_line(column: &Column) -> String {
    if let Some(doc) = column.doc.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        return doc.to_string();
    }
    let kind = if column.primary_key {
        "primary key, set by the database"
    } else if column.nullable {
        "optional (`null` clears it)"
    } else if column.default.is_some() {
        "optional on create (the database default)"
    } else {
        "required on create"
    };
    let max = column.max_length.map(|n| format!("; at most {n} characters")).unwrap_or_default();
    format!("`{}`: {kind}{max}.", column.name)
}

/// The field of `Model` for `column`, indented by four spaces, ending with a newline.
pub(crate) fn field(column: &Column) -> String {
    let mut sea = Vec::new();
    if column.primary_key {
        sea.push("primary_key".to_string());
    }
    match (column.column_type, column.max_length) {
        (ColumnType::Text, _) => sea.push("column_type = \"Text\"".into()),
        (ColumnType::String, Some(n)) => sea.push(format!("column_type = \"String(StringLen::N({n}))\"")),
        (ColumnType::Decimal, _) => {
            let (precision, scale) = ColumnType::DECIMAL_PRECISION_SCALE;
            sea.push(format!("column_type = \"Decimal(Some(({precision}, {scale})))\""));
        }
        _ => {}
    }
    if column.unique {
        sea.push("unique".into());
    }
    if let Some(default) = &column.default {
        sea.push(format!("default_value = {}", literal(column.column_type, default)));
    }
    let ty = column.column_type.rust_type();
    let ty = if column.nullable { format!("Option<{ty}>") } else { ty.to_string() };
    let attribute = if sea.is_empty() { String::new() } else { format!("    #[sea_orm({})]\n", sea.join(", ")) };
    format!("    /// {}\n{attribute}    pub {}: {ty},\n", doc_line(column), column.name)
}

/// The name of a relation variant for a foreign-key column: `author_id` → `Author`.
pub(crate) fn relation_name(column: &str) -> String {
    super::errors::pascal(column.strip_suffix("_id").unwrap_or(column))
}

/// A `belongs_to` attribute (indented by four spaces, ending with a newline), on one line when it fits in 120
/// columns, else one key per line, as rustfmt writes it.
pub(crate) fn belongs_to(module: &str, from: &str, to: &str) -> String {
    let keys =
        [format!("belongs_to = \"{module}::Entity\""), format!("from = \"Column::{from}\""), format!("to = \"{to}\"")];
    let line = format!("    #[sea_orm({})]\n", keys.join(", "));
    if line.len() <= 121 {
        return line;
    }
    format!("    #[sea_orm(\n        {}\n    )]\n", keys.join(",\n        "))
}

/// `let <name> = <first><calls>;` in a function body (8 spaces in): on one line when it fits in 120 columns, else
/// the whole chain on the next line, else one call per line, as rustfmt formats a chain; a call holding a line
/// break always goes on a line of its own.
pub(crate) fn let_chain(name: &str, first: &str, calls: &[String]) -> String {
    let flat = format!("{first}{}", calls.concat());
    if !flat.contains('\n') {
        let one = format!("        let {name} = {flat};");
        if one.len() <= 120 {
            return format!("{one}\n");
        }
        // The chain alone on the next line, 12 spaces in, with its `;`: 120 columns at most.
        if flat.len() <= 107 {
            return format!("        let {name} =\n            {flat};\n");
        }
    }
    let lines: String = calls.iter().map(|c| format!("\n            {c}")).collect();
    format!("        let {name} = {first}{lines};\n")
}

/// The entity file of a new table; `extra` is more `Related` impls (many-to-many ones, through their join
/// entities), each ending with a newline.
pub(crate) fn entity(table: &str, columns: &[Resolved], extra: &[String]) -> String {
    let fields: String = columns.iter().map(|c| field(&c.column)).collect();
    let mut relations = String::new();
    let mut related = String::new();
    let mut related_to = Vec::new();
    for c in columns {
        let Some((module, target_table)) = &c.target else { continue };
        let reference = c.column.references.as_ref().expect("a target comes from a reference");
        let (variant, from, to) = (
            relation_name(&c.column.name),
            super::errors::pascal(&c.column.name),
            super::errors::pascal(&reference.column),
        );
        relations.push_str(&format!(
            "    /// `{}` → `{target_table}.{}`.\n{}    {variant},\n",
            c.column.name,
            reference.column,
            belongs_to(module, &from, &format!("{module}::Column::{to}"))
        ));
        if !related_to.contains(module) {
            related_to.push(module.clone());
            related.push_str(&format!(
                "\nimpl Related<{module}::Entity> for Entity {{\n    fn to() -> RelationDef {{\n        Relation::{variant}.def()\n    }}\n}}\n"
            ));
        }
    }
    for text in extra {
        related.push('\n');
        related.push_str(text);
    }
    let relation_enum = if relations.is_empty() {
        "pub enum Relation {}\n".to_string()
    } else {
        format!("pub enum Relation {{\n{relations}}}\n")
    };
    format!(
        "//! The `{table}` table (written by the code generator, `new_resource`).

use sea_orm::entity::prelude::*;
use serde::{{Deserialize, Serialize}};
use viewset_core::ModelSchema;

/// One row of `{table}`.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
#[sea_orm(table_name = \"{table}\")]
pub struct Model {{
{fields}}}

/// Relations of `{table}`.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
{relation_enum}{related}
impl ActiveModelBehavior for ActiveModel {{}}
"
    )
}

/// The sea-orm-migration column definition of `column` (`string_len("label", 80)`, `integer_null("n")`, ...).
pub(crate) fn column_def(column: &Column) -> String {
    let name = &column.name;
    if column.primary_key {
        let helper = if column.column_type == ColumnType::BigInteger { "big_pk_auto" } else { "pk_auto" };
        return format!("{helper}(\"{name}\")");
    }
    let helper = column.column_type.helper(column.max_length);
    let suffix = match (column.nullable, column.unique) {
        (true, _) => "_null",
        (false, true) => "_uniq",
        (false, false) => "",
    };
    let length = column.max_length.filter(|_| column.column_type == ColumnType::String);
    let args = match (length, column.column_type) {
        (Some(n), _) => format!("\"{name}\", {n}"),
        (None, ColumnType::Decimal) => {
            let (precision, scale) = ColumnType::DECIMAL_PRECISION_SCALE;
            format!("\"{name}\", {precision}, {scale}")
        }
        (None, _) => format!("\"{name}\""),
    };
    let mut def = format!("{helper}{suffix}({args})");
    if column.nullable && column.unique {
        def.push_str(".unique_key()");
    }
    if let Some(default) = &column.default {
        def.push_str(&format!(".default({})", literal(column.column_type, default)));
    }
    def
}

const MIGRATION_HEAD: &str = "use sea_orm_migration::{prelude::*, schema::*};\n\n";

/// The migration creating a new table, with its foreign keys and an index on each, then its many-to-many
/// relations' join tables.
pub(crate) fn create_migration(table: &str, columns: &[Resolved], joins: &[super::render_join::Join]) -> String {
    let mut calls = vec![format!(".table(\"{table}\")"), ".if_not_exists()".to_string()];
    calls.extend(columns.iter().map(|c| format!(".col({})", column_def(&c.column))));
    let mut indexes = String::new();
    for c in columns {
        let (Some((_, target)), Some(reference)) = (&c.target, &c.column.references) else { continue };
        let name = &c.column.name;
        calls.push(format!(
            ".foreign_key(
                ForeignKey::create()
                    .name(\"fk_{table}_{name}\")
                    .from(\"{table}\", \"{name}\")
                    .to(\"{target}\", \"{}\")
                    .on_delete(ForeignKeyAction::Restrict),
            )",
            reference.column
        ));
        let index =
            [format!(".name(\"idx_{table}_{name}\")"), format!(".table(\"{table}\")"), format!(".col(\"{name}\")")];
        let index: Vec<String> = index.into_iter().chain([".to_owned()".to_string()]).collect();
        indexes.push_str(&let_chain("index", "Index::create()", &index));
        indexes.push_str("        manager.create_index(index).await?;\n");
    }
    calls.push(".to_owned()".to_string());
    let create = let_chain("table", "Table::create()", &calls);
    let links: String = joins.iter().map(super::render_join::create_statements).collect();
    let drops: String = joins
        .iter()
        .map(|j| format!("        manager.drop_table(Table::drop().table(\"{}\").to_owned()).await?;\n", j.table))
        .collect();
    let what = if joins.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = joins.iter().map(|j| format!("`{}`", j.table)).collect();
        format!(" and its join tables {}", names.join(", "))
    };
    format!(
        "//! Creates `{table}`{what} (written by the code generator, `new_resource`).

{MIGRATION_HEAD}/// Creates `{table}`.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {{
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {{
{create}        manager.create_table(table).await?;
{indexes}{links}        Ok(())
    }}

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {{
{drops}        manager.drop_table(Table::drop().table(\"{table}\").to_owned()).await
    }}
}}
"
    )
}

/// The migration adding `column` to `table` (and dropping it on the way down).
pub(crate) fn add_column_migration(table: &str, column: &Column) -> String {
    let name = &column.name;
    let def = column_def(column);
    format!(
        "//! Adds `{table}.{name}` (written by the code generator, `add_column`).

{MIGRATION_HEAD}/// Adds the column `{name}` to `{table}`.
#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {{
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {{
        let table = Table::alter().table(\"{table}\").add_column({def}).to_owned();
        manager.alter_table(table).await
    }}

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {{
        let table = Table::alter().table(\"{table}\").drop_column(\"{name}\").to_owned();
        manager.alter_table(table).await
    }}
}}
"
    )
}

/// What a new ViewSet declaration says.
pub(crate) struct ViewSetText<'a> {
    pub(crate) name: &'a str,
    pub(crate) module: &'a str,
    pub(crate) prefix: &'a str,
    pub(crate) filterable: &'a [String],
    pub(crate) search: &'a [String],
    pub(crate) ordering_fields: &'a [String],
    pub(crate) ordering: &'a [String],
    pub(crate) permissions: &'a [String],
    /// Its relations: in `relations(...)` (those with `related`), `expandable`, and their related filters.
    pub(crate) sides: &'a [super::relations::Side],
}

fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("\"{i}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The ViewSet declaration appended to `src/viewsets.rs` (with a blank line before it).
pub(crate) fn viewset(v: &ViewSetText) -> String {
    let mut backends = Vec::new();
    let mut items = vec![format!("model = {}::Entity", v.module), format!("prefix = \"{}\"", v.prefix)];
    let mut filterable = v.filterable.to_vec();
    filterable.extend(v.sides.iter().flat_map(|s| s.filter_paths()));
    for (fields, backend, key) in [
        (filterable.as_slice(), "ServiceFilterBackend", "filterable_fields"),
        (v.search, "SearchFilter", "search_fields"),
        (v.ordering_fields, "OrderingFilter", "ordering_fields"),
    ] {
        if !fields.is_empty() {
            backends.push(backend);
            items.push(format!("{key} = {}", list(fields)));
        }
    }
    if !backends.is_empty() {
        items.insert(2, format!("filter_backends = [{}]", backends.join(", ")));
    }
    if !v.ordering.is_empty() {
        items.push(format!("ordering = {}", list(v.ordering)));
    }
    let related: Vec<String> =
        v.sides.iter().filter(|s| s.related).map(|s| format!("{} = {}::Entity", s.name, s.module)).collect();
    if !related.is_empty() {
        items.push(format!("relations({})", related.join(", ")));
    }
    if !v.sides.is_empty() {
        let names: Vec<String> = v.sides.iter().map(|s| s.name.clone()).collect();
        items.push(format!("expandable = {}", list(&names)));
    }
    let writable: Vec<String> = v.sides.iter().filter(|s| s.writable).map(|s| s.name.clone()).collect();
    if !writable.is_empty() {
        items.push(format!("writable_relations = {}", list(&writable)));
    }
    items.push(format!("permission_classes = [{}]", v.permissions.join(", ")));
    let body: String = items.iter().map(|i| format!("    {i},\n")).collect();
    format!(
        "\n/// `{prefix}/` and `{prefix}/{{id}}` (written by the code generator, `new_resource`).
#[derive(ModelViewSet)]
#[viewset(
{body})]
pub struct {name};\n",
        prefix = v.prefix,
        name = v.name,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, column_type: ColumnType, nullable: bool) -> Column {
        Column { nullable, ..Column::new(name, column_type) }
    }

    #[test]
    fn long_lines_are_broken_as_rustfmt_breaks_them() {
        assert_eq!(belongs_to("super::a", "AId", "super::a::Column::Id").lines().count(), 1);
        let long = belongs_to("crate::entities::category", "CategoryId", "crate::entities::category::Column::Id");
        assert!(long.starts_with("    #[sea_orm(\n        belongs_to = ") && long.ends_with("\"\n    )]\n"), "{long}");
        let calls = |n: usize| -> Vec<String> { (0..n).map(|i| format!(".col(c{i:02})")).collect() };
        assert_eq!(let_chain("t", "T::new()", &calls(2)), "        let t = T::new().col(c00).col(c01);\n");
        let next_line = let_chain("t", "T::new()", &calls(11));
        assert!(
            next_line.starts_with("        let t =\n            T::new().col(c00)") && next_line.lines().count() == 2
        );
        assert_eq!(let_chain("t", "T::new()", &calls(12)).lines().count(), 13, "one call per line");
        let block = let_chain("t", "T::new()", &[".a(\n)".to_string()]);
        assert_eq!(block, "        let t = T::new()\n            .a(\n);\n");
    }

    #[test]
    fn uuid_and_decimal_columns() {
        let price = column("price", ColumnType::Decimal, false);
        assert_eq!(
            field(&price),
            "    /// `price`: required on create.\n    #[sea_orm(column_type = \"Decimal(Some((19, 4)))\")]\n    pub price: Decimal,\n"
        );
        assert_eq!(column_def(&price), "decimal_len(\"price\", 19, 4)");
        let discount = column("discount", ColumnType::Decimal, true);
        assert!(field(&discount).ends_with("    pub discount: Option<Decimal>,\n"), "{}", field(&discount));
        assert_eq!(column_def(&discount), "decimal_len_null(\"discount\", 19, 4)");
        let code = Column { unique: true, ..column("code", ColumnType::Uuid, false) };
        assert_eq!(field(&code), "    /// `code`: required on create.\n    #[sea_orm(unique)]\n    pub code: Uuid,\n");
        assert_eq!(column_def(&code), "uuid_uniq(\"code\")");
        assert_eq!(column_def(&column("parent", ColumnType::Uuid, true)), "uuid_null(\"parent\")");
    }
}
