//! Target `query_string`: a list request's query string, raw or structured, through the real routes of the three
//! paginators, on SQLite and PostgreSQL statements.
//!
//! Selector bits: 0 backend; 1 small [`QueryLimits`](viewset_core::query::QueryLimits); 2–3 the ViewSet
//! (`/items/` limit/offset, `/paged/items/`, `/cursor/items/`, `/items/aggregate`); 4–5 the caller (anonymous, user,
//! staff, anonymous); 6 the database holds two rows; 7 the rest is structured (names and values from the pools of
//! [`crate::input`]) rather than the raw query string.

use arbitrary::Unstructured;
use axum::http::StatusCode;

use crate::app::{Call, send};
use crate::input::{Selector, encode_query, principal, structured_query};
use crate::proxy::sample;

/// The list prefixes, by selector bits 2–3 (the fourth: the aggregate of `/items/`, over the list's rows).
pub const LISTS: [&str; 4] = ["/items/", "/paged/items/", "/cursor/items/", "/items/aggregate"];

/// Runs one input.
pub fn run(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    let selector = Selector(first);
    let query = if selector.bit(7) {
        match structured_query(&mut Unstructured::new(rest)) {
            Ok(query) => query,
            Err(_) => return,
        }
    } else {
        encode_query(rest)
    };
    let list = LISTS[selector.two(2)];
    let caller = principal(selector.two(4));
    let staff = caller.is_staff;
    let mut call = Call::get(selector.backend(), caller, format!("{list}?{query}"));
    call.small_limits = selector.bit(1);
    if selector.bit(6) {
        let mut second = sample();
        (second.id, second.rating, second.title) = (2, None, "Second".into());
        call.rows = vec![sample(), second];
    }
    let answer = send(&call);
    if list.ends_with("aggregate") {
        return check_aggregate(&call.uri, answer.status, &answer.body);
    }
    match answer.status {
        StatusCode::OK => match answer.body.get("csv").and_then(serde_json::Value::as_str) {
            Some(csv) => check_csv(list, csv, staff, &named_fields(&query)),
            None => {
                let counted = form_urlencoded::parse(query.as_bytes()).any(|(key, _)| key == "count");
                check_page(list, &answer.body, staff, &named_fields(&query), counted);
                check_count(&answer.body, call.rows.len());
            }
        },
        // A page past the last one (the first always exists).
        StatusCode::NOT_FOUND => assert_eq!(list, "/paged/items/", "{}: {}", call.uri, answer.body),
        // Within the default transport limits only a structured input can pass 8 KiB.
        StatusCode::URI_TOO_LONG | StatusCode::UNPROCESSABLE_ENTITY => {}
        other => panic!("{} answered {other}: {}", call.uri, answer.body),
    }
}

/// The names of a `fields` parameter (sparse fieldsets), if the query has one.
fn named_fields(query: &str) -> Option<Vec<String>> {
    form_urlencoded::parse(query.as_bytes())
        .find(|(key, _)| key == "fields")
        .map(|(_, value)| value.split(',').map(str::to_string).collect())
}

/// The paginator's envelope; where `secret` is staff-only (all but `/paged/items/`), only staff see it, and with
/// `fields` only when named; every item has exactly the named fields.
/// A CSV page: its header names only visible fields (`secret` for staff, on `/paged/items/` for everyone) and, with
/// `?fields=`, only the named ones.
fn check_csv(list: &str, csv: &str, staff: bool, named: &Option<Vec<String>>) {
    let header: Vec<&str> = csv.lines().next().unwrap_or_default().split(',').collect();
    let named_secret = named.as_ref().is_none_or(|n| n.iter().any(|f| f == "secret"));
    let visible = (staff || list == "/paged/items/") && named_secret;
    assert_eq!(header.contains(&"secret"), visible, "`secret` for staff only: {header:?}");
    if let Some(names) = named {
        assert!(header.iter().all(|h| names.iter().any(|n| n == h)), "only the named fields: {header:?} for {names:?}");
    }
}

/// An exact count (no `count_mode`, or `exact`) is the number of rows the database holds, however it was counted
/// (its own statement, or `COUNT(*) OVER ()` in the page's).
fn check_count(body: &serde_json::Value, rows: usize) {
    let exact = body.get("count_mode").is_none_or(|mode| mode == "exact");
    if let (true, Some(count)) = (exact, body.get("count").and_then(serde_json::Value::as_u64)) {
        assert_eq!(count, rows as u64, "an exact count of {rows} rows: {body}");
    }
}

fn check_page(list: &str, body: &serde_json::Value, staff: bool, named: &Option<Vec<String>>, counted: bool) {
    let fields: &[&str] = match list {
        "/paged/items/" => &["count", "page", "page_size", "total_pages", "results"],
        "/cursor/items/" => &["next", "previous", "results"],
        _ => &["count", "results", "limit", "offset"],
    };
    let keys: Vec<&str> = body.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
    // `?count=` adds `count_mode` to the envelopes that count.
    let moded = usize::from(counted && list != "/cursor/items/");
    assert!(fields.iter().all(|f| keys.contains(f)) && keys.len() == fields.len() + moded, "{list}: {body}");
    for item in body["results"].as_array().unwrap_or_else(|| panic!("{body}")) {
        let named_secret = named.as_ref().is_none_or(|n| n.iter().any(|f| f == "secret"));
        let visible = (staff || list == "/paged/items/") && named_secret;
        assert_eq!(item.get("secret").is_some(), visible, "`secret` for staff only: {item}");
        if let (Some(names), Some(item)) = (named, item.as_object()) {
            assert!(item.keys().all(|k| names.contains(k)), "only the named fields: {item:?} for {names:?}");
        }
    }
}

/// An aggregate's answer: its groups (at most `max_groups`, 20) and `truncated`, or a 422 (a refused parameter).
fn check_aggregate(uri: &str, status: StatusCode, body: &serde_json::Value) {
    match status {
        StatusCode::OK => {
            let groups = body["groups"].as_array().unwrap_or_else(|| panic!("{uri}: no groups in {body}"));
            assert!(groups.len() <= 20, "{uri}: more groups than max_groups: {body}");
            assert!(body["truncated"].is_boolean(), "{uri}: {body}");
        }
        StatusCode::URI_TOO_LONG | StatusCode::UNPROCESSABLE_ENTITY => {}
        other => panic!("{uri} answered {other}: {body}"),
    }
}
