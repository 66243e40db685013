//! The CSV representation of a list (`Accept: text/csv` or `?format=csv`): the same page as JSON — the same
//! rows, fields (hidden ones and those `?fields=` leaves out are absent), order and policy — written as RFC 4180
//! CSV: a header row, then one row per record, `CRLF` line ends, a field quoted when it holds `,`, `"`, CR or LF
//! (quotes doubled). The row cap is the page: CSV carries exactly the rows the JSON page would (`limit`,
//! `max_limit`), without the envelope; a client pages with the same parameters. The default list streams its rows
//! ([`crate::pagination::csv_stream`]); this module's conversion of the JSON page serves the others. Values: text as is, numbers and
//! booleans as JSON writes them, `null` empty, nested values as JSON text.
//!
//! A text value that a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, tab or carriage
//! return) is written with a `'` in front, as OWASP's CSV-injection advice has it ([`Formulas`]); a ViewSet whose CSV
//! is read by programs turns that off with `#[viewset(csv_keep_formulas)]`. Numbers are never changed (`-5` stays),
//! nor are decimals, which JSON carries as strings (`"-9.99"` of a decimal column is written `-9.99`).

use axum::http::header::{ACCEPT, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use sea_orm::sea_query::ColumnType;
use sea_orm::{ColumnTrait, EntityTrait, Iterable};
use serde_json::Value;

use crate::contract::config::Config;
use crate::error::ApiError;
use crate::types::columns::field_name;
use crate::types::params::QueryParams;

/// The `Content-Type` of a CSV list.
pub const CSV_CONTENT_TYPE: &str = "text/csv; charset=utf-8";

/// Largest JSON page a list converts to CSV (a page is at most `max_limit` records).
const MAX_PAGE_BYTES: usize = 64 * 1024 * 1024;

/// The representation a list request asks for.
///
/// ```
/// use axum::http::{HeaderMap, HeaderValue, header::ACCEPT};
/// use viewset_core::pagination::ListFormat;
/// use viewset_core::query::QueryParams;
/// let none = HeaderMap::new();
/// assert_eq!(ListFormat::from_request(&QueryParams::parse(None), &none).unwrap(), ListFormat::Json);
/// assert_eq!(ListFormat::from_request(&QueryParams::parse(Some("format=csv")), &none).unwrap(), ListFormat::Csv);
/// assert!(ListFormat::from_request(&QueryParams::parse(Some("format=xml")), &none).is_err());
/// let mut csv = HeaderMap::new();
/// csv.insert(ACCEPT, HeaderValue::from_static("text/csv"));
/// assert_eq!(ListFormat::from_request(&QueryParams::parse(None), &csv).unwrap(), ListFormat::Csv);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ListFormat {
    /// The JSON page (the default).
    Json,
    /// The page's records as CSV.
    Csv,
}

impl ListFormat {
    /// The values of `?format=`.
    pub const VALUES: [&'static str; 2] = ["json", "csv"];

    /// `?format=` when given (any other value is a 422 naming the choices); else CSV when `Accept` prefers
    /// `text/csv` to JSON (`application/json`, `application/*` or `*/*`): a higher quality, or the same quality and
    /// listed first; else JSON (no `Accept`, `*/*`, or any other type: JSON is the server's representation, as
    /// HTTP lets it answer).
    pub fn from_request(query: &QueryParams, headers: &HeaderMap) -> Result<ListFormat, ApiError> {
        match query.one("format")? {
            Some("json") => return Ok(ListFormat::Json),
            Some("csv") => return Ok(ListFormat::Csv),
            Some(_) => {
                let msg = format!("Must be one of: {}", Self::VALUES.join(", "));
                return Err(ApiError::input(["query", "format"], msg, "invalid_choice"));
            }
            None => {}
        }
        // Every list request passes here: without `csv` in any `Accept` value the answer is JSON, with no allocation.
        let mentions_csv = |v: &HeaderValue| v.as_bytes().windows(3).any(|w| w.eq_ignore_ascii_case(b"csv"));
        if !headers.get_all(ACCEPT).iter().any(mentions_csv) {
            return Ok(ListFormat::Json);
        }
        let accept = headers.get_all(ACCEPT).iter().filter_map(|v| v.to_str().ok()).collect::<Vec<_>>().join(",");
        // (quality, position) of the best range for each representation.
        let (mut csv, mut json) = ((0.0_f32, usize::MAX), (0.0_f32, usize::MAX));
        for (position, range) in accept.split(',').enumerate() {
            let mut parts = range.split(';').map(str::trim);
            let media = parts.next().unwrap_or("").to_ascii_lowercase();
            let q = parts.find_map(|p| p.strip_prefix("q=")).map_or(Some(1.0), |q| q.trim().parse::<f32>().ok());
            let Some(q) = q else { continue };
            let best = match media.as_str() {
                "text/csv" => &mut csv,
                "application/json" | "application/*" | "*/*" => &mut json,
                _ => continue,
            };
            if q > best.0 {
                *best = (q, position);
            }
        }
        if csv.0 > 0.0 && (csv.0 > json.0 || (csv.0 == json.0 && csv.1 < json.1)) {
            return Ok(ListFormat::Csv);
        }
        Ok(ListFormat::Json)
    }
}

/// Appends one CSV record (RFC 4180: quoted only when needed, quotes doubled, `CRLF` ended) to `out`.
///
/// ```
/// let mut out = String::new();
/// viewset_core::pagination::write_csv_record(&mut out, ["a", "b,c", "say \"hi\"", "two\nlines"]);
/// assert_eq!(out, "a,\"b,c\",\"say \"\"hi\"\"\",\"two\nlines\"\r\n");
/// ```
pub fn write_csv_record<'a>(out: &mut String, fields: impl IntoIterator<Item = &'a str>) {
    for (i, field) in fields.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if field.contains([',', '"', '\r', '\n']) {
            out.push('"');
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(field);
        }
    }
    out.push_str("\r\n");
}

/// What a CSV text cell that a spreadsheet would run as a formula becomes.
///
/// ```
/// use viewset_core::pagination::Formulas;
/// assert_eq!(Formulas::Neutralised.text("=HYPERLINK(\"http://x\")"), "'=HYPERLINK(\"http://x\")");
/// assert_eq!(Formulas::Neutralised.text("-1+2"), "'-1+2");
/// assert_eq!(Formulas::Neutralised.text("plain"), "plain");
/// assert_eq!(Formulas::Kept.text("=1+2"), "=1+2");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Formulas {
    /// A cell starting with `=`, `+`, `-`, `@`, tab or carriage return gets a `'` in front (the default).
    Neutralised,
    /// Cells are written as they are (`#[viewset(csv_keep_formulas)]`).
    Kept,
}

impl Formulas {
    /// The characters that start a formula in common spreadsheets.
    pub const TRIGGERS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

    /// What a ViewSet with `config` writes.
    pub const fn of(config: &Config) -> Formulas {
        if config.csv_keep_formulas { Formulas::Kept } else { Formulas::Neutralised }
    }

    /// `text` as a cell of this policy.
    pub fn text(self, text: &str) -> String {
        match self {
            Formulas::Neutralised if text.starts_with(Formulas::TRIGGERS) => format!("'{text}"),
            _ => text.to_string(),
        }
    }
}

/// The fields of `E` whose JSON is a number written as a string (decimal columns): their cells are numbers, never
/// formulas.
pub(crate) fn decimal_fields<E: EntityTrait>() -> Vec<&'static str> {
    // A loop, not an iterator chain: adapters over closures are compiled again for every entity.
    let mut fields = Vec::new();
    for column in E::Column::iter() {
        if matches!(column.def().get_column_type(), ColumnType::Decimal(_) | ColumnType::Money(_)) {
            fields.push(field_name::<E>(column));
        }
    }
    fields
}

/// Whether `text` is a plain decimal number (`-9.99`): what a decimal column's JSON string holds.
fn is_decimal_text(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    !(whole.is_empty() && fraction.is_empty()) && (whole.bytes().chain(fraction.bytes())).all(|b| b.is_ascii_digit())
}

fn cell(value: Option<&Value>, formulas: Formulas, decimal: bool) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) if decimal && is_decimal_text(s) => s.clone(),
        Some(Value::String(s)) => formulas.text(s),
        Some(other) => other.to_string(),
    }
}

/// The CSV of a JSON list page (`{"results": [...]}`, or a bare array): the header is the first record's keys
/// (`empty_header` when the page is empty), each row the values under those keys, text cells as `formulas` says.
///
/// ```
/// use viewset_core::pagination::{Formulas, csv_of_page};
/// let page = br#"{"count": 1, "results": [{"id": 1, "title": "a, b", "rating": null, "note": "=1+1"}]}"#;
/// let csv = csv_of_page(page, &["id"], Formulas::Neutralised).unwrap();
/// assert_eq!(csv, "id,title,rating,note\r\n1,\"a, b\",,'=1+1\r\n");
/// assert_eq!(csv_of_page(br#"{"results": []}"#, &["id", "title"], Formulas::Kept).unwrap(), "id,title\r\n");
/// ```
pub fn csv_of_page(page: &[u8], empty_header: &[&str], formulas: Formulas) -> Result<String, ApiError> {
    csv_of(page, empty_header, formulas, &[])
}

/// [`csv_of_page`] with the `decimals` fields written as numbers.
fn csv_of(page: &[u8], empty_header: &[&str], formulas: Formulas, decimals: &[&str]) -> Result<String, ApiError> {
    let page: Value = serde_json::from_slice(page)
        .map_err(|e| ApiError::Database(sea_orm::DbErr::Custom(format!("read the page for CSV: {e}"))))?;
    let records = match &page {
        Value::Array(records) => records,
        Value::Object(map) => match map.get("results") {
            Some(Value::Array(records)) => records,
            _ => return Err(no_records()),
        },
        _ => return Err(no_records()),
    };
    let header: Vec<String> = match records.first() {
        Some(Value::Object(first)) => first.keys().cloned().collect(),
        Some(_) => return Err(no_records()),
        None => empty_header.iter().map(|s| s.to_string()).collect(),
    };
    let mut out = String::with_capacity(64 * (records.len() + 1));
    write_csv_record(&mut out, header.iter().map(String::as_str));
    write_rows(&mut out, &header, records, formulas, decimals);
    Ok(out)
}

/// One CSV row per record: the values under `keys`, in that order; those of `decimals` fields as numbers.
pub(crate) fn write_rows(out: &mut String, keys: &[String], records: &[Value], formulas: Formulas, decimals: &[&str]) {
    let decimal: Vec<bool> = keys.iter().map(|key| decimals.contains(&key.as_str())).collect();
    for record in records {
        let cells: Vec<String> =
            keys.iter().zip(&decimal).map(|(key, decimal)| cell(record.get(key), formulas, *decimal)).collect();
        write_csv_record(out, cells.iter().map(String::as_str));
    }
}

fn no_records() -> ApiError {
    ApiError::input(["query", "format"], "This list has no records to write as CSV", "csv_unavailable")
}

/// The list `response` as CSV when it is a successful JSON page; any other response (an error) as it is.
pub(crate) async fn into_csv(
    response: Response,
    empty_header: &[&str],
    formulas: Formulas,
    decimals: &[&str],
) -> Result<Response, ApiError> {
    let json = response.headers().get(CONTENT_TYPE).is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if response.status() != StatusCode::OK || !json {
        return Ok(response);
    }
    let (mut parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_PAGE_BYTES)
        .await
        .map_err(|e| ApiError::Database(sea_orm::DbErr::Custom(format!("read the page for CSV: {e}"))))?;
    let csv = csv_of(&bytes, empty_header, formulas, decimals)?;
    parts.headers.insert(CONTENT_TYPE, HeaderValue::from_static(CSV_CONTENT_TYPE));
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    parts.headers.remove(axum::http::header::ETAG);
    Ok((parts, csv).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &str) -> ListFormat {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT, HeaderValue::from_str(value).unwrap());
        ListFormat::from_request(&QueryParams::parse(None), &headers).unwrap()
    }

    #[test]
    fn negotiates_by_accept_and_format() {
        assert_eq!(accept("*/*"), ListFormat::Json);
        assert_eq!(accept("text/html"), ListFormat::Json);
        assert_eq!(accept("text/csv;q=0.9, application/json"), ListFormat::Json);
        assert_eq!(accept("text/csv, */*;q=0.8"), ListFormat::Csv);
        assert_eq!(accept("text/csv, */*"), ListFormat::Csv);
        assert_eq!(accept("application/json, text/csv"), ListFormat::Json);
        assert_eq!(accept("text/csv; q=0, */*"), ListFormat::Json);
        assert_eq!(accept("TEXT/CSV"), ListFormat::Csv);
    }

    #[test]
    fn quotes_only_what_needs_it() {
        let page = br#"[{"a": "x\r\ny", "b": true, "c": {"k": 1}, "d": "plain text"}]"#;
        let csv = csv_of_page(page, &[], Formulas::Neutralised).unwrap();
        assert_eq!(csv, "a,b,c,d\r\n\"x\r\ny\",true,\"{\"\"k\"\":1}\",plain text\r\n");
        assert!(csv_of_page(br#"{"items": []}"#, &[], Formulas::Kept).is_err());
    }

    #[test]
    fn neutralises_text_that_starts_a_formula_but_not_numbers() {
        let page =
            br#"[{"a": "=SUM(A1)", "b": "+1", "c": "-2", "d": "@x", "e": "\tx", "f": "\rx", "g": -3, "h": "a=b"}]"#;
        let csv = csv_of_page(page, &[], Formulas::Neutralised).unwrap();
        assert_eq!(csv, "a,b,c,d,e,f,g,h\r\n'=SUM(A1),'+1,'-2,'@x,'\tx,\"'\rx\",-3,a=b\r\n");
        let kept = csv_of_page(page, &[], Formulas::Kept).unwrap();
        assert_eq!(kept, "a,b,c,d,e,f,g,h\r\n=SUM(A1),+1,-2,@x,\tx,\"\rx\",-3,a=b\r\n");
    }

    #[test]
    fn decimal_fields_are_numbers_not_formulas() {
        let page = br#"[{"price": "-9.99", "note": "-9.99", "rate": "-1+1", "low": "+.5"}]"#;
        let csv = csv_of(page, &[], Formulas::Neutralised, &["price", "rate", "low"]).unwrap();
        assert_eq!(csv, "price,note,rate,low\r\n-9.99,'-9.99,'-1+1,+.5\r\n");
        assert!(!is_decimal_text("-") && !is_decimal_text(".") && !is_decimal_text("1e5") && is_decimal_text("7."));
    }
}
