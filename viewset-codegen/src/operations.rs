//! The operations, as the JSON clients (and a language model) send: serde types whose JSON Schema
//! ([`operations_json_schema`]) is generated from the same definitions.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

mod json_schema;
pub use json_schema::operations_json_schema;

/// One change to the project. JSON: an object with `"op"` naming the operation.
///
/// ```
/// use viewset_codegen::{Allowlist, Operation};
/// let op: Operation = serde_json::from_value(serde_json::json!({
///     "op": "add_to_allowlist", "viewset": "BooksViewSet", "allowlist": "ordering_fields", "field": "name"
/// })).unwrap();
/// let Operation::AddToAllowlist(add) = &op else { unreachable!() };
/// assert_eq!(add.allowlist, Allowlist::OrderingFields);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Operation {
    /// A new table: its entity (`src/entities/<table>.rs`), a migration creating it, a ViewSet and their
    /// registration (`mod` lines, the `Migrator`'s list, `api()`). A foreign key (`references`) or a
    /// `many_to_many` relation is written on both sides: the other entity's `Relation` / `Related`, and on both
    /// ViewSets `relations(...)`, `expandable` and related filters (`category__name`).
    NewResource(NewResource),
    /// A field name added to an allowlist of a ViewSet in `src/viewsets.rs` (and the backend it needs).
    AddToAllowlist(AddToAllowlist),
    /// A column added to an entity's `Model` and a migration that adds it (`ALTER TABLE ... ADD COLUMN`).
    AddColumn(AddColumn),
    /// An empty migration in its own file (`src/migration/m<date>_<n>_<name>.rs`), registered in the `Migrator`'s
    /// list, for a change written by hand.
    NewMigration(NewMigration),
}

impl Operation {
    /// The operation's name, as in its `"op"`.
    pub fn name(&self) -> &'static str {
        match self {
            Operation::NewResource(_) => "new_resource",
            Operation::AddToAllowlist(_) => "add_to_allowlist",
            Operation::AddColumn(_) => "add_column",
            Operation::NewMigration(_) => "new_migration",
        }
    }
}

/// A new table, its entity, migration and ViewSet.
///
/// ```
/// use viewset_codegen::{ColumnType, NewResource};
/// let table: NewResource = serde_json::from_value(serde_json::json!({
///     "table": "tags",
///     "columns": [{"name": "label", "type": "string", "max_length": 80}],
///     "viewset": {"search_fields": ["label"]}
/// })).unwrap();
/// assert_eq!(table.columns[0].column_type, ColumnType::String);
/// assert!(table.viewset.name.is_none(), "default: TagsViewSet");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewResource {
    /// The table (snake_case); also the entity's module.
    pub table: String,
    /// The columns. Without a `primary_key` column an auto-increment `id` (integer) is added first.
    pub columns: Vec<Column>,
    /// The ViewSet serving the table.
    #[serde(default)]
    pub viewset: ViewSetSpec,
    /// Many-to-many relations to other tables of this project, each through a join table of its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub many_to_many: Vec<ManyToMany>,
}

/// A many-to-many relation of a new table: `{"name": "tags", "table": "tag"}` on `post` writes the join table
/// `post_tags` (`post_id`, `tag_id`, the pair its primary key, each deleted with its row), its entity, `Related`
/// through it on both entities, and on both ViewSets `relations(...)`, `expandable` and related filters.
///
/// ```
/// use viewset_codegen::ManyToMany;
/// let tags: ManyToMany = serde_json::from_value(serde_json::json!({"name": "tags", "table": "tag"})).unwrap();
/// assert_eq!((tags.name.as_str(), tags.table.as_str()), ("tags", "tag"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ManyToMany {
    /// The relation's name on the new table (`tags`): `?expand=tags`, `?tags__name=`.
    pub name: String,
    /// The related table (an entity of this project with an integer `id`).
    pub table: String,
}

/// One column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Column {
    /// The column and field name (snake_case, not a reserved query name).
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub column_type: ColumnType,
    /// `NULL` allowed (the field is an `Option`).
    #[serde(default)]
    pub nullable: bool,
    /// The primary key (integer or big_integer, auto-increment; at most one).
    #[serde(default)]
    pub primary_key: bool,
    /// A unique constraint.
    #[serde(default)]
    pub unique: bool,
    /// For `string`: the longest value, in characters (`VARCHAR(n)`, checked on create and update).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u32>,
    /// A database default (a boolean, number or string literal); the field becomes optional on create.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub default: Option<Value>,
    /// A foreign key to another entity's table of this project.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub references: Option<Reference>,
    /// The field's doc comment (one line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
}

impl Column {
    /// A plain column: not null, no key, constraint, default, reference or doc; set the rest with struct update.
    ///
    /// ```
    /// use viewset_codegen::{Column, ColumnType};
    /// let code = Column { unique: true, ..Column::new("code", ColumnType::Uuid) };
    /// assert!(code.unique && !code.nullable && code.default.is_none());
    /// ```
    pub fn new(name: &str, column_type: ColumnType) -> Column {
        Column {
            name: name.into(),
            column_type,
            nullable: false,
            primary_key: false,
            unique: false,
            max_length: None,
            default: None,
            references: None,
            doc: None,
        }
    }
}

/// The column types the generator writes: each maps to one Rust type and one sea-orm-migration column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ColumnType {
    /// `i32`, `INTEGER`.
    Integer,
    /// `i64`, `BIGINT`.
    BigInteger,
    /// `String`, `TEXT`.
    Text,
    /// `String`, `VARCHAR` (with `max_length`: `VARCHAR(n)`).
    String,
    /// `bool`.
    Boolean,
    /// `f64`, `DOUBLE`.
    Float,
    /// `DateTimeUtc`, `TIMESTAMP WITH TIME ZONE`.
    DateTime,
    /// `Date` (`chrono::NaiveDate`), `DATE`.
    Date,
    /// `Uuid`, `UUID` on PostgreSQL (16 bytes on SQLite); a JSON string. Not a primary key or foreign key here.
    Uuid,
    /// `Decimal` (`rust_decimal`), `DECIMAL(19, 4)`: up to 15 digits before the point and 4 after (`NUMERIC` on
    /// PostgreSQL, exact; `REAL` on SQLite, about 15 significant digits); a JSON string (`"9.99"`).
    Decimal,
    /// `Json` (`serde_json::Value`), `JSON`.
    Json,
}

impl ColumnType {
    /// The Rust type of a non-null field.
    pub fn rust_type(self) -> &'static str {
        match self {
            ColumnType::Integer => "i32",
            ColumnType::BigInteger => "i64",
            ColumnType::Text | ColumnType::String => "String",
            ColumnType::Boolean => "bool",
            ColumnType::Float => "f64",
            ColumnType::DateTime => "DateTimeUtc",
            ColumnType::Date => "Date",
            ColumnType::Uuid => "Uuid",
            ColumnType::Decimal => "Decimal",
            ColumnType::Json => "Json",
        }
    }

    /// The precision and scale of a generated decimal column (`decimal_len(name, 19, 4)`): amounts up to
    /// 999,999,999,999,999.9999, enough for money in any currency's smallest unit.
    ///
    /// ```
    /// assert_eq!(viewset_codegen::ColumnType::DECIMAL_PRECISION_SCALE, (19, 4));
    /// ```
    pub const DECIMAL_PRECISION_SCALE: (u32, u32) = (19, 4);

    /// The sea-orm-migration `schema` helper (`integer`, `string_len`, ...), without `_null`/`_uniq`.
    pub(crate) fn helper(self, max_length: Option<u32>) -> &'static str {
        match (self, max_length) {
            (ColumnType::Integer, _) => "integer",
            (ColumnType::BigInteger, _) => "big_integer",
            (ColumnType::Text, _) => "text",
            (ColumnType::String, Some(_)) => "string_len",
            (ColumnType::String, None) => "string",
            (ColumnType::Boolean, _) => "boolean",
            (ColumnType::Float, _) => "double",
            (ColumnType::DateTime, _) => "timestamp_with_time_zone",
            (ColumnType::Date, _) => "date",
            (ColumnType::Uuid, _) => "uuid",
            (ColumnType::Decimal, _) => "decimal_len",
            (ColumnType::Json, _) => "json",
        }
    }
}

/// An empty migration to fill in by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewMigration {
    /// What it does, in snake_case (`add_index_on_title`): the end of its module's name.
    pub name: String,
}

/// A foreign key target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    /// The referenced table (an entity of this project).
    pub table: String,
    /// Its column (default `id`).
    #[serde(default = "id")]
    pub column: String,
}

fn id() -> String {
    "id".into()
}

/// The ViewSet of a new table; every key is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewSetSpec {
    /// The struct's name (default: the table in UpperCamelCase + `ViewSet`, `tags` → `TagsViewSet`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The route prefix (default `/api/<table>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Fields filterable with lookups (`ServiceFilterBackend` is added when not empty).
    #[serde(default)]
    pub filterable_fields: Vec<String>,
    /// Text fields `?search=` looks in (`SearchFilter`).
    #[serde(default)]
    pub search_fields: Vec<String>,
    /// Fields `?ordering=` accepts (`OrderingFilter`).
    #[serde(default)]
    pub ordering_fields: Vec<String>,
    /// The default ordering (`"-id"`); its fields must be in `ordering_fields` when that is given.
    #[serde(default)]
    pub ordering: Vec<String>,
    /// Built-in permission classes (`AllowAny`, `IsAuthenticated`, `IsAuthenticatedOrReadOnly`, `IsAdminUser`);
    /// default `IsAuthenticatedOrReadOnly`.
    #[serde(default)]
    pub permission_classes: Vec<String>,
}

/// A field added to an allowlist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddToAllowlist {
    /// The ViewSet's struct name in `src/viewsets.rs`.
    pub viewset: String,
    /// Which allowlist.
    pub allowlist: Allowlist,
    /// The model field to add.
    pub field: String,
}

/// An allowlist of `#[viewset(...)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Allowlist {
    /// `filterable_fields` (needs `ServiceFilterBackend`).
    FilterableFields,
    /// `search_fields` (text fields; needs `SearchFilter`).
    SearchFields,
    /// `ordering_fields` (needs `OrderingFilter`).
    OrderingFields,
}

impl Allowlist {
    /// The attribute key.
    pub fn key(self) -> &'static str {
        match self {
            Allowlist::FilterableFields => "filterable_fields",
            Allowlist::SearchFields => "search_fields",
            Allowlist::OrderingFields => "ordering_fields",
        }
    }

    /// The filter backend it needs, and the backend names that satisfy it.
    pub(crate) fn backend(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Allowlist::FilterableFields => ("ServiceFilterBackend", &["ServiceFilterBackend", "DjangoFilterBackend"]),
            Allowlist::SearchFields => ("SearchFilter", &["SearchFilter"]),
            Allowlist::OrderingFields => ("OrderingFilter", &["OrderingFilter"]),
        }
    }
}

/// A column added to an existing table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddColumn {
    /// The table (an entity of this project).
    pub table: String,
    /// The column: nullable, or with a `default` (existing rows need a value); not a primary key, unique or
    /// foreign key.
    pub column: Column,
}
