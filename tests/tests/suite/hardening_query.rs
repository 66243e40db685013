//! Hostile query input (issue 14 items 1, 2, 4, 5, 9 and 13), over HTTP against the blog on SQLite and PostgreSQL,
//! in the debug build the README's first command runs: every request below once crashed the process, dropped the
//! connection, answered 500 or was silently misread; each must now be a 422 naming the parameter or the limit.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_core::ServiceState;
use viewset_core::query::QueryLimits;
use viewset_tests::harness::{Backend, TestApp, TestDb, ids};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

on_every_database!(TestApp::seeded_query_app =>
    repeated_filter_cannot_overflow_the_stack,
    paging_values_beyond_a_signed_64_bit_integer,
    nul_characters_and_dates_out_of_range,
    database_limits_on_ordering_and_text,
    every_read_parameter_is_given_once,
    parameter_count_and_in_list_caps,
);

on_every_database!(limited => limits_are_configuration);

/// The first `detail` entry's `loc`, `msg` and `type`.
fn first_error(body: &Value) -> (Vec<String>, String, String) {
    let e = &body["detail"][0];
    let loc = e["loc"].as_array().unwrap_or_else(|| panic!("no loc in {body}"));
    (
        loc.iter().map(|v| v.as_str().unwrap().to_string()).collect(),
        e["msg"].as_str().unwrap().to_string(),
        e["type"].as_str().unwrap().to_string(),
    )
}

/// `GET path` is a 422 at `["query", param…]` of `kind` whose message mentions `says`.
async fn refused(app: &TestApp, path: &str, loc: &[&str], kind: &str, says: &str) {
    let (status, body) = app.get(path).await;
    let shown: String = path.chars().take(120).collect();
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{shown}: {body}");
    let (got_loc, msg, got_kind) = first_error(&body);
    assert_eq!(got_loc, loc, "{shown}: {body}");
    assert_eq!(got_kind, kind, "{shown}: {body}");
    assert!(msg.contains(says), "{shown}: `{msg}` should mention `{says}`");
}

fn repeated(pair: &str, times: usize) -> String {
    vec![pair; times].join("&")
}

async fn still_serves(app: &TestApp) {
    let (status, body) = app.get("/api/posts/").await;
    assert_eq!((status, ids(&body)), (StatusCode::OK, vec![3, 2, 1]), "{body}");
}

async fn repeated_filter_cannot_overflow_the_stack(app: TestApp) {
    // Issue 14 item 1: 1,001 copies of one filter overflowed the worker's stack (debug) or SQLite's expression depth.
    let path = format!("/api/posts/?{}", repeated("views=1", 1_001));
    refused(&app, &path, &["query"], "too_many_parameters", "max_query_params").await;
    let path = format!("/api/posts/?{}", repeated("views=1", 999));
    refused(&app, &path, &["query", "views"], "duplicate_parameter", "more than once").await;
    let path = format!("/api/posts/?{}", repeated("views__gte=0", 500));
    refused(&app, &path, &["query", "views__gte"], "duplicate_parameter", "more than once").await;
    // Every distinct filter of the blog at once is one balanced condition, answered normally.
    let mut all = Vec::new();
    for field in ["views", "author_id", "rating"] {
        for lookup in ["gte", "lte", "in", "isnull"] {
            let value = if lookup == "isnull" { "false" } else { "1" };
            all.push(format!("{field}__{lookup}={value}"));
        }
    }
    all.extend(["published=true".into(), "title__icontains=e".into(), "created_at__gt=2000-01-01".into()]);
    let (status, body) = app.get(&format!("/api/posts/?{}", all.join("&"))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    still_serves(&app).await;
}

async fn paging_values_beyond_a_signed_64_bit_integer(app: TestApp) {
    // Issue 14 item 2: these panicked inside sea-query-sqlx and the connection dropped without a reply.
    let max = "9223372036854775807";
    refused(&app, "/api/posts/?offset=9223372036854775808", &["query", "offset"], "less_than_equal", max).await;
    refused(&app, "/api/posts/?offset=18446744073709551616", &["query", "offset"], "less_than_equal", max).await;
    let (status, body) = app.get(&format!("/api/posts/?offset={max}")).await;
    assert_eq!((status, body["results"].as_array().map(Vec::len)), (StatusCode::OK, Some(0)), "{body}");
    refused(&app, "/api/posts/?limit=9223372036854775808", &["query", "limit"], "less_than_equal", "100").await;
    // page × page_size must stay an offset the database binds: (page - 1) × 20 > 2^63 - 1.
    refused(&app, "/paged/posts/?page_size=20&page=500000000000000000", &["query", "page"], "less_than_equal", "")
        .await;
    refused(&app, "/paged/posts/?page_size=20&page=461168601842738791", &["query", "page"], "less_than_equal", "")
        .await;
    refused(&app, "/cursor/posts/?limit=99999999999999999999", &["query", "limit"], "less_than_equal", "").await;
    still_serves(&app).await;
}

async fn nul_characters_and_dates_out_of_range(app: TestApp) {
    // Issue 14 item 4: PostgreSQL answered 500; SQLite stored or matched the NUL. Both now refuse it.
    for param in ["search", "title", "title__contains", "title__icontains", "title__in"] {
        refused(&app, &format!("/api/posts/?{param}=a%00b"), &["query", param], "value_error", "NUL").await;
    }
    for value in ["-262143-01-01", "0000-12-31", "9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00%2B01:00"] {
        let path = format!("/api/posts/?created_at__gt={value}");
        refused(&app, &path, &["query", "created_at__gt"], "value_error", "between 0001-01-01 and 9999-12-31").await;
    }
    let (status, body) = app.get("/api/posts/?created_at__lt=9999-12-31").await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(3)), "{body}");
    let (status, body) = app.get("/api/posts/?created_at__gt=0001-01-01T00:00:00Z").await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(3)), "{body}");

    let nul = r#"{"title": "a\u0000b", "body": "Text", "author_id": 1}"#;
    let (status, body) = app.send(Method::POST, "/api/posts/", BOB, Some(nul)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(first_error(&body).0, ["body", "title"], "{body}");
    assert_eq!(first_error(&body).2, "string_nul", "{body}");
    let (status, body) = app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"body": "\u0000"}"#)).await;
    assert_eq!((status, first_error(&body).0), (StatusCode::UNPROCESSABLE_ENTITY, vec!["body".into(), "body".into()]));
    // An escaped backslash before `u0000` is ordinary text.
    let text = r#"{"title": "a\\u0000b", "body": "Text", "author_id": 1}"#;
    let (status, body) = app.send(Method::POST, "/api/posts/", BOB, Some(text)).await;
    assert_eq!((status, body["title"].as_str()), (StatusCode::CREATED, Some(r"a\u0000b")), "{body}");
}

async fn database_limits_on_ordering_and_text(app: TestApp) {
    // Issue 14 item 5: SQLite answered 500 past its own limits (ORDER BY terms, LIKE pattern length).
    // Past the query limits (within the URI limit): 422 naming the limit.
    let ordering = vec!["views"; 21].join(",");
    let path = format!("/api/posts/?ordering={ordering}");
    refused(&app, &path, &["query", "ordering"], "too_many_terms", "max_ordering_terms").await;
    let path = format!("/api/posts/?search={}", "a".repeat(1_001));
    refused(&app, &path, &["query", "search"], "string_too_long", "max_search_length").await;
    let path = format!("/api/posts/?title__icontains={}", "a".repeat(1_001));
    refused(&app, &path, &["query", "title__icontains"], "string_too_long", "max_search_length").await;
    // The issue's sizes are past the URI limit the blog applies: a JSON 414 naming it, never a 500.
    too_long(&app, &format!("/api/posts/?ordering={}", vec!["views"; 2_001].join(","))).await;
    too_long(&app, &format!("/api/posts/?search={}", "a".repeat(50_000))).await;
    too_long(&app, &format!("/api/posts/?title__icontains={}", "a".repeat(60_000))).await;
    // At the limits: answered, and a repeated ordering column keeps its first direction.
    let ordering = ["-views", "views"].repeat(10).join(",");
    let (status, body) = app.get(&format!("/api/posts/?ordering={ordering}")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let views: Vec<i64> = body["results"].as_array().unwrap().iter().map(|p| p["views"].as_i64().unwrap()).collect();
    assert!(views.windows(2).all(|w| w[0] >= w[1]), "descending: {views:?}");
    let (status, body) = app.get(&format!("/api/posts/?search={}", "é".repeat(1_000))).await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(0)), "{body}");
}

async fn every_read_parameter_is_given_once(app: TestApp) {
    // Issue 14 item 9: `views=1&views=300` was ANDed (0 rows) while a repeated `limit` took the last. One rule now.
    for (query, param) in [
        ("views=1&views=300", "views"),
        ("limit=1&limit=2", "limit"),
        ("offset=0&limit=5&offset=1", "offset"),
        ("search=a&search=b", "search"),
        ("ordering=id&ordering=-id", "ordering"),
        ("title__icontains=a&title__icontains=b", "title__icontains"),
        ("author_id__in=1&author_id__in=2", "author_id__in"),
    ] {
        refused(&app, &format!("/api/posts/?{query}"), &["query", param], "duplicate_parameter", param).await;
    }
    refused(&app, "/paged/posts/?page=1&page=1", &["query", "page"], "duplicate_parameter", "page").await;
    refused(&app, "/cursor/posts/?cursor=&cursor=", &["query", "cursor"], "duplicate_parameter", "cursor").await;
    // Parameters nobody reads stay ignored, repeated or not; different lookups of one field are different filters.
    let (status, body) = app.get("/api/posts/?utm=a&utm=b&views__gte=0&views__lte=1000").await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(3)), "{body}");
}

async fn parameter_count_and_in_list_caps(app: TestApp) {
    // Issue 14 item 13: unbounded parameter counts and `__in` lists cost memory per request.
    let unknown: Vec<String> = (0..1_000).map(|i| format!("x{i}=1")).collect();
    let (status, body) = app.get(&format!("/api/posts/?{}", unknown.join("&"))).await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(3)), "1,000 unknown parameters: {body}");
    let path = format!("/api/posts/?{}&x1000=1", unknown.join("&"));
    refused(&app, &path, &["query"], "too_many_parameters", "max_query_params").await;
    let values: Vec<String> = (1..=1_000).map(|i| i.to_string()).collect();
    let (status, body) = app.get(&format!("/api/posts/?author_id__in={}", values.join(","))).await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(3)), "{body}");
    let path = format!("/api/posts/?author_id__in={},1001", values.join(","));
    refused(&app, &path, &["query", "author_id__in"], "too_many_values", "max_in_values").await;
    // The issue's 32,700 values are past the URI limit the blog applies: a JSON 414 naming it.
    too_long(&app, &format!("/api/posts/?views__in={}", vec!["1"; 32_700].join(","))).await;
}

/// `GET path` is refused by the URI limit (414 `uri_too_long`, naming `max_uri_bytes`).
async fn too_long(app: &TestApp, path: &str) {
    let (status, body) = app.get(path).await;
    assert_eq!(status, StatusCode::URI_TOO_LONG, "{body}");
    assert_eq!(
        (body["code"].as_str(), body["limit"].as_str()),
        (Some("uri_too_long"), Some("max_uri_bytes")),
        "{body}"
    );
}

/// The blog with small limits.
async fn limited(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let limits = QueryLimits::DEFAULT
        .with_max_query_params(4)
        .with_max_in_values(2)
        .with_max_ordering_terms(1)
        .with_max_search_length(3);
    let router = blog::app_with_state(ServiceState::new(db.clone()).with_query_limits(limits));
    TestApp::serve(router, db, database).await
}

async fn limits_are_configuration(app: TestApp) {
    let (status, body) = app.get("/api/posts/?a=1&b=2&c=3&d=4").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    refused(&app, "/api/posts/?a=1&b=2&c=3&d=4&e=5", &["query"], "too_many_parameters", "At most 4").await;
    refused(&app, "/api/posts/?views__in=1,2,3", &["query", "views__in"], "too_many_values", "at most 2").await;
    refused(&app, "/api/posts/?ordering=id,views", &["query", "ordering"], "too_many_terms", "at most 1").await;
    refused(&app, "/api/posts/?search=abcd", &["query", "search"], "string_too_long", "at most 3").await;
    refused(&app, "/api/posts/?title__contains=abcd", &["query", "title__contains"], "string_too_long", "at most 3")
        .await;
    let (status, body) = app.get("/api/posts/?views__in=1,2&ordering=-id&search=a").await;
    assert_eq!(status, StatusCode::OK, "{body}");
}
