//! The rows of an aggregate statement as its JSON answer: `{"groups": [...], "truncated": bool}`, each group an
//! object of its keys (as written) and its aggregates (by alias), typed as the fields are whatever type the
//! database answered with (a sum of integers is a decimal on MariaDB and PostgreSQL's `bigint` sums, an integer
//! on SQLite: all answer a JSON integer). Averages are numbers, decimals their JSON form, NULL is `null`.

use sea_orm::QueryResult;
use sea_orm::prelude::{Decimal, Uuid};
use sea_orm::sea_query::ColumnType;
use serde_json::{Map, Value, json};

use super::params::{Column, Function, Plan};
use super::statement::{key_alias, value_alias};

/// The JSON type a value of the answer has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Decimal,
    Bool,
    Text,
    DateTime,
    Date,
    Uuid,
}

fn kind_of(column_type: &ColumnType) -> Kind {
    use crate::types::value::is_integer;
    match column_type {
        t if is_integer(t) => Kind::Int,
        ColumnType::Float | ColumnType::Double => Kind::Float,
        ColumnType::Decimal(_) | ColumnType::Money(_) => Kind::Decimal,
        ColumnType::Boolean => Kind::Bool,
        ColumnType::TimestampWithTimeZone | ColumnType::DateTime | ColumnType::Timestamp => Kind::DateTime,
        ColumnType::Date => Kind::Date,
        ColumnType::Uuid => Kind::Uuid,
        _ => Kind::Text,
    }
}

/// The kind of what `function` computes over `column`.
fn value_kind(function: Function, column: Option<&Column>) -> Kind {
    let field = column.map_or(Kind::Int, |c| kind_of(&c.column_type));
    match function {
        Function::Count | Function::CountDistinct => Kind::Int,
        Function::Avg => Kind::Float,
        Function::Sum if matches!(field, Kind::Int | Kind::Decimal) => field,
        Function::Sum => Kind::Float,
        Function::Min | Function::Max => field,
    }
}

/// The answer to `plan` from its `rows` (at most `limit + 1`).
pub(crate) fn answer(plan: &Plan, rows: &[QueryResult]) -> Value {
    let truncated = rows.len() as u64 > plan.limit;
    let kept = &rows[..rows.len().min(plan.limit as usize)];
    let mut groups = Vec::with_capacity(kept.len());
    for row in kept {
        let mut group = Map::new();
        for (i, key) in plan.keys.iter().enumerate() {
            let kind = if key.bucket.is_some() { Kind::Text } else { kind_of(&key.column.column_type) };
            group.insert(key.alias.clone(), read(row, &key_alias(i), kind));
        }
        for (i, value) in plan.values.iter().enumerate() {
            let kind = value_kind(value.function, value.column.as_ref());
            group.insert(value.alias.clone(), read(row, &value_alias(i), kind));
        }
        groups.push(Value::Object(group));
    }
    json!({"groups": groups, "truncated": truncated})
}

/// `Some(json)` when the column `alias` of `row` decodes as `T` (`null` for NULL), `None` when it is of another type.
fn get<T: sea_orm::TryGetable>(row: &QueryResult, alias: &str, json: impl Fn(T) -> Value) -> Option<Value> {
    match row.try_get::<Option<T>>("", alias) {
        Ok(Some(value)) => Some(json(value)),
        Ok(None) => Some(Value::Null),
        Err(_) => None,
    }
}

/// The column `alias` of `row` as a JSON value of `kind`, from whichever type the database answered with.
fn read(row: &QueryResult, alias: &str, kind: Kind) -> Value {
    let int = |n: i64| json!(n);
    let decimal_int = |d: Decimal| d.trunc().to_string().parse::<i64>().map_or_else(|_| json!(d), |n| json!(n));
    let decimal_float = |d: Decimal| d.to_string().parse::<f64>().map_or(Value::Null, |f| json!(f));
    let found = match kind {
        Kind::Int => get(row, alias, int)
            .or_else(|| get(row, alias, |n: i32| json!(n)))
            .or_else(|| get(row, alias, decimal_int))
            .or_else(|| get(row, alias, |f: f64| json!(f as i64))),
        Kind::Float => get(row, alias, |f: f64| json!(f))
            .or_else(|| get(row, alias, decimal_float))
            .or_else(|| get(row, alias, |n: i64| json!(n as f64))),
        Kind::Decimal => get(row, alias, |d: Decimal| json!(d))
            .or_else(|| get(row, alias, |f: f64| Decimal::try_from(f).map_or(json!(f), |d| json!(d))))
            .or_else(|| get(row, alias, |n: i64| json!(Decimal::from(n)))),
        Kind::Bool => get(row, alias, |b: bool| json!(b)).or_else(|| get(row, alias, |n: i64| json!(n != 0))),
        Kind::DateTime => get(row, alias, |t: chrono::DateTime<chrono::Utc>| json!(t))
            .or_else(|| get(row, alias, |t: chrono::NaiveDateTime| json!(t.and_utc()))),
        Kind::Date => get(row, alias, |d: chrono::NaiveDate| json!(d)),
        Kind::Uuid => get(row, alias, |u: Uuid| json!(u)),
        Kind::Text => None,
    };
    found
        .or_else(|| get(row, alias, |s: String| json!(s)))
        .or_else(|| get(row, alias, |n: i64| json!(n)))
        .or_else(|| get(row, alias, |f: f64| json!(f)))
        .unwrap_or(Value::Null)
}
