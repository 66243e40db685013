//! The list parameters of one ViewSet, typed as the server parses them: pagination with its bounds, each filter
//! field with only the lookups that apply to its column type (`FilterLookup::applies_to`), search and ordering.

use sea_orm::sea_query::ColumnType;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn, ParameterStyle};
use utoipa::openapi::schema::{AnyOfBuilder, ArrayBuilder, KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type};
use utoipa::openapi::{RefOr, Required};

use super::doc::Doc;
use crate::types::field_schema::DECIMAL_PATTERN;
use crate::types::lookups::FilterLookup;
use crate::types::value::{is_integer, is_text};

/// The words the server reads as booleans (`parse_bool`), case-insensitive, surrounding blanks allowed.
const BOOLEAN_WORDS: &str = r"^\s*([tT][rR][uU][eE]|[fF][aA][lL][sS][eE]|[yY][eE][sS]|[nN][oO]|1|0)\s*$";
/// The words an exact filter reads as "IS NULL" (`is_null_word`): `null`, `none` or nothing.
const NULL_WORDS: &str = r"^\s*([nN][uU][lL][lL]|[nN][oO][nN][eE])?\s*$";

/// An optional query parameter (the filters', the aggregate's).
pub(super) fn query(name: &str, schema: impl Into<RefOr<Schema>>, description: impl Into<String>) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .schema(Some(schema))
        .description(Some(description))
        .build()
}

/// A string schema.
pub(super) fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// The inclusive range of an integer column type.
fn integer_range(column_type: &ColumnType) -> (i128, i128) {
    match column_type {
        ColumnType::TinyInteger => (i8::MIN.into(), i8::MAX.into()),
        ColumnType::SmallInteger => (i16::MIN.into(), i16::MAX.into()),
        ColumnType::Integer => (i32::MIN.into(), i32::MAX.into()),
        ColumnType::TinyUnsigned => (0, u8::MAX.into()),
        ColumnType::SmallUnsigned => (0, u16::MAX.into()),
        ColumnType::Unsigned => (0, u32::MAX.into()),
        ColumnType::BigUnsigned => (0, u64::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    }
}

/// A number schema bounded to `range` (JSON numbers: an `i128` bound is written as the nearest `i64`/`u64`).
fn bounded(ty: Type, (min, max): (i128, i128)) -> ObjectBuilder {
    let number = |v: i128| -> utoipa::Number {
        match u64::try_from(v) {
            Ok(u) => utoipa::Number::UInt(u as usize),
            Err(_) => utoipa::Number::Int(v as isize),
        }
    };
    ObjectBuilder::new().schema_type(ty).minimum(Some(number(min))).maximum(Some(number(max)))
}

/// The schema of one value of a column, as `query::value::parse_value` accepts it.
pub(crate) fn column_value_schema(column_type: &ColumnType) -> RefOr<Schema> {
    let format = |f: KnownFormat| Some(SchemaFormat::KnownFormat(f));
    match column_type {
        t if is_integer(t) => bounded(Type::Integer, integer_range(t)).into(),
        ColumnType::Float | ColumnType::Double => ObjectBuilder::new().schema_type(Type::Number).into(),
        ColumnType::Boolean => boolean_words().into(),
        ColumnType::Date => string().format(format(KnownFormat::Date)).into(),
        ColumnType::DateTime | ColumnType::Timestamp | ColumnType::TimestampWithTimeZone => {
            string().format(format(KnownFormat::DateTime)).into()
        }
        ColumnType::Time => string().format(format(KnownFormat::Time)).into(),
        ColumnType::Uuid => string().format(format(KnownFormat::Uuid)).into(),
        ColumnType::Decimal(_) | ColumnType::Money(_) => string()
            .format(Some(SchemaFormat::Custom("decimal".into())))
            .pattern(Some(DECIMAL_PATTERN))
            .examples(["9.99"])
            .into(),
        _ => string().into(),
    }
}

/// A boolean as the query string spells it: `true`/`false`, `yes`/`no`, `1`/`0` (any case).
fn boolean_words() -> ObjectBuilder {
    string()
        .pattern(Some(BOOLEAN_WORDS))
        .description(Some("A boolean: true/false, yes/no or 1/0 (any case)."))
        .examples(["true", "false"])
}

/// The schema of `field__lookup` on a column of `column_type` (the lookup applies to it).
fn lookup_schema(column_type: &ColumnType, lookup: FilterLookup) -> RefOr<Schema> {
    match lookup {
        FilterLookup::Exact if is_text(column_type) => string().into(),
        FilterLookup::Exact => AnyOfBuilder::new()
            .item(column_value_schema(column_type))
            .item(string().pattern(Some(NULL_WORDS)).description(Some("`null`, `none` or empty: IS NULL.")))
            .into(),
        // A bound with a fraction on an integer column is rounded to the equivalent integer bound.
        FilterLookup::Gt | FilterLookup::Gte | FilterLookup::Lt | FilterLookup::Lte if is_integer(column_type) => {
            bounded(Type::Number, integer_range(column_type)).into()
        }
        // Items are split at commas (a text item cannot hold one); blank items are skipped.
        FilterLookup::In if is_text(column_type) => ArrayBuilder::new().items(string().pattern(Some("^[^,]*$"))).into(),
        FilterLookup::In => ArrayBuilder::new().items(column_value_schema(column_type)).into(),
        FilterLookup::IsNull => boolean_words().into(),
        FilterLookup::Contains | FilterLookup::IContains => string().into(),
        _ => column_value_schema(column_type),
    }
}

fn lookup_description(field: &str, lookup: FilterLookup) -> String {
    match lookup {
        FilterLookup::Exact => format!("`{field}` equals the value (`null`, `none` or empty: IS NULL)."),
        FilterLookup::In => format!("`{field}` is one of the comma-separated values."),
        FilterLookup::IsNull => format!("`{field}` IS NULL (true) or IS NOT NULL (false)."),
        other => format!("`{}` lookup on `{field}`.", other.name()),
    }
}

/// The pagination parameters with the bounds of `V`'s configuration.
fn pagination_parameters(doc: &Doc) -> Vec<Parameter> {
    let config = doc.config;
    let max_limit = i128::from(config.max_limit);
    doc.pagination_parameters
        .iter()
        .map(|name| {
            let (schema, description): (RefOr<Schema>, String) = match *name {
                "cursor" => (string().into(), "Opaque cursor from `next` or `previous`.".into()),
                "limit" | "page_size" => (
                    bounded(Type::Integer, (1, max_limit)).default(Some(config.default_limit.into())).into(),
                    format!("Page size: 1 to {max_limit}, default {}.", config.default_limit),
                ),
                "offset" => (
                    bounded(Type::Integer, (0, i64::MAX.into())).default(Some(0.into())).into(),
                    "Rows to skip.".into(),
                ),
                "page" => (
                    bounded(Type::Integer, (1, i64::MAX.into())).default(Some(1.into())).into(),
                    "Page number, from 1; a page past the last one is 404.".into(),
                ),
                "count" => {
                    let default = config.count_mode.name();
                    (
                        string()
                            .enum_values(Some(crate::pagination::CountMode::VALUES))
                            .default(Some(default.into()))
                            .into(),
                        format!(
                            "How `count` is found: `exact`, `estimated` (the planner's estimate on PostgreSQL and \
                             MariaDB when it is large, else exact) or `none` (no count query: `count` is null); default `{default}` \
                             for this endpoint. Given (or when the default is not `exact`), the envelope carries \
                             `count_mode`."
                        ),
                    )
                }
                _ => (ObjectBuilder::new().schema_type(Type::Integer).into(), "Pagination parameter.".into()),
            };
            query(name, schema, &description)
        })
        .collect()
}

/// `fields` (list and retrieve): model field names joined by commas, exactly as
/// [`sparse_fields`](crate::access::sparse_fields) reads it. The pattern names every field of the widest caller;
/// a field hidden from this caller is a 422 like an unknown one.
pub(crate) fn fields_parameter(doc: &Doc) -> Parameter {
    let names = doc.field_names().collect::<Vec<_>>().join("|");
    let schema = string().pattern(Some(format!("^({names})(,({names}))*$")));
    query("fields", schema, "Only these fields in each record, comma-separated (default: all).")
}

/// Every query parameter of `V`'s list route.
pub(crate) fn list_parameters(doc: &Doc) -> Vec<Parameter> {
    let config = doc.config;
    let mut params = pagination_parameters(doc);
    params.push(fields_parameter(doc));
    params.extend(super::embedded::expand_parameter(doc));
    let formats = string().enum_values(Some(crate::pagination::ListFormat::VALUES)).default(Some("json".into()));
    let description = "`csv`: this page's records as CSV (as `Accept: text/csv`); `json` (default): the page as JSON.";
    params.push(query("format", formats, description));
    let has = |backend: &str| config.filter_backends.contains(&backend);
    let lookups = config.filters_with_lookups();
    let mut exact = doc.filter_fields.clone();
    if lookups {
        for field in config.filterable_fields {
            if !exact.contains(field) {
                exact.push(field);
            }
        }
    }
    for field in exact {
        if config.tenant_field == Some(field) {
            continue;
        }
        let column_type = match config.related_fields.iter().find(|rf| rf.path == field) {
            Some(rf) => (rf.column_type)(rf.field),
            None => doc.column_type(field).cloned(),
        };
        let Some(column_type) = column_type else { continue };
        let filterable = lookups && config.filterable_fields.contains(&field);
        for lookup in FilterLookup::ALL {
            if !lookup.applies_to(&column_type) || (lookup != FilterLookup::Exact && !filterable) {
                continue;
            }
            let name = match lookup {
                FilterLookup::Exact => field.to_string(),
                other => format!("{field}__{}", other.name()),
            };
            let mut description = lookup_description(field, lookup);
            if let Some((relation, _)) = field.split_once("__") {
                description.push_str(&format!(" Through `{relation}`: only related records you may list match."));
            }
            let mut param = query(&name, lookup_schema(&column_type, lookup), &description);
            if lookup == FilterLookup::In {
                // `field__in=1,2,3`: one parameter, its items joined by commas.
                param.style = Some(ParameterStyle::Form);
                param.explode = Some(false);
            }
            params.push(param);
        }
    }
    if lookups && !config.filterable_fields.is_empty() {
        let description = format!(
            "A boolean group of filters (PostgREST-style), ANDed with the other filters: `(term,term,...)` holds \
             when any term holds; `and(...)` and `or(...)` nest (at most 3 levels, 20 terms by default). A term is \
             `<filter parameter>.<value>`, the parameter one this endpoint accepts as `?<parameter>=<value>` \
             (on {}), e.g. `or=(views__gt.100,rating__isnull.true)`; a value holding `,`, `(` or `)` is written in \
             double quotes (`\\\"` and `\\\\` inside).",
            config.filterable_fields.join(", ")
        );
        let example = format!("({}__isnull.false)", config.filterable_fields[0]);
        let schema = string().pattern(Some(r"^\(.*\)$")).examples([example]);
        params.push(query("or", schema, &description));
    }
    if has("SearchFilter") && !config.search_fields.is_empty() {
        let fields = config.search_fields.join(", ");
        params.push(query("search", string(), format!("Case-insensitive substring over {fields}.")));
    }
    if let Some(fulltext) = config.fulltext.filter(|_| has("FullTextSearchFilter")) {
        let description = format!(
            "Full-text search over {} (web-search syntax: words, \"quoted phrases\", -excluded, or); best match \
             first unless `ordering` is given. PostgreSQL, or SQLite with the application's FTS5 table (else a 422).",
            fulltext.fields.join(", ")
        );
        params.push(query(crate::query::FULLTEXT_PARAM, string(), &description));
    }
    if has("OrderingFilter") && config.ordering_fields.exists() {
        let allowed = match config.ordering_fields {
            crate::types::options::OrderingFields::All => "any field".to_string(),
            crate::types::options::OrderingFields::Only(list) => list.join(", "),
        };
        let description =
            format!("Comma-separated terms, `-` for descending; allowed: {allowed} (other terms are ignored).");
        params.push(query("ordering", string(), &description));
    }
    params
}
