//! sqlmap's payloads as unit tests (issue 14): every line of `tests/fixtures/sqlmap_payloads.txt` (captured from a
//! `.ci/sqlmap.sh` sweep and deduplicated) is sent to each kind of list parameter, on SQLite and PostgreSQL.
//!
//! Each answer must be a 200 or a JSON 4xx (never a 5xx or a dropped connection), and a 200 may return only rows
//! the payload, read as plain data, selects: the oracle of each kind applies the lookup in Rust to the rows read
//! from the database (a boolean-based `' OR '1'='1` on `title` selects nothing, so it must return nothing). After
//! the run every table and row is as before: no payload wrote anything.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use blog::entities::{author, post};
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use reqwest::StatusCode;
use sea_orm::{ConnectionTrait, DbBackend, EntityTrait, QueryOrder, Statement};
use serde_json::Value;
use viewset_tests::harness::{TestApp, ids};
use viewset_tests::on_every_database;

on_every_database!(TestApp::seeded_query_app => sqlmap_payloads_select_nothing_and_write_nothing);

/// The captured payloads; `{v}` stands for the parameter's harmless value.
fn payloads() -> Vec<&'static str> {
    include_str!("../../fixtures/sqlmap_payloads.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with("# "))
        .collect()
}

/// The ids a 200 may return for a value, or `None` when the value is not one the parameter accepts (a 4xx).
type Oracle = fn(&[post::Model], &str) -> Option<BTreeSet<i32>>;

/// One kind of list parameter: where it is, a harmless value, and what a value may select.
struct Kind {
    path: &'static str,
    param: &'static str,
    harmless: String,
    oracle: Oracle,
}

fn select(rows: &[post::Model], keep: impl Fn(&post::Model) -> bool) -> Option<BTreeSet<i32>> {
    Some(rows.iter().filter(|r| keep(r)).map(|r| r.id).collect())
}

fn every_row(rows: &[post::Model], _: &str) -> Option<BTreeSet<i32>> {
    select(rows, |_| true)
}

/// `null`, `none` or empty: IS NULL, which no row of a NOT NULL column matches.
fn null_word(value: &str) -> bool {
    matches!(value.trim().to_ascii_lowercase().as_str(), "null" | "none" | "")
}

fn boolean(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" => Some(true),
        "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

fn instant(value: &str) -> Option<DateTime<Utc>> {
    let text = value.trim();
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .ok()
        .or_else(|| {
            ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
                .iter()
                .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok())
                .map(|t| t.and_utc())
        })
        .or_else(|| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0)).map(|t| t.and_utc())
        })
}

/// `ILIKE` as the search lookup uses it: `%` and `_` are wildcards, everything else (backslash too) is itself,
/// case folded (Unicode folding, which selects at least what either database's folding selects).
fn ilike(text: &str, needle: &str) -> bool {
    fn matches(t: &[char], p: &[char]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some(('%', rest)) => (0..=t.len()).any(|i| matches(&t[i..], rest)),
            Some(('_', rest)) => !t.is_empty() && matches(&t[1..], rest),
            Some((c, rest)) => t.first() == Some(c) && matches(&t[1..], rest),
        }
    }
    let fold = |s: &str| s.to_lowercase().chars().collect::<Vec<char>>();
    let pattern: Vec<char> = ['%'].into_iter().chain(fold(needle)).chain(['%']).collect();
    matches(&fold(text), &pattern)
}

fn kinds(rows: &[post::Model], cursor: String) -> Vec<Kind> {
    let kind = |path, param, harmless: &str, oracle| Kind { path, param, harmless: harmless.to_string(), oracle };
    let first_title = rows[0].title.clone();
    let both_titles = format!("{},{}", rows[0].title, rows[1].title);
    let tomorrow = (Utc::now() + chrono::Duration::days(1)).to_rfc3339();
    vec![
        kind("/api/posts/", "title", &first_title, |rows, v| select(rows, |r| r.title == v)),
        kind("/api/posts/", "title__icontains", "engine", |rows, v| {
            select(rows, |r| r.title.to_lowercase().contains(&v.to_lowercase()))
        }),
        kind("/api/posts/", "views", "7", |rows, v| match v.trim().parse::<i32>() {
            Ok(n) => select(rows, |r| r.views == n),
            Err(_) => null_word(v).then(BTreeSet::new),
        }),
        kind("/api/posts/", "views__gte", "100", |rows, v| {
            let bound = v.trim().parse::<f64>().ok().filter(|b| b.is_finite())?;
            select(rows, |r| f64::from(r.views) >= bound)
        }),
        kind("/api/posts/", "created_at__lt", &tomorrow, |rows, v| {
            let bound = instant(v)?;
            select(rows, |r| r.created_at < bound)
        }),
        kind("/api/posts/", "published", "true", |rows, v| match boolean(v) {
            Some(b) => select(rows, |r| r.published == b),
            None => null_word(v).then(BTreeSet::new),
        }),
        kind("/api/posts/", "author_id__in", "1,2", |rows, v| {
            let items: Vec<&str> = v.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
            let wanted = items.iter().map(|s| s.parse::<i32>().ok()).collect::<Option<Vec<i32>>>()?;
            select(rows, |r| wanted.contains(&r.author_id))
        }),
        kind("/api/posts/", "title__in", &both_titles, |rows, v| {
            select(rows, |r| v.split(',').any(|item| item == r.title || item.trim() == r.title))
        }),
        kind("/api/posts/", "search", "engine", |rows, v| select(rows, |r| ilike(&r.title, v) || ilike(&r.body, v))),
        kind("/api/posts/", "ordering", "-views", every_row),
        kind("/api/posts/", "limit", "2", every_row),
        kind("/api/posts/", "offset", "1", every_row),
        kind("/paged/posts/", "page", "1", every_row),
        kind("/cursor/posts/", "cursor", &cursor, every_row),
    ]
}

/// Every row of every table and the table names: what no payload may change.
async fn snapshot(app: &TestApp) -> (Vec<post::Model>, Vec<author::Model>, Vec<String>) {
    let posts = post::Entity::find().order_by_asc(post::Column::Id).all(&app.db).await.expect("read posts");
    let authors = author::Entity::find().order_by_asc(author::Column::Id).all(&app.db).await.expect("read authors");
    let backend = app.db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
        DbBackend::MySql => {
            "SELECT CAST(table_name AS CHAR) AS name FROM information_schema.tables \
             WHERE table_schema = DATABASE() ORDER BY 1"
        }
        _ => "SELECT name FROM sqlite_master ORDER BY 1",
    };
    let tables = app.db.query_all_raw(Statement::from_string(backend, sql)).await.expect("list tables");
    let tables = tables.iter().map(|row| row.try_get::<String>("", "name").expect("a table name")).collect();
    (posts, authors, tables)
}

fn encode(value: &str) -> String {
    form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

async fn sqlmap_payloads_select_nothing_and_write_nothing(app: TestApp) {
    let before = snapshot(&app).await;
    let rows = &before.0;
    assert!(rows.len() >= 3, "the blog's seed");
    let (status, first) = app.get("/cursor/posts/?limit=1").await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let next = first["next"].as_str().expect("a next link");
    let cursor = form_urlencoded::parse(next.split_once('?').expect("a query").1.as_bytes())
        .find(|(k, _)| k == "cursor")
        .expect("a cursor")
        .1
        .into_owned();
    let payloads = payloads();
    assert!(payloads.len() >= 100, "the fixture holds sqlmap's payloads");

    let kinds = kinds(rows, cursor);
    // The oracle of a text filter reads the classic boolean payload as data: it selects nothing.
    assert_eq!((kinds[0].oracle)(rows, "x' OR '1'='1"), Some(BTreeSet::new()));
    let (mut sent, mut ok, mut slowest) = (0, 0, (Duration::ZERO, String::new()));
    for kind in kinds {
        // The harmless value selects rows, so a payload that widened the filter would show.
        let harmless = (kind.oracle)(rows, &kind.harmless).expect("the harmless value is accepted");
        let (status, body) = app.get(&format!("{}?{}={}", kind.path, kind.param, encode(&kind.harmless))).await;
        assert_eq!(status, StatusCode::OK, "{} with its harmless value: {body}", kind.param);
        let returned = ids(&body);
        assert!(!returned.is_empty(), "{} with its harmless value returns rows: {body}", kind.param);
        assert!(returned.iter().all(|id| harmless.contains(&(*id as i32))), "{}: {body}", kind.param);
        for payload in &payloads {
            let value = match payload.strip_prefix("{v}") {
                Some(rest) => format!("{}{rest}", kind.harmless),
                None => payload.to_string(),
            };
            let path = format!("{}?{}={}", kind.path, kind.param, encode(&value));
            let started = Instant::now();
            // `get` asserts the answer arrives and is JSON (a dropped connection or a non-JSON body panics).
            let (status, body) = app.get(&path).await;
            if started.elapsed() > slowest.0 {
                slowest = (started.elapsed(), format!("{}={value}", kind.param));
            }
            sent += 1;
            let shown = format!("{}={value:?}", kind.param);
            assert!(status == StatusCode::OK || status.is_client_error(), "{shown}: {status} {body}");
            if status != StatusCode::OK {
                assert!(body.is_object(), "{shown}: a 4xx is a JSON object: {body}");
                continue;
            }
            ok += 1;
            let Some(allowed) = (kind.oracle)(rows, &value) else {
                panic!("{shown}: 200 for a value the parameter does not accept: {body}");
            };
            let returned = ids(&body);
            assert!(
                returned.iter().all(|id| allowed.contains(&(*id as i32))),
                "{shown}: returned {returned:?}, the value as data selects {allowed:?}"
            );
            if let Some(count) = body.get("count").and_then(Value::as_u64) {
                assert!(count as usize <= allowed.len(), "{shown}: count {count}, the value selects {allowed:?}");
            }
        }
    }
    assert_eq!(snapshot(&app).await, before, "a payload changed a row or a table");
    eprintln!(
        "{:?}: {sent} requests ({} payloads), {ok} answered 200, the rest a JSON 4xx; slowest {:?} ({})",
        app.db.get_database_backend(),
        payloads.len(),
        slowest.0,
        slowest.1.chars().take(120).collect::<String>()
    );
}
