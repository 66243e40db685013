//! `?fields=` over HTTP on SQLite and PostgreSQL: list, retrieve and the stream answer only the named fields;
//! an unknown name and a field hidden from the caller get the same 422; filters, ordering, `ETag` and the
//! OpenAPI document agree.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_tests::harness::{SseClient, TestApp, WAIT};
use viewset_tests::identities::blog::{ALICE, BOB};
use viewset_tests::on_every_database;

on_every_database!(
    TestApp::blog => list_and_retrieve_answer_only_the_named_fields,
    unknown_and_hidden_names_get_the_same_422,
    the_stream_sends_only_the_named_fields,
);

fn keys(record: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = record.as_object().expect("a record").keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

async fn list_and_retrieve_answer_only_the_named_fields(app: TestApp) {
    let (status, page) = app.get("/api/posts/?fields=title,id&views__gte=0&ordering=views&limit=2").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let results = page["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|r| keys(r) == ["id", "title"]), "{page}");
    // Filtering and ordering by fields left out of the answer still work: `fields` shapes the answer only.
    let (_, full) = app.get("/api/posts/?views__gte=0&ordering=views&limit=2").await;
    let ids = |p: &Value| p["results"].as_array().unwrap().iter().map(|r| r["id"].clone()).collect::<Vec<_>>();
    assert_eq!(ids(&page), ids(&full));
    assert_eq!(page["count"], full["count"]);

    let response = app.client().get(format!("{}/api/posts/1?fields=views", app.base)).send().await.unwrap();
    let sparse_tag = response.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(response.status(), StatusCode::OK);
    let record: Value = response.json().await.unwrap();
    assert_eq!(keys(&record), ["views"]);
    let response = app.client().get(format!("{}/api/posts/1", app.base)).send().await.unwrap();
    let full_tag = response.headers()["etag"].to_str().unwrap().to_string();
    assert_ne!(sparse_tag, full_tag, "an ETag names one representation");
    // A staff caller may name a staff-only field.
    let (status, author) = app.send(Method::GET, "/authors/1?fields=email", ALICE, None).await;
    assert_eq!((status, keys(&author)), (StatusCode::OK, vec!["email"]));
}

async fn unknown_and_hidden_names_get_the_same_422(app: TestApp) {
    let (status, unknown) = app.send(Method::GET, "/authors/?fields=id,secret", BOB, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{unknown}");
    let detail = &unknown["detail"][0];
    assert_eq!(
        (detail["loc"].clone(), detail["type"].as_str()),
        (serde_json::json!(["query", "fields"]), Some("unknown_field"))
    );
    let msg = detail["msg"].as_str().unwrap();
    assert!(msg.starts_with("Unknown field `secret`;") && msg.contains("id, name"), "{msg}");
    assert!(!msg.contains("email"), "a field hidden from bob is not offered: {msg}");
    let (status, hidden) = app.send(Method::GET, "/authors/1?fields=id,email", BOB, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{hidden}");
    assert_eq!(hidden["detail"][0]["msg"].as_str().unwrap(), msg.replace("`secret`", "`email`"), "same answer");
    for bad in ["", "id,", "id%2C%20title", "ID"] {
        let (status, body) = app.get(&format!("/api/posts/?fields={bad}")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "fields={bad}: {body}");
    }
    let (status, body) = app.get("/api/posts/?fields=id&fields=title").await;
    assert_eq!(
        (status, body["detail"][0]["type"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("duplicate_parameter"))
    );
    // Admission comes first: an anonymous caller learns nothing about the authors' fields.
    let (status, _) = app.get("/authors/?fields=nope").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Writes do not read `fields`: the answer is the whole record.
    let (status, created) = app
        .send(Method::POST, "/api/posts/?fields=id", BOB, Some(r#"{"title": "t", "body": "b", "author_id": 1}"#))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert!(created.get("body").is_some(), "{created}");
    // The document describes the parameter with the same grammar.
    let (_, document) = app.get("/openapi.json").await;
    for (path, method) in [("/api/posts/", "get"), ("/api/posts/{pk}", "get"), ("/api/posts/stream", "get")] {
        let params = document["paths"][path][method]["parameters"].as_array().unwrap();
        let fields = params.iter().find(|p| p["name"] == "fields").expect("documented");
        assert!(fields["schema"]["pattern"].as_str().unwrap().starts_with("^(id|title|"), "{fields}");
        assert!(document["paths"][path][method]["responses"]["422"].is_object());
    }
}

async fn the_stream_sends_only_the_named_fields(app: TestApp) {
    let mut stream = SseClient::connect(&app, "/api/posts/stream?fields=id,views", None, None).await;
    assert_eq!(stream.next(WAIT).await.expect("ready").event, "ready");
    app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 42}"#)).await;
    let frame = stream.next(WAIT).await.expect("an update");
    assert_eq!(frame.event, "updated");
    assert_eq!(keys(&frame.data["record"]), ["id", "views"], "{frame:?}");
    assert_eq!(frame.data["record"]["views"], 42);
    let (status, body) = app.get("/api/posts/stream?fields=nope").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
}
