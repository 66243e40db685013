//! CSV lists over HTTP on SQLite and PostgreSQL: `Accept: text/csv` and `?format=csv` give the JSON page's records
//! (same rows, fields, order and policy) as RFC 4180 CSV; hidden fields stay hidden; `?fields=` applies; JSON
//! stays the default for `*/*`, no `Accept` and other types; a bad `format` is a 422.

use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use viewset_tests::harness::{TestApp, ids};
use viewset_tests::identities::blog::{ALICE, BOB};
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog => csv_is_the_json_page, hidden_fields_stay_hidden, negotiation_and_errors);

/// Status, `Content-Type` and body of `GET path` with these headers.
async fn fetch(app: &TestApp, path: &str, token: Option<&str>, accept: Option<&str>) -> (StatusCode, String, String) {
    let mut request = app.client().request(Method::GET, format!("{}{path}", app.base));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(accept) = accept {
        request = request.header(header::ACCEPT, accept);
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let kind = response.headers().get(header::CONTENT_TYPE).map_or("", |v| v.to_str().unwrap()).to_string();
    (status, kind, response.text().await.expect("body"))
}

async fn csv_is_the_json_page(app: TestApp) {
    let body = json!({"title": "Commas, \"quotes\"", "body": "line one\nline two", "author_id": 1}).to_string();
    let (status, created) = app.send(Method::POST, "/api/posts/", BOB, Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (_, page) = app.get("/api/posts/?ordering=id&limit=3&offset=1").await;
    let (status, kind, csv) = fetch(&app, "/api/posts/?ordering=id&limit=3&offset=1", None, Some("text/csv")).await;
    assert_eq!((status, kind.as_str()), (StatusCode::OK, "text/csv; charset=utf-8"), "{csv}");
    let lines: Vec<&str> = csv.split("\r\n").collect();
    let keys: Vec<&str> = page["results"][0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(lines[0], keys.join(","), "the header is the JSON record's keys, in order");
    assert_eq!(csv.matches("\r\n").count(), 4, "a header and the page's 3 rows (the JSON page's cap): {csv}");
    let first = ids(&page)[0];
    assert!(lines[1].starts_with(&format!("{first},")), "{csv}");
    assert!(
        csv.contains("\"Commas, \"\"quotes\"\"\",\"line one\nline two\""),
        "quoted comma, doubled quotes, a newline inside quotes: {csv}"
    );
    assert!(csv.contains(",,"), "the draft's null rating is an empty field: {csv}");
    let (status, kind, same) = fetch(&app, "/api/posts/?ordering=id&limit=3&offset=1&format=csv", None, None).await;
    assert_eq!((status, kind.as_str(), &same), (StatusCode::OK, "text/csv; charset=utf-8", &csv), "?format=csv");
    let (_, _, sparse) = fetch(&app, "/api/posts/?fields=title,id&ordering=id&format=csv&limit=1", None, None).await;
    assert_eq!(sparse, "id,title\r\n1,Notes on the Analytical Engine\r\n", "`fields=` in the JSON record's order");
    let (_, _, empty) = fetch(&app, "/api/posts/?views__gt=100000&format=csv&fields=id,views", None, None).await;
    assert_eq!(empty, "id,views\r\n", "an empty page is its header");
    let (_, _, filtered) = fetch(&app, "/api/posts/?or=(views.300)&fields=id&format=csv", None, None).await;
    assert_eq!(filtered, "id\r\n2\r\n", "the same filters");
}

async fn hidden_fields_stay_hidden(app: TestApp) {
    let (status, _, bob) = fetch(&app, "/authors/?format=csv", BOB, None).await;
    assert_eq!(status, StatusCode::OK, "{bob}");
    assert!(!bob.contains("email") && !bob.contains("@example.com"), "staff-only email for a non-staff caller: {bob}");
    let (_, _, alice) = fetch(&app, "/authors/?format=csv", ALICE, None).await;
    assert!(alice.lines().next().unwrap().contains("email") && alice.contains("@example.com"), "{alice}");
    let (status, _, anonymous) = fetch(&app, "/authors/?format=csv", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "the same permissions: {anonymous}");
    let (status, _, hidden) = fetch(&app, "/authors/?format=csv&fields=email", BOB, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "a hidden field is unknown: {hidden}");
}

async fn negotiation_and_errors(app: TestApp) {
    for accept in [None, Some("*/*"), Some("application/json"), Some("text/html"), Some("application/json, text/csv")] {
        let (status, kind, body) = fetch(&app, "/api/posts/", None, accept).await;
        assert_eq!((status, kind.as_str()), (StatusCode::OK, "application/json"), "{accept:?}");
        assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["count"], 3);
    }
    for accept in ["text/csv, */*;q=0.5", "text/csv;q=0.9, text/html"] {
        let (_, kind, _) = fetch(&app, "/api/posts/", None, Some(accept)).await;
        assert_eq!(kind, "text/csv; charset=utf-8", "{accept}");
    }
    let (_, kind, _) = fetch(&app, "/api/posts/?format=json", None, Some("text/csv")).await;
    assert_eq!(kind, "application/json", "`format` wins over Accept");
    for bad in ["xml", "CSV", ""] {
        let (status, body) = app.get(&format!("/api/posts/?format={bad}")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "format={bad}: {body}");
        assert_eq!(
            (&body["detail"][0]["loc"], &body["detail"][0]["type"]),
            (&json!(["query", "format"]), &json!("invalid_choice"))
        );
    }
    let (status, kind, body) = fetch(&app, "/api/posts/?limit=0", None, Some("text/csv")).await;
    assert_eq!(
        (status, kind.as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, "application/json"),
        "errors stay JSON: {body}"
    );
    let (_, document) = app.get("/openapi.json").await;
    let list = &document["paths"]["/api/posts/"]["get"];
    assert!(list["responses"]["200"]["content"]["text/csv"].is_object(), "{}", list["responses"]["200"]);
    let params = list["parameters"].as_array().unwrap();
    let format = params.iter().find(|p| p["name"] == "format").expect("`format` is documented");
    assert_eq!(format["schema"]["enum"], json!(["json", "csv"]));
}
