//! The parameters of `GET <prefix>/aggregate`, read into a [`Plan`]: which group keys (fields and time buckets),
//! which aggregates under which aliases, the order, `having`, `limit` and `tz`. Plain functions over the
//! declaration and the resolved columns: compiled once, not per ViewSet. Every refusal is a 422 at its parameter;
//! a field the caller may not see is refused exactly as a field that does not exist.

use sea_orm::sea_query::ColumnType;

use super::bucket::Bucket;
use crate::error::ApiError;
use crate::types::options::Aggregates;
use crate::types::params::QueryParams;

/// The query parameters the aggregate endpoint reads itself; every other parameter is the list's (filters, `or=`,
/// `search`, …) and narrows the rows exactly as it narrows the list.
///
/// ```
/// use viewset_core::aggregate::PARAMETERS;
/// assert!(PARAMETERS.contains(&"group_by") && PARAMETERS.contains(&"having"));
/// assert!(!PARAMETERS.contains(&"search"), "the list's own");
/// ```
pub const PARAMETERS: &[&str] =
    &["group_by", "count", "sum", "avg", "min", "max", "count_distinct", "order_by", "having", "limit", "tz"];

/// The most group keys one request may name (more is a 422 `too_many_group_keys` at `group_by`).
///
/// ```
/// assert_eq!(viewset_core::aggregate::MAX_GROUP_KEYS, 4);
/// ```
pub const MAX_GROUP_KEYS: usize = 4;

/// What an aggregate computes per group; its alias in the answer is `count`, or the function's name and the
/// field's (`sum_views`, `count_distinct_author_id`).
///
/// ```
/// use viewset_core::aggregate::Function;
/// let params: Vec<&str> = Function::OF_FIELDS.iter().map(|f| f.name()).collect();
/// assert_eq!(params, ["sum", "avg", "min", "max", "count_distinct"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Function {
    /// `COUNT(*)`: the group's rows.
    Count,
    /// `SUM(field)`, typed as the field (an integer field sums to an integer).
    Sum,
    /// `AVG(field)`, always a JSON number.
    Avg,
    /// `MIN(field)`, typed as the field.
    Min,
    /// `MAX(field)`, typed as the field.
    Max,
    /// `COUNT(DISTINCT field)`: the group's distinct non-null values.
    CountDistinct,
}

impl Function {
    /// The functions that name fields, in the order an answer lists them (after `count`).
    pub const OF_FIELDS: [Function; 5] =
        [Function::Sum, Function::Avg, Function::Min, Function::Max, Function::CountDistinct];

    /// The parameter that asks for it, and the start of its alias.
    ///
    /// ```
    /// assert_eq!(viewset_core::aggregate::Function::CountDistinct.name(), "count_distinct");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Function::Count => "count",
            Function::Sum => "sum",
            Function::Avg => "avg",
            Function::Min => "min",
            Function::Max => "max",
            Function::CountDistinct => "count_distinct",
        }
    }
}

/// A field of the model as the statement names it.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    /// The model's field name.
    pub(crate) field: &'static str,
    /// The column's name in the database.
    pub(crate) name: &'static str,
    pub(crate) column_type: ColumnType,
}

/// One group key: a field, or a field's time bucket; answered under the key as written.
#[derive(Debug, Clone)]
pub(crate) struct Key {
    pub(crate) alias: String,
    pub(crate) column: Column,
    pub(crate) bucket: Option<Bucket>,
}

/// One computed value per group.
#[derive(Debug, Clone)]
pub(crate) struct Value {
    pub(crate) alias: String,
    pub(crate) function: Function,
    /// `None` for [`Function::Count`].
    pub(crate) column: Option<Column>,
}

/// A term of `order_by`: a key or a value (by index), and whether descending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Key(usize),
    Value(usize),
}

/// A comparison of `having`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compare {
    Exact,
    Gt,
    Gte,
    Lt,
    Lte,
}

/// A `having` term: the value at an index compared with a number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Having {
    pub(crate) value: usize,
    pub(crate) compare: Compare,
    pub(crate) number: Number,
}

/// A number of `having`, an integer when written as one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Number {
    Int(i64),
    Float(f64),
}

/// An aggregate request, read and checked.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) keys: Vec<Key>,
    pub(crate) values: Vec<Value>,
    pub(crate) order: Vec<(Target, bool)>,
    pub(crate) having: Vec<Having>,
    pub(crate) limit: u64,
    /// A named time zone for the buckets (`None`: UTC).
    pub(crate) tz: Option<super::zone::Zone>,
}

/// What a request may name: the declaration, the caller's view of fields, and the columns.
pub(crate) struct Allowed<'a> {
    pub(crate) declared: &'a Aggregates,
    /// Whether this caller may query a field (hidden and tenant fields may not be named).
    pub(crate) may: &'a dyn Fn(&str) -> bool,
    /// The column of a declared field.
    pub(crate) column: &'a dyn Fn(&'static str) -> Option<Column>,
}

impl Allowed<'_> {
    /// The declared field of `kind` called `name`, as this caller may name it; otherwise a 422 at `param` that lists
    /// what the caller may name (a hidden field is neither accepted nor listed).
    fn field(&self, param: &str, kind: &str, name: &str) -> Result<Column, ApiError> {
        let fields = self.declared.fields(kind);
        let found = fields.iter().find(|field| **field == name && (self.may)(field));
        if let Some(column) = found.and_then(|field| (self.column)(field)) {
            return Ok(column);
        }
        let visible: Vec<&str> = fields.iter().copied().filter(|field| (self.may)(field)).collect();
        let choices = if visible.is_empty() { "none".to_string() } else { visible.join(", ") };
        let msg = format!("`{name}` is not a field `{kind}` accepts here; it accepts: {choices}");
        Err(ApiError::input(["query", param], msg, "unknown_field"))
    }
}

fn invalid(param: &str, msg: impl Into<String>, kind: &str) -> ApiError {
    ApiError::input(["query", param], msg, kind)
}

/// The comma-separated names of `param` (each once, none empty); empty when absent.
fn names<'q>(query: &'q QueryParams, param: &str) -> Result<Vec<&'q str>, ApiError> {
    let Some(raw) = query.one(param)? else { return Ok(Vec::new()) };
    let mut out: Vec<&str> = Vec::new();
    for name in raw.split(',').map(str::trim) {
        if name.is_empty() {
            return Err(invalid(param, "Give comma-separated names, none of them empty", "invalid_list"));
        }
        if out.contains(&name) {
            return Err(invalid(param, format!("`{name}` is named twice"), "duplicate_name"));
        }
        out.push(name);
    }
    Ok(out)
}

/// Reads the aggregate parameters of `query` under `allowed`.
pub(crate) fn read(query: &QueryParams, allowed: &Allowed<'_>) -> Result<Plan, ApiError> {
    query.check()?;
    let keys = keys(query, allowed)?;
    let values = values(query, allowed)?;
    let order = order(query, &keys, &values)?;
    let having = having(query, &values)?;
    let max = allowed.declared.max_groups;
    let limit = query.bounded_int("limit", max, 1, Some(max))?;
    let tz = super::bucket::time_zone(query.one("tz")?)?;
    Ok(Plan { keys, values, order, having, limit, tz })
}

fn keys(query: &QueryParams, allowed: &Allowed<'_>) -> Result<Vec<Key>, ApiError> {
    let written = names(query, "group_by")?;
    if written.len() > MAX_GROUP_KEYS {
        let msg = format!("At most {MAX_GROUP_KEYS} group keys are accepted");
        return Err(invalid("group_by", msg, "too_many_group_keys"));
    }
    let mut keys = Vec::with_capacity(written.len());
    for key in written {
        let (field, bucket) = match key.split_once("__") {
            Some((field, bucket)) => (field, Some(bucket)),
            None => (key, None),
        };
        let column = allowed.field("group_by", "group_by", field)?;
        let bucket = match bucket {
            None => None,
            Some(name) => Some(Bucket::for_column(name, &column, "group_by")?),
        };
        keys.push(Key { alias: key.to_string(), column, bucket });
    }
    Ok(keys)
}

fn values(query: &QueryParams, allowed: &Allowed<'_>) -> Result<Vec<Value>, ApiError> {
    let mut values = Vec::new();
    let count = match query.one("count")? {
        None => false,
        Some("" | "true" | "1") => true,
        Some(_) => {
            return Err(invalid("count", "Write `count` (or `count=true`) to count each group's rows", "bool_parsing"));
        }
    };
    if count {
        values.push(Value { alias: "count".into(), function: Function::Count, column: None });
    }
    for function in Function::OF_FIELDS {
        let param = function.name();
        for name in names(query, param)? {
            let column = allowed.field(param, param, name)?;
            values.push(Value { alias: format!("{param}_{name}"), function, column: Some(column) });
        }
    }
    if values.is_empty() {
        // Nothing asked for: each group's count.
        values.push(Value { alias: "count".into(), function: Function::Count, column: None });
    }
    Ok(values)
}

fn order(query: &QueryParams, keys: &[Key], values: &[Value]) -> Result<Vec<(Target, bool)>, ApiError> {
    let mut order: Vec<(Target, bool)> = Vec::new();
    for term in names(query, "order_by")? {
        let (name, desc) = match term.strip_prefix('-') {
            Some(name) => (name, true),
            None => (term, false),
        };
        let target = if let Some(at) = keys.iter().position(|k| k.alias == name) {
            Target::Key(at)
        } else if let Some(at) = values.iter().position(|v| v.alias == name) {
            Target::Value(at)
        } else {
            let known: Vec<&str> =
                keys.iter().map(|k| k.alias.as_str()).chain(values.iter().map(|v| v.alias.as_str())).collect();
            let msg = format!(
                "`{name}` is not a group key or an aggregate of this request; order by one of: {}",
                known.join(", ")
            );
            return Err(invalid("order_by", msg, "unknown_field"));
        };
        if order.iter().any(|(seen, _)| *seen == target) {
            return Err(invalid("order_by", format!("`{name}` is ordered by twice"), "duplicate_name"));
        }
        order.push((target, desc));
    }
    Ok(order)
}

fn having(query: &QueryParams, values: &[Value]) -> Result<Vec<Having>, ApiError> {
    let mut out = Vec::new();
    for term in names(query, "having")? {
        let shape = "Write `<aggregate>__<gt|gte|lt|lte|exact>:<number>`, e.g. `count__gte:5`";
        let (left, number) = term.split_once(':').ok_or_else(|| invalid("having", shape, "invalid_having"))?;
        let (alias, compare) = match left.rsplit_once("__") {
            Some((alias, "gt")) => (alias, Compare::Gt),
            Some((alias, "gte")) => (alias, Compare::Gte),
            Some((alias, "lt")) => (alias, Compare::Lt),
            Some((alias, "lte")) => (alias, Compare::Lte),
            Some((alias, "exact")) => (alias, Compare::Exact),
            _ => return Err(invalid("having", shape, "invalid_having")),
        };
        let Some(value) = values.iter().position(|v| v.alias == alias) else {
            let known: Vec<&str> = values.iter().map(|v| v.alias.as_str()).collect();
            let msg = format!("`{alias}` is not an aggregate of this request; one of: {}", known.join(", "));
            return Err(invalid("having", msg, "unknown_field"));
        };
        let number = number.trim();
        let number = match number.parse::<i64>() {
            Ok(int) => Number::Int(int),
            Err(_) => match number.parse::<f64>() {
                Ok(float) if float.is_finite() => Number::Float(float),
                _ => return Err(invalid("having", format!("`{number}` is not a number"), "float_parsing")),
            },
        };
        out.push(Having { value, compare, number });
    }
    Ok(out)
}
