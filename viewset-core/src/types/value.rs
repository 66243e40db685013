//! Query-string text to a typed database value, by the column's type. Every failure is a message for a 422,
//! never a panic: the value is always bound as a parameter of the column's own type.

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use sea_orm::Value;
use sea_orm::prelude::{Decimal, Uuid};
use sea_orm::sea_query::ColumnType;

/// The spec's truthy and falsy words (case-insensitive).
///
/// ```
/// use viewset_core::query::value::parse_bool;
/// assert_eq!((parse_bool(" Yes"), parse_bool("0"), parse_bool("FALSE"), parse_bool("maybe")), (Some(true), Some(false), Some(false), None));
/// ```
pub fn parse_bool(raw: &str) -> Option<bool> {
    let word = raw.trim();
    let is = |words: [&str; 3]| words.iter().any(|w| w.eq_ignore_ascii_case(word));
    if is(["true", "yes", "1"]) {
        Some(true)
    } else if is(["false", "no", "0"]) {
        Some(false)
    } else {
        None
    }
}

/// The spec's words for "no value": `null`, `none` or an empty string (case-insensitive).
///
/// ```
/// use viewset_core::query::value::is_null_word;
/// assert!(is_null_word("NULL") && is_null_word(" none ") && is_null_word("") && !is_null_word("nil"));
/// ```
pub fn is_null_word(raw: &str) -> bool {
    let word = raw.trim();
    word.is_empty() || word.eq_ignore_ascii_case("null") || word.eq_ignore_ascii_case("none")
}

/// Whether substring lookups (`contains`, `search`) make sense on this column.
pub fn is_text(column_type: &ColumnType) -> bool {
    matches!(column_type, ColumnType::Char(_) | ColumnType::String(_) | ColumnType::Text)
}

/// Whether `gt`/`gte`/`lt`/`lte` make sense on this column.
pub fn is_ordered(column_type: &ColumnType) -> bool {
    !matches!(column_type, ColumnType::Boolean | ColumnType::Json | ColumnType::JsonBinary | ColumnType::Blob)
}

/// Whether the column holds integers (a float bound is rounded to the equivalent integer bound).
pub fn is_integer(column_type: &ColumnType) -> bool {
    matches!(
        column_type,
        ColumnType::TinyInteger
            | ColumnType::SmallInteger
            | ColumnType::Integer
            | ColumnType::BigInteger
            | ColumnType::TinyUnsigned
            | ColumnType::SmallUnsigned
            | ColumnType::Unsigned
            | ColumnType::BigUnsigned
    )
}

/// A typed NULL of the column's type (so PostgreSQL knows the type of a bound NULL).
///
/// ```
/// use sea_orm::{Value, sea_query::ColumnType};
/// assert_eq!(viewset_core::query::value::null_of(&ColumnType::Integer), Value::Int(None));
/// ```
pub fn null_of(column_type: &ColumnType) -> Value {
    match column_type {
        ColumnType::TinyInteger => Value::TinyInt(None),
        ColumnType::SmallInteger => Value::SmallInt(None),
        ColumnType::Integer => Value::Int(None),
        ColumnType::BigInteger => Value::BigInt(None),
        ColumnType::Float => Value::Float(None),
        ColumnType::Double => Value::Double(None),
        ColumnType::Boolean => Value::Bool(None),
        ColumnType::Date => Value::ChronoDate(None),
        ColumnType::DateTime | ColumnType::Timestamp => Value::ChronoDateTime(None),
        ColumnType::TimestampWithTimeZone => Value::ChronoDateTimeUtc(None),
        ColumnType::Uuid => Value::Uuid(None),
        ColumnType::Decimal(_) | ColumnType::Money(_) => Value::Decimal(None),
        _ => Value::String(None),
    }
}

/// Converts a JSON value (a record's field as serialized) to a value of the column's type; `null` is a typed NULL.
///
/// ```
/// use sea_orm::{Value, sea_query::ColumnType};
/// use viewset_core::query::value::from_json;
/// assert_eq!(from_json(&ColumnType::Integer, &serde_json::json!(7)), Ok(Value::Int(Some(7))));
/// assert_eq!(from_json(&ColumnType::Text, &serde_json::json!(null)), Ok(Value::String(None)));
/// ```
pub fn from_json(column_type: &ColumnType, json: &serde_json::Value) -> Result<Value, String> {
    match json {
        serde_json::Value::Null => Ok(null_of(column_type)),
        serde_json::Value::String(s) => parse_value(column_type, s),
        other => parse_value(column_type, &other.to_string()),
    }
}

/// Converts `raw` to a value of the column's type.
///
/// ```
/// use sea_orm::{Value, sea_query::ColumnType};
/// use viewset_core::query::value::parse_value;
/// assert_eq!(parse_value(&ColumnType::Integer, "42"), Ok(Value::Int(Some(42))));
/// assert!(parse_value(&ColumnType::Integer, "4.2").is_err());
/// assert_eq!(parse_value(&ColumnType::Boolean, "yes"), Ok(Value::Bool(Some(true))));
/// let price = parse_value(&ColumnType::Decimal(Some((19, 4))), "9.99");
/// assert!(matches!(price, Ok(Value::Decimal(Some(d))) if d.to_string() == "9.99"));
/// assert!(parse_value(&ColumnType::Uuid, "67e55044-10b1-426f-9247-bb680e5fe0c8").is_ok());
/// assert!(parse_value(&ColumnType::Uuid, "67e55044").is_err());
/// ```
pub fn parse_value(column_type: &ColumnType, raw: &str) -> Result<Value, String> {
    let text = raw.trim();
    let int_err = |_| "Input should be a valid integer".to_string();
    let float_err = |_| "Input should be a valid number".to_string();
    Ok(match column_type {
        ColumnType::Char(_) | ColumnType::String(_) | ColumnType::Text => {
            check_text(raw)?;
            Value::String(Some(raw.to_string()))
        }
        ColumnType::TinyInteger => Value::TinyInt(Some(text.parse().map_err(int_err)?)),
        ColumnType::SmallInteger => Value::SmallInt(Some(text.parse().map_err(int_err)?)),
        ColumnType::Integer => Value::Int(Some(text.parse().map_err(int_err)?)),
        ColumnType::BigInteger => Value::BigInt(Some(text.parse().map_err(int_err)?)),
        ColumnType::TinyUnsigned => Value::TinyUnsigned(Some(text.parse().map_err(int_err)?)),
        ColumnType::SmallUnsigned => Value::SmallUnsigned(Some(text.parse().map_err(int_err)?)),
        ColumnType::Unsigned => Value::Unsigned(Some(text.parse().map_err(int_err)?)),
        ColumnType::BigUnsigned => Value::BigUnsigned(Some(text.parse().map_err(int_err)?)),
        ColumnType::Float => Value::Float(Some(finite(text.parse().map_err(float_err)?)?)),
        ColumnType::Double => Value::Double(Some(finite(text.parse().map_err(float_err)?)?)),
        ColumnType::Boolean => {
            Value::Bool(Some(parse_bool(text).ok_or("Input should be a valid boolean (true/false, yes/no, 1/0)")?))
        }
        ColumnType::Date => Value::ChronoDate(Some(in_range(
            NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| "Input should be a valid date (YYYY-MM-DD)")?,
        )?)),
        ColumnType::Time => Value::ChronoTime(Some(
            NaiveTime::parse_from_str(text, "%H:%M:%S%.f").map_err(|_| "Input should be a valid time (HH:MM:SS)")?,
        )),
        ColumnType::DateTime | ColumnType::Timestamp => Value::ChronoDateTime(Some(parse_datetime(text)?.naive_utc())),
        ColumnType::TimestampWithTimeZone => Value::ChronoDateTimeUtc(Some(parse_datetime(text)?)),
        ColumnType::Uuid => Value::Uuid(Some(parse_uuid(text)?)),
        ColumnType::Decimal(_) | ColumnType::Money(_) => Value::Decimal(Some(parse_decimal(text)?)),
        other => return Err(format!("filtering on a column of type {other:?} is not supported")),
    })
}

/// Text every database stores: PostgreSQL refuses the NUL character in text, so it is refused everywhere.
///
/// ```
/// assert!(viewset_core::query::value::check_text("a\0b").is_err());
/// assert!(viewset_core::query::value::check_text("ab").is_ok());
/// ```
pub fn check_text(raw: &str) -> Result<(), String> {
    if raw.contains('\0') { Err("Input should not contain the NUL character (\\u0000)".into()) } else { Ok(()) }
}

/// The dates every supported database can store and compare: years 1 to 9999.
pub const DATE_RANGE: &str = "between 0001-01-01 and 9999-12-31";

/// Whether a typed value is one every supported database stores: dates and date-times in [`DATE_RANGE`], text
/// without NUL. The same rule as the query string's, applied to values that arrived another way (a JSON body).
///
/// ```
/// use sea_orm::Value;
/// use viewset_core::query::value::check_storable;
/// let far = chrono::NaiveDate::from_ymd_opt(-4800, 1, 1);
/// assert!(check_storable(&Value::ChronoDate(far)).is_err());
/// assert!(check_storable(&Value::Int(Some(3))).is_ok());
/// ```
pub fn check_storable(value: &Value) -> Result<(), String> {
    match value {
        Value::ChronoDate(Some(d)) => in_range(*d).map(drop),
        Value::ChronoDateTime(Some(d)) => in_range(*d).map(drop),
        Value::ChronoDateTimeUtc(Some(d)) => in_range(*d).map(drop),
        Value::ChronoDateTimeLocal(Some(d)) => in_range(*d).map(drop),
        Value::ChronoDateTimeWithTimeZone(Some(d)) => in_range(*d).map(drop),
        Value::String(Some(s)) => check_text(s),
        _ => Ok(()),
    }
}

/// Whether `value` fits the column it is written to: a decimal within the precision and scale the column declares
/// (`Decimal(Some((19, 4)))`: at most 4 digits after the point, trailing zeros not counted, and 15 before it), as
/// PostgreSQL's `numeric(19, 4)` stores it (it would round more decimal places and refuse more digits). Any other
/// value, or a column without a declared precision, fits.
///
/// ```
/// use sea_orm::{Value, prelude::Decimal, sea_query::ColumnType};
/// use viewset_core::query::value::check_fits;
/// let money = ColumnType::Decimal(Some((19, 4)));
/// let price = |text: &str| Value::Decimal(Some(text.parse::<Decimal>().unwrap()));
/// assert!(check_fits(&money, &price("9.9900")).is_ok());
/// assert!(check_fits(&money, &price("0.00001")).is_err());
/// assert!(check_fits(&money, &price("1234567890123456")).is_err());
/// assert!(check_fits(&ColumnType::Decimal(None), &price("0.00001")).is_ok());
/// ```
pub fn check_fits(column_type: &ColumnType, value: &Value) -> Result<(), String> {
    let (ColumnType::Decimal(Some((precision, scale))) | ColumnType::Money(Some((precision, scale)))) = column_type
    else {
        return Ok(());
    };
    let Value::Decimal(Some(decimal)) = value else { return Ok(()) };
    let normal = decimal.normalize();
    if normal.scale() > *scale {
        return Err(format!("Ensure that there are no more than {scale} decimal places"));
    }
    let whole = normal.abs().trunc();
    let before = if whole.is_zero() { 0 } else { whole.to_string().len() as u32 };
    let allowed = precision.saturating_sub(*scale);
    if before > allowed {
        return Err(format!("Ensure that there are no more than {allowed} digits before the decimal point"));
    }
    Ok(())
}

fn in_range<D: Datelike>(date: D) -> Result<D, String> {
    if (1..=9999).contains(&date.year()) { Ok(date) } else { Err(format!("Input should be a date {DATE_RANGE}")) }
}

fn finite<F: Into<f64> + Copy>(v: F) -> Result<F, String> {
    if v.into().is_finite() { Ok(v) } else { Err("Input should be a finite number".into()) }
}

/// A UUID as `uuid` parses one: hyphenated (`67e55044-10b1-426f-9247-bb680e5fe0c8`, any case), 32 hex digits,
/// braced or as a URN, the forms a JSON body accepts too.
fn parse_uuid(text: &str) -> Result<Uuid, String> {
    Uuid::try_parse(text).map_err(|_| "Input should be a valid UUID (e.g. 67e55044-10b1-426f-9247-bb680e5fe0c8)".into())
}

/// A decimal number written out (`9.99`, `-0.5`, `12`): digits with an optional sign and fraction, at most 28
/// significant digits (what `rust_decimal::Decimal` holds exactly). No exponent, no `NaN` or infinity.
fn parse_decimal(text: &str) -> Result<Decimal, String> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let plain = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    let invalid = || "Input should be a valid decimal number (e.g. 9.99)".to_string();
    if (whole.is_empty() && fraction.is_empty()) || !plain(whole) || !plain(fraction) {
        return Err(invalid());
    }
    text.parse::<Decimal>().map_err(|_| "Input should be a decimal number of at most 28 significant digits".into())
}

/// RFC 3339 (`2026-11-22T10:00:00Z`), a naive date-time taken as UTC, or a bare date (midnight UTC).
fn parse_datetime(text: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(dt) = DateTime::parse_from_rfc3339(text) {
        return in_range(dt.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(dt) = NaiveDateTime::parse_from_str(text, format) {
            return in_range(dt.and_utc());
        }
    }
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return in_range(date.and_hms_opt(0, 0, 0).expect("midnight exists").and_utc());
    }
    Err("Input should be a valid datetime (RFC 3339, e.g. 2026-11-22T10:00:00Z)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_values() {
        assert!(parse_value(&ColumnType::Integer, "99999999999").is_err());
        assert_eq!(parse_value(&ColumnType::Double, "2.5"), Ok(Value::Double(Some(2.5))));
        assert!(parse_value(&ColumnType::Double, "NaN").is_err());
        assert!(parse_value(&ColumnType::Boolean, "maybe").is_err());
        assert!(matches!(
            parse_value(&ColumnType::TimestampWithTimeZone, "2026-11-22"),
            Ok(Value::ChronoDateTimeUtc(Some(_)))
        ));
        assert!(parse_value(&ColumnType::TimestampWithTimeZone, "yesterday").is_err());
        assert!(parse_value(&ColumnType::TimestampWithTimeZone, "-262143-01-01").is_err());
        assert!(parse_value(&ColumnType::Date, "10000-01-01").is_err());
        assert!(parse_value(&ColumnType::Timestamp, "0000-12-31T23:00:00").is_err());
        assert!(parse_value(&ColumnType::Date, "9999-12-31").is_ok());
        assert!(parse_value(&ColumnType::Text, "a\0").is_err());
    }

    #[test]
    fn uuids_and_decimals() {
        let uuid = "67e55044-10b1-426f-9247-bb680e5fe0c8";
        let parsed = parse_value(&ColumnType::Uuid, uuid).unwrap();
        assert_eq!(parsed, Value::Uuid(Some(Uuid::parse_str(uuid).unwrap())));
        assert_eq!(parse_value(&ColumnType::Uuid, &uuid.to_uppercase()), Ok(parsed.clone()));
        assert_eq!(parse_value(&ColumnType::Uuid, &uuid.replace('-', "")), Ok(parsed));
        for bad in ["", "x", "67e55044-10b1-426f-9247-bb680e5fe0c", "67e55044-10b1-426f-9247-bb680e5fe0cg", "1"] {
            assert!(parse_value(&ColumnType::Uuid, bad).unwrap_err().contains("UUID"), "{bad:?}");
        }
        let money = ColumnType::Decimal(Some((19, 4)));
        for (text, shown) in [("9.99", "9.99"), ("-0.5", "-0.5"), ("+12", "12"), (".5", "0.5"), ("7.", "7")] {
            let Ok(Value::Decimal(Some(d))) = parse_value(&money, text) else { panic!("{text}") };
            assert_eq!(d.to_string(), shown);
        }
        assert!(matches!(parse_value(&ColumnType::Money(None), "1.25"), Ok(Value::Decimal(Some(_)))));
        for bad in ["", ".", "-", "1e5", "NaN", "inf", "1,5", "9.9.9", "0x10", "1_000", "12 34"] {
            assert!(parse_value(&money, bad).unwrap_err().contains("decimal"), "{bad:?}");
        }
        assert!(parse_value(&money, &"9".repeat(40)).unwrap_err().contains("28 significant digits"));
        assert_eq!(null_of(&money), Value::Decimal(None));
        assert_eq!(null_of(&ColumnType::Uuid), Value::Uuid(None));
        let from_number = from_json(&money, &serde_json::json!(2.5));
        assert!(matches!(from_number, Ok(Value::Decimal(Some(d))) if d.to_string() == "2.5"));
        assert!(check_fits(&money, &parse_value(&money, "-123456789012345.1234").unwrap()).is_ok());
        assert!(check_fits(&money, &parse_value(&money, "0.12345").unwrap()).is_err());
    }
}
