//! Target `cursor`: `?cursor=` on the keyset paginator: unsigned strings (the signature check), signed arbitrary
//! payloads (the token's parsing), and signed structured tokens whose values meet every column type of a fuzzed
//! ordering (the keyset condition), plus tokens by key (the boundary row read back), over fuzzed rows. Every `next`/`previous` link a page answers with is followed
//! and must be accepted: a cursor the server made for a row is never refused.
//!
//! Selector bits: 0 backend; 1–3 the ordering ([`ORDERINGS`]); 4 staff (may order by the staff-only `secret`)
//! or anonymous; 5–6 the mode: the rest as the raw cursor (0), the rest signed as the payload (1), a structured
//! token and rows (2, 3); 7 `limit=1`.

use std::cell::RefCell;
use std::collections::HashMap;

use arbitrary::{Result, Unstructured};
use axum::http::StatusCode;
use base64::Engine;
use chrono::{NaiveDate, NaiveTime};

use crate::app::{Answer, Call, send};
use crate::cursor_token::{payload, sign};
use crate::input::{Selector, VALUES, encode_query, json_value, pick, principal};
use crate::model::item;
use crate::proxy::sample;

/// The `ordering` parameters, by selector bits 1–3: none (the default `-id`), one column, nullable columns, several
/// types, the renamed and the staff-only column.
pub const ORDERINGS: [&str; 8] = [
    "",
    "-views",
    "rating",
    "title,-born",
    "-seen,opens,ratio",
    "big,-small,published",
    "-created_at,label",
    "-secret,id",
];

/// Runs one input.
pub fn run(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    let selector = Selector(first);
    let ordering = ORDERINGS[usize::from(first >> 1 & 7)];
    let caller = principal(if selector.bit(4) { 2 } else { 0 });
    let limit = if selector.bit(7) { "&limit=1" } else { "" };
    let mut call = Call::get(selector.backend(), caller, String::new());
    let mut u = Unstructured::new(rest);
    let cursor = match selector.two(5) {
        0 => encode_query(rest),
        1 => sign(rest),
        _ => match structured(&mut u, &call, ordering) {
            Ok((cursor, rows)) => {
                call.rows = rows;
                cursor
            }
            Err(_) => return,
        },
    };
    if selector.two(5) < 2 {
        call.rows = fixed_rows();
    }
    call.uri = format!("/cursor/items/?ordering={ordering}{limit}&cursor={cursor}");
    let answer = send(&call);
    check(&call, &answer);
    if answer.status == StatusCode::OK {
        for link in ["next", "previous"] {
            if let Some(uri) = answer.body[link].as_str() {
                let follow = Call { uri: uri.to_string(), ..call.clone() };
                let again = send(&follow);
                // A cursor by key reads its row back: with no rows at all, the proxy has none to give, which is
                // the 422 a deleted boundary row gets from a real database.
                let gone = again.body["detail"][0]["msg"].as_str().is_some_and(|m| m.contains("no longer exists"));
                let row_gone = call.rows.is_empty() && again.status == StatusCode::UNPROCESSABLE_ENTITY && gone;
                // A request within a cursor's length of the URI limit keeps its own parameters in the link, which
                // then carries the shortest cursor (by key) and may still be over the limit: its 414, only then.
                let limit = viewset_core::limits::Limits::default().max_uri_bytes;
                let over = again.status == StatusCode::URI_TOO_LONG && uri.len() > limit && shortest_cursor(uri);
                assert!(
                    again.status == StatusCode::OK || row_gone || over,
                    "the server's own `{link}` {uri} was refused ({}): {}",
                    again.status,
                    again.body
                );
            }
        }
    }
}

fn check(call: &Call, answer: &Answer) {
    match answer.status {
        StatusCode::OK => assert!(answer.body["results"].is_array(), "{}", answer.body),
        StatusCode::UNPROCESSABLE_ENTITY => {
            let loc = &answer.body["detail"][0]["loc"];
            assert_eq!(loc[0], "query", "{}: {}", call.uri, answer.body);
        }
        // A fuzzed cursor can make the URI longer than the transport limit: its JSON 414, and only then.
        StatusCode::URI_TOO_LONG => {
            let limit = viewset_core::limits::Limits::default().max_uri_bytes;
            assert!(call.uri.len() > limit, "{} ({} bytes) answered 414: {}", call.uri, call.uri.len(), answer.body);
            assert_eq!(answer.body["code"], "uri_too_long", "{}", answer.body);
        }
        other => panic!("{} answered {other}: {}", call.uri, answer.body),
    }
}

/// Whether the link's cursor is in its shortest form: by key, or a single value.
fn shortest_cursor(uri: &str) -> bool {
    let Some((_, cursor)) = uri.rsplit_once("cursor=") else { return false };
    let payload = cursor.split('.').next().unwrap_or_default();
    let Ok(bytes) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload) else { return false };
    let Ok(token) = serde_json::from_slice::<serde_json::Value>(&bytes) else { return false };
    token["k"] == true || token["v"].as_array().is_some_and(|v| v.len() <= 1)
}

/// Three rows, so a first page of two has a `next` link.
fn fixed_rows() -> Vec<item::Model> {
    (1..=3)
        .map(|id| {
            let mut row = sample();
            (row.id, row.views, row.rating) = (id, 10 * id, (id != 2).then_some(f64::from(id) / 2.0));
            row
        })
        .collect()
}

/// A signed token for `ordering` (its values typed like a row's, or any JSON; its signature mostly the real one)
/// and up to four rows.
fn structured(u: &mut Unstructured, call: &Call, ordering: &str) -> Result<(String, Vec<item::Model>)> {
    let rows = (0..u.int_in_range(0..=4)?).map(|i| row(u, i + 1)).collect::<Result<Vec<_>>>()?;
    let signature = real_signature(call, ordering);
    let terms = signature.split(',').count();
    let count = match u.int_in_range(0..=7)? {
        0 => terms.saturating_sub(1),
        1 => terms + 1,
        _ => terms,
    };
    let template = row(u, 1)?;
    let template = serde_json::to_value(&template).expect("a model serializes");
    let mut values = Vec::with_capacity(count);
    for term in signature.split(',').chain(std::iter::repeat("id")).take(count) {
        let column = term.trim_start_matches('-');
        let field = if column == "label_text" { "label" } else { column };
        values.push(if u.ratio(3, 4)? { template[field].clone() } else { json_value(u, 1)? });
    }
    let ordering_text = if u.ratio(1, 8)? { pick(u, VALUES)?.to_string() } else { signature };
    // A cursor by key carries the primary key alone (the last value); the boundary row is read back.
    let by_key = u.ratio(1, 4)?;
    if by_key && u.ratio(7, 8)? {
        values.drain(..values.len().saturating_sub(1));
    }
    Ok((sign(&payload(&values, u.arbitrary()?, &ordering_text, by_key)), rows))
}

/// The ordering signature the server binds its cursors to for this request, read off a cursor it made (once per
/// ordering and caller).
fn real_signature(call: &Call, ordering: &str) -> String {
    thread_local! {
        static SEEN: RefCell<HashMap<(String, bool), String>> = RefCell::new(HashMap::new());
    }
    let key = (ordering.to_string(), call.principal.is_staff);
    if let Some(found) = SEEN.with(|seen| seen.borrow().get(&key).cloned()) {
        return found;
    }
    let first = Call { uri: format!("/cursor/items/?ordering={ordering}&limit=1"), rows: fixed_rows(), ..call.clone() };
    let answer = send(&first);
    let next = answer.body["next"].as_str().unwrap_or_else(|| panic!("no next link: {}", answer.body));
    let cursor = form_urlencoded::parse(next.split_once('?').expect("a query").1.as_bytes())
        .find(|(k, _)| k == "cursor")
        .expect("a cursor")
        .1;
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor.split_once('.').expect("payload.tag").0)
        .expect("base64url");
    let token: serde_json::Value = serde_json::from_slice(&payload).expect("a JSON payload");
    let signature = token["o"].as_str().expect("the ordering").to_string();
    SEEN.with(|seen| seen.borrow_mut().insert(key, signature.clone()));
    signature
}

/// A row a database can hold and the API can have written: text without NUL, finite floats, years 1 to 9999.
fn row(u: &mut Unstructured, id: i32) -> Result<item::Model> {
    let text = |u: &mut Unstructured| -> Result<String> {
        let s = if u.arbitrary()? { pick(u, VALUES)?.to_string() } else { u.arbitrary::<String>()? };
        Ok(s.replace('\0', ""))
    };
    let day = |u: &mut Unstructured| -> Result<NaiveDate> {
        let days = u.int_in_range(0..=3_652_058)?; // 0001-01-01 ..= 9999-12-31
        Ok(NaiveDate::from_num_days_from_ce_opt(days + 1).expect("in chrono's range"))
    };
    let time = |u: &mut Unstructured| -> Result<NaiveTime> {
        let (secs, nanos) = (u.int_in_range(0..=86_399)?, u.int_in_range(0..=999_999_999)?);
        Ok(NaiveTime::from_num_seconds_from_midnight_opt(secs, nanos).expect("a time of day"))
    };
    let finite = |f: f64| f.is_finite().then_some(f);
    Ok(item::Model {
        id,
        title: text(u)?,
        body: text(u)?,
        views: u.arbitrary()?,
        small: u.arbitrary()?,
        big: u.arbitrary()?,
        published: u.arbitrary()?,
        rating: if u.arbitrary()? { finite(u.arbitrary()?) } else { None },
        ratio: Some(u.arbitrary::<f32>()?).filter(|f| f.is_finite()).unwrap_or(0.5),
        born: if u.arbitrary()? { Some(day(u)?) } else { None },
        opens: if u.arbitrary()? { Some(time(u)?) } else { None },
        seen: if u.arbitrary()? { Some(day(u)?.and_time(time(u)?)) } else { None },
        created_at: day(u)?.and_time(time(u)?).and_utc(),
        secret: if u.arbitrary()? { Some(text(u)?) } else { None },
        label: if u.arbitrary()? { Some(text(u)?) } else { None },
        meta: if u.arbitrary()? { Some(json_value(u, 1)?) } else { None },
    })
}
