//! `GET <prefix>/aggregate` in the document, typed per ViewSet: its own parameters name the declared fields, the
//! list's filters follow, and the answer's groups list every key and alias this ViewSet may answer, typed as
//! [`crate::aggregate`] answers them.

use super::filters::{query, string};
use utoipa::openapi::path::{OperationBuilder, Parameter};
use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, ObjectBuilder, Schema, SchemaFormat, SchemaType, Type,
};
use utoipa::openapi::{Content, KnownFormat, RefOr, ResponseBuilder};

use super::doc::Doc;
use crate::aggregate::{Aggregates, Bucket, Function, MAX_GROUP_KEYS};
use sea_orm::sea_query::ColumnType;

/// The list's parameters that do not apply to an aggregate (paging, sparse fields, embedding, the list's format
/// and order): the aggregate has its own `limit` and `order_by`.
const NOT_FOR_AGGREGATES: &[&str] =
    &["limit", "offset", "page", "page_size", "cursor", "count", "fields", "expand", "format", "ordering"];

/// The time buckets' suffixes, `hour|day|week|month|year`.
fn buckets() -> String {
    Bucket::ALL.map(Bucket::name).join("|")
}

/// A comma-separated list of `names` (regular expressions), each term optionally `-` first: `^(a|b)(,(a|b))*$`.
fn list_of(names: &[String], signed: bool) -> ObjectBuilder {
    let term = format!("{}({})", if signed { "-?" } else { "" }, names.join("|"));
    string().pattern(Some(format!("^{term}(,{term})*$")))
}

/// The aggregate's parameters of `doc`'s ViewSet, then the list's filters. Each names exactly what this ViewSet
/// declares (a pattern of the widest caller's names); what a pattern cannot say (a name once, at most
/// [`MAX_GROUP_KEYS`] keys, `order_by` and `having` naming what the same request asks for) is said in words.
pub(crate) fn parameters(doc: &Doc, declared: &Aggregates, list: Vec<Parameter>) -> Vec<Parameter> {
    let mut keys: Vec<String> = Vec::new();
    let mut key_patterns: Vec<String> = Vec::new();
    for field in declared.group_by {
        keys.push(field.to_string());
        key_patterns.push(field.to_string());
        if doc.column_type(field).is_some_and(Bucket::applies_to) {
            keys.push(format!("{field}__{}", buckets()));
            key_patterns.push(format!("{field}__({})", buckets()));
        }
    }
    let mut aliases = vec!["count".to_string()];
    for function in Function::OF_FIELDS {
        for field in declared.fields(function.name()) {
            aliases.push(format!("{}_{field}", function.name()));
        }
    }
    let group_by = if key_patterns.is_empty() { string().max_length(Some(0)) } else { list_of(&key_patterns, false) };
    let mut params = vec![query(
        "group_by",
        group_by,
        format!(
            "Comma-separated group keys, at most {MAX_GROUP_KEYS}: {}. None: one group of every row.",
            if keys.is_empty() { "none declared".to_string() } else { keys.join(", ") }
        ),
    )];
    let flag = string().enum_values(Some(["", "true", "1"]));
    params.push(query("count", flag, "Count each group's rows (`count`); answered as `count`."));
    for function in Function::OF_FIELDS {
        let fields = declared.fields(function.name());
        if fields.is_empty() {
            continue;
        }
        let name = function.name();
        let description = format!("Comma-separated fields of: {}; answered as `{name}_<field>`.", fields.join(", "));
        let names: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
        params.push(query(name, list_of(&names, false), description));
    }
    let order = "Comma-separated group keys and aggregate aliases of this request (`-` for descending), e.g. \
                 `-count`; then every group key ascending.";
    let orderable: Vec<String> = key_patterns.iter().chain(&aliases).cloned().collect();
    params.push(query("order_by", list_of(&orderable, true), order));
    let having = "Comma-separated conditions on aggregates of this request, all of which a group meets: \
                  `<alias>__<gt|gte|lt|lte|exact>:<number>`, e.g. `count__gte:5`.";
    let condition = format!("({})__(gt|gte|lt|lte|exact):-?[0-9]+(\\.[0-9]+)?", aliases.join("|"));
    let conditions = string().pattern(Some(format!("^{condition}(,{condition})*$")));
    params.push(query("having", conditions, having));
    let max = declared.max_groups;
    let limit =
        ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(1)).maximum(Some(max)).default(Some(max.into()));
    params.push(query(
        "limit",
        limit,
        format!("At most this many groups (1 to {max}); `truncated` says more existed."),
    ));
    let tz = "The time zone of the time buckets: `UTC` (default), or an IANA name (`Europe/Berlin`), daylight-saving \
              changes included.";
    let zone = string().pattern(Some("^[A-Za-z][A-Za-z0-9/_+-]{0,63}$")).default(Some("UTC".into()));
    params.push(query("tz", zone, tz));
    params.extend(list.into_iter().filter(|p| !NOT_FOR_AGGREGATES.contains(&p.name.as_str())));
    params
}

/// A JSON value of `column_type` as the aggregate answers it, or `null`.
fn typed(column_type: Option<&ColumnType>, function: Option<Function>) -> RefOr<Schema> {
    use crate::types::value::is_integer;
    let field = column_type.cloned().unwrap_or(ColumnType::Integer);
    let (ty, format) = match (function, &field) {
        (Some(Function::Count | Function::CountDistinct), _) => (Type::Integer, None),
        (Some(Function::Avg), _) => (Type::Number, None),
        (_, t) if is_integer(t) => (Type::Integer, None),
        (_, ColumnType::Float | ColumnType::Double) => (Type::Number, None),
        (Some(Function::Sum), ColumnType::Decimal(_) | ColumnType::Money(_)) => (Type::String, None),
        (Some(Function::Sum), _) => (Type::Number, None),
        (_, ColumnType::Boolean) => (Type::Boolean, None),
        (_, ColumnType::TimestampWithTimeZone | ColumnType::DateTime | ColumnType::Timestamp) => {
            (Type::String, Some(KnownFormat::DateTime))
        }
        (_, ColumnType::Date) => (Type::String, Some(KnownFormat::Date)),
        _ => (Type::String, None),
    };
    let nullable = function.is_none_or(|f| !matches!(f, Function::Count | Function::CountDistinct));
    let types = if nullable { SchemaType::from_iter([ty, Type::Null]) } else { SchemaType::Type(ty) };
    let mut schema = ObjectBuilder::new().schema_type(types);
    if let Some(format) = format {
        schema = schema.format(Some(SchemaFormat::KnownFormat(format)));
    }
    schema.into()
}

/// The answer's schema: every key and alias this ViewSet may answer, none required (a request names its own).
fn answer(doc: &Doc, declared: &Aggregates) -> RefOr<Schema> {
    let mut group = ObjectBuilder::new().additional_properties(Some(AdditionalProperties::FreeForm(false)));
    for field in declared.group_by {
        group = group.property(*field, typed(doc.column_type(field), None));
        if doc.column_type(field).is_some_and(Bucket::applies_to) {
            for bucket in Bucket::ALL {
                let text = string().description(Some("The bucket's start, e.g. `2026-03-29` (day)."));
                group = group.property(format!("{field}__{}", bucket.name()), text);
            }
        }
    }
    group = group.property("count", typed(None, Some(Function::Count)));
    for function in Function::OF_FIELDS {
        for field in declared.fields(function.name()) {
            let alias = format!("{}_{field}", function.name());
            group = group.property(alias, typed(doc.column_type(field), Some(function)));
        }
    }
    ObjectBuilder::new()
        .property("groups", ArrayBuilder::new().items(group))
        .required("groups")
        .property("truncated", ObjectBuilder::new().schema_type(Type::Boolean))
        .required("truncated")
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .into()
}

/// The aggregate operation: `op` (its id, tags, security and common errors) with its parameters and answers.
pub(crate) fn operation(
    doc: &Doc,
    declared: &Aggregates,
    op: OperationBuilder,
    list: Vec<Parameter>,
) -> OperationBuilder {
    let ok = ResponseBuilder::new()
        .description("The groups, as one statement over the rows the caller may list.")
        .content("application/json", Content::new(Some(answer(doc, declared))))
        .build();
    let invalid = ResponseBuilder::new()
        .description("An unknown, undeclared or hidden field, a bad bucket, zone, order, condition or limit.")
        .content("application/json", Content::new(Some(super::shapes::component("InputValidationError"))))
        .build();
    op.description(Some(
        "Counts, sums, averages, minimums, maximums and distinct counts per group, over the same rows as the list \
         (its filters, `or=` groups, related filters and search narrow them).",
    ))
    .parameters(Some(parameters(doc, declared, list)))
    .response("200", ok)
    .response("422", invalid)
}
