//! Turning fuzz input into requests: the selector byte every target starts with, the pools of names and values the
//! structured paths draw from, and the encoding of raw bytes as a request target.
//!
//! Every input is `<selector byte><rest>`; the selector's bits choose the backend, limits, caller and so on (each
//! target documents its own bits), so a hand-written seed is a readable line: `0views__gte=10&ordering=-views` is
//! SQLite, the default limits, `/items/`, anonymous, the raw path.

use arbitrary::{Result, Unstructured};
use sea_orm::DbBackend;
use viewset_core::Principal;

/// The first byte of an input.
#[derive(Debug, Clone, Copy)]
pub struct Selector(pub u8);

impl Selector {
    /// Bit 0: SQLite (0) or PostgreSQL (1).
    pub fn backend(self) -> DbBackend {
        if self.bit(0) { DbBackend::Postgres } else { DbBackend::Sqlite }
    }

    /// Whether bit `n` is set.
    pub fn bit(self, n: u8) -> bool {
        self.0 >> n & 1 == 1
    }

    /// The two bits at `shift` as 0..=3.
    pub fn two(self, shift: u8) -> usize {
        usize::from(self.0 >> shift & 3)
    }
}

/// The caller for a two-bit choice: anonymous (0 and 3), a user (1), staff (2).
pub fn principal(choice: usize) -> Principal {
    match choice {
        1 => Principal::user("u1"),
        2 => Principal::user("s1").staff(),
        _ => Principal::anonymous(),
    }
}

/// Field names: every field, the renamed column's SQL name, unknown and empty names.
pub const FIELDS: &[&str] = &[
    "id",
    "title",
    "body",
    "views",
    "small",
    "big",
    "published",
    "rating",
    "ratio",
    "born",
    "opens",
    "seen",
    "created_at",
    "secret",
    "label",
    "meta",
    "label_text",
    "nope",
    "",
    "ID",
    "id ",
];

/// Lookup suffixes: every lookup, unknown ones and doubled separators.
pub const LOOKUPS: &[&str] =
    &["", "gt", "gte", "lt", "lte", "in", "isnull", "contains", "icontains", "exact", "regex", "", "gt__lt", "_"];

/// The parameters the framework reads besides filters.
pub const KEYWORDS: &[&str] = &[
    "limit", "offset", "page", "page_size", "cursor", "search", "ordering", "fields", "count", "group_by", "sum", "avg",
    "min", "max", "count_distinct", "order_by", "having", "tz",
];

/// Values that sit on a boundary of some parser or column type.
pub const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "-0",
    "+1",
    "created_at__month",
    "born__week,published",
    "seen__hour",
    "-count",
    "count__gte:1",
    "sum_views__lt:2.5,count__exact:1",
    "Europe/Berlin",
    "UTC",
    " 7 ",
    "2.5",
    "-2.5",
    "0.5",
    "1e10",
    "1e-5",
    "1e400",
    "-1e400",
    "NaN",
    "inf",
    "-inf",
    "127",
    "128",
    "-129",
    "32767",
    "32768",
    "-32769",
    "2147483647",
    "2147483648",
    "-2147483649",
    "9007199254740993",
    "9.0e15",
    "9.1e15",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "99999999999999999999999999",
    "true",
    "false",
    "yes",
    "no",
    "TRUE",
    "maybe",
    "null",
    "none",
    "None",
    "",
    " ",
    "2026-11-22",
    "0001-01-01",
    "0000-12-31",
    "9999-12-31",
    "10000-01-01",
    "-0001-01-01",
    "+2026-01-01",
    "-262143-01-01",
    "262143-12-31",
    "2026-02-30",
    "2026-11-22T10:00:00Z",
    "2026-11-22 10:00:00.123",
    "9999-12-31T23:59:59-23:59",
    "0001-01-01T00:00:00+23:59",
    "2026-11-22T10:00:00+25:00",
    "12:00:00",
    "24:00:00",
    "23:59:60",
    "12:00",
    "%",
    "_",
    "\\",
    "%_\\",
    "'",
    "\"",
    "' OR '1'='1",
    "a\0b",
    "\0",
    "é",
    "\u{1F600}",
    "\u{202E}",
    "a,b",
    ",",
    ",,,",
    "1,2,3",
    "1, 2 ,3",
    "-id",
    "id,-id",
    "-",
    "--id",
    "-secret",
    "title,views",
    "?",
    "&",
    "=",
    "%00",
    "%ZZ",
    "{}",
    "[]",
    "\u{FFFD}",
];

/// One of `pool`.
pub fn pick<'a>(u: &mut Unstructured, pool: &[&'a str]) -> Result<&'a str> {
    u.choose(pool).copied()
}

/// A query value: a boundary value, a comma list of them, a long run, or any string.
pub fn query_value(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=5)? {
        0 | 1 => pick(u, VALUES)?.to_string(),
        2 => {
            let n = u.int_in_range(0..=6)?;
            (0..n).map(|_| list_item(u)).collect::<Result<Vec<_>>>()?.join(",")
        }
        3 => {
            // Runs up to past the 1,000-character search limit (and within what a URI can carry).
            let unit = pick(u, VALUES)?;
            unit.repeat(u.int_in_range(1..=1_100 / unit.len().max(1))?)
        }
        _ => u.arbitrary::<String>()?,
    })
}

fn list_item(u: &mut Unstructured) -> Result<String> {
    Ok(if u.arbitrary()? {
        let sign = if u.arbitrary()? { "-" } else { "" };
        format!("{sign}{}", pick(u, FIELDS)?)
    } else {
        pick(u, VALUES)?.to_string()
    })
}

/// A parameter name: `field__lookup`, a keyword, or any string.
pub fn query_name(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=5)? {
        0..=2 => match pick(u, LOOKUPS)? {
            "" => pick(u, FIELDS)?.to_string(),
            lookup => format!("{}__{lookup}", pick(u, FIELDS)?),
        },
        3 | 4 => pick(u, KEYWORDS)?.to_string(),
        _ => u.arbitrary::<String>()?,
    })
}

/// A query string of up to 12 pairs, names and values drawn as above, encoded as a client encodes them.
pub fn structured_query(u: &mut Unstructured) -> Result<String> {
    let mut query = form_urlencoded::Serializer::new(String::new());
    for _ in 0..u.int_in_range(0..=12)? {
        let name = query_name(u)?;
        let value = query_value(u)?;
        query.append_pair(&name, &value);
        if u.ratio(1, 8)? {
            query.append_pair(&name, &value);
        }
    }
    Ok(query.finish())
}

/// Raw bytes as a request target's query: bytes a URI may carry stay as they are (`%` too, so malformed escapes
/// reach the decoder); every other byte is percent-encoded, as a client library sends it.
pub fn encode_query(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    for &b in raw {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/?%".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A JSON value for a body or a cursor: scalars on type and range boundaries, strings from [`VALUES`], and nested
/// arrays and objects up to `depth`.
pub fn json_value(u: &mut Unstructured, depth: u8) -> Result<serde_json::Value> {
    use serde_json::{Value, json};
    let top = if depth == 0 { 7 } else { 9 };
    Ok(match u.int_in_range(0..=top)? {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(*u.choose(&[
            0i64,
            1,
            -1,
            i16::MAX as i64 + 1,
            i16::MIN as i64 - 1,
            i32::MAX as i64,
            i32::MAX as i64 + 1,
            i32::MIN as i64 - 1,
            i64::MAX,
            i64::MIN
        ])?),
        3 => json!(u.arbitrary::<i64>()?),
        4 => json!(u64::MAX - u.int_in_range(0..=1)?),
        5 => {
            let pool = [5.0, -0.0, 0.5, 2.5, 1e308, 1e-308, 3.4e38, 3.5e38, 4294967296.0, 9.2e18, 9.3e18, 1e-46];
            serde_json::Number::from_f64(*u.choose(&pool)?).map_or(Value::Null, Value::Number)
        }
        6 => serde_json::Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        7 => Value::String(if u.arbitrary()? { pick(u, VALUES)?.to_string() } else { long_text(u)? }),
        8 => Value::Array((0..u.int_in_range(0..=3)?).map(|_| json_value(u, depth - 1)).collect::<Result<_>>()?),
        _ => {
            let mut map = serde_json::Map::new();
            for _ in 0..u.int_in_range(0..=3)? {
                map.insert(pick(u, FIELDS)?.to_string(), json_value(u, depth - 1)?);
            }
            Value::Object(map)
        }
    })
}

/// Text around the 40-character limit of `title`, in one- and multi-byte characters, or any string.
fn long_text(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=2)? {
        0 => "a".repeat(u.int_in_range(39..=41)?),
        1 => "é\u{1F600}".repeat(u.int_in_range(19..=21)?),
        _ => u.arbitrary()?,
    })
}
