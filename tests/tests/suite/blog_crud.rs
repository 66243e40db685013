//! The generated CRUD contract, proven by real HTTP requests against the blog example on SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_tests::harness::{TestApp, ids};
use viewset_tests::identities::blog::{ALICE, BOB, FORGED};
use viewset_tests::on_every_database;

fn loc(body: &Value) -> Vec<String> {
    body["detail"][0]["loc"].as_array().expect("loc").iter().map(|v| v.as_str().unwrap().to_string()).collect()
}

fn kind(body: &Value) -> &str {
    body["detail"][0]["type"].as_str().expect("type")
}

on_every_database!(TestApp::blog =>
    list_envelope_and_default_ordering,
    list_limit_and_offset_bounds,
    retrieve_found_missing_and_invalid_ids,
    create_as_identity_with_defaults,
    create_rejects_bad_bodies,
    patch_preserves_omitted_fields_and_sets_null,
    patch_rejects_bad_bodies,
    delete_confirms_and_removes,
    no_put_and_other_methods_get_json_405,
    unique_and_foreign_key_violations,
    authors_need_an_identity,
    errors_are_json_whatever_accept_says,
    router_filters_use_every_field_and_ignore_unrelated,
);

async fn list_envelope_and_default_ordering(app: TestApp) {
    let (status, body) = app.get("/api/posts/").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["count"], 3);
    assert_eq!(body["limit"], 20);
    assert_eq!(body["offset"], 0);
    assert_eq!(ids(&body), vec![3, 2, 1], "default ordering is -id");
    let first = &body["results"][0];
    for field in ["id", "title", "body", "published", "views", "rating", "author_id", "created_at"] {
        assert!(first.get(field).is_some(), "{field} missing from {first}");
    }
    // Collection routes end with `/`; detail routes have none.
    let (status, _) = app.get("/api/posts").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn list_limit_and_offset_bounds(app: TestApp) {
    for (query, param) in [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=-5", "limit"),
        ("limit=abc", "limit"),
        ("limit=2.5", "limit"),
        ("offset=-1", "offset"),
        ("offset=x", "offset"),
    ] {
        let (status, body) = app.get(&format!("/api/posts/?{query}")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {body}");
        assert_eq!(loc(&body), vec!["query", param], "{query}");
    }
    let (status, body) = app.get("/api/posts/?limit=100").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["limit"], 100);
    let (_, body) = app.get("/api/posts/?limit=1&offset=1").await;
    assert_eq!((body["count"].as_i64(), ids(&body)), (Some(3), vec![2]));
    let (_, body) = app.get("/api/posts/?offset=50").await;
    assert_eq!((body["count"].as_i64(), ids(&body)), (Some(3), vec![]));
    let (_, body) = app.get("/api/posts/?offset=5000").await;
    assert_eq!((body["count"].as_i64(), ids(&body)), (Some(3), vec![]), "deep windows count separately");
}

async fn retrieve_found_missing_and_invalid_ids(app: TestApp) {
    let (status, body) = app.get("/api/posts/1").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["title"], "Notes on the Analytical Engine");
    assert_eq!(body["rating"], 4.5);
    let (status, body) = app.get("/api/posts/999").await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")));
    let (status, _) = app.get("/api/posts/-5").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    for bad in ["abc", "1.5", "99999999999", "%20", "1e3", "true", "-", "01", "1x"] {
        let (status, body) = app.get(&format!("/api/posts/{bad}")).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_id")), "{bad}");
    }
}

async fn create_as_identity_with_defaults(app: TestApp) {
    let new = r#"{"title": "Fresh", "body": "Text", "author_id": 1}"#;
    let (status, body) = app.send(Method::POST, "/api/posts/", None, Some(new)).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("not_authenticated")));
    let (status, body) = app.send(Method::POST, "/api/posts/", FORGED, Some(new)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "an invalid token is anonymous: {body}");

    let (status, body) = app.send(Method::POST, "/api/posts/", BOB, Some(new)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["title"], "Fresh");
    assert_eq!(body["published"], false, "database default");
    assert_eq!(body["views"], 0, "database default");
    assert_eq!(body["rating"], Value::Null);
    assert!(body["created_at"].as_str().is_some_and(|s| s.starts_with("20")), "server-set time: {body}");
    let id = body["id"].as_i64().expect("id");
    let (status, fetched) = app.get(&format!("/api/posts/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(fetched["title"], "Fresh");

    let full = r#"{"title": "Full", "body": "B", "author_id": 2, "published": true, "views": 9, "rating": 3.5}"#;
    let (status, body) = app.send(Method::POST, "/api/posts/", BOB, Some(full)).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        (body["published"].as_bool(), body["views"].as_i64(), body["rating"].as_f64()),
        (Some(true), Some(9), Some(3.5))
    );
}

async fn create_rejects_bad_bodies(app: TestApp) {
    let long_title = format!(r#"{{"title": "{}", "body": "b", "author_id": 1}}"#, "x".repeat(201));
    let cases: Vec<(String, Vec<&str>, &str)> = vec![
        (r#"{"body": "b", "author_id": 1}"#.into(), vec!["body", "title"], "missing"),
        (r#"{"title": "t", "body": "b", "author_id": 1, "extra": 1}"#.into(), vec!["body", "extra"], "extra_forbidden"),
        (r#"{"id": 50, "title": "t", "body": "b", "author_id": 1}"#.into(), vec!["body", "id"], "read_only"),
        (
            r#"{"title": "t", "body": "b", "author_id": 1, "created_at": "2020-01-01T00:00:00Z"}"#.into(),
            vec!["body", "created_at"],
            "read_only",
        ),
        (r#"{"title": "t", "body": "b", "author_id": "one"}"#.into(), vec!["body", "author_id"], "type_error"),
        (r#"{"title": "t", "body": "b", "author_id": 1, "views": "many"}"#.into(), vec!["body", "views"], "type_error"),
        (
            r#"{"title": "t", "body": "b", "author_id": 1, "published": null}"#.into(),
            vec!["body", "published"],
            "null_not_allowed",
        ),
        (long_title, vec!["body", "title"], "string_too_long"),
        (r#"{"title": "t", "#.into(), vec!["body"], "json_invalid"),
        // A create is one record; the posts' bulk create (`POST /api/posts/bulk`) is named (tests/bulk_writes.rs).
        ("[1, 2]".into(), vec!["body"], "model_type"),
        (r#"["t", "b", 1]"#.into(), vec!["body"], "model_type"),
        ("42".into(), vec!["body"], "type_error"),
        ("".into(), vec!["body"], "missing"),
    ];
    for (raw, expected_loc, expected_kind) in cases {
        let (status, body) = app.send(Method::POST, "/api/posts/", BOB, Some(&raw)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{raw}: {body}");
        assert_eq!(loc(&body), expected_loc, "{raw}: {body}");
        assert_eq!(kind(&body), expected_kind, "{raw}: {body}");
    }
    let exactly_200 = format!(r#"{{"title": "{}", "body": "b", "author_id": 1}}"#, "é".repeat(200));
    let (status, _) = app.send(Method::POST, "/api/posts/", BOB, Some(&exactly_200)).await;
    assert_eq!(status, StatusCode::CREATED, "200 characters (not bytes) fit");
    let (_, body) = app.get("/api/posts/").await;
    assert_eq!(body["count"], 4, "nothing else was written");
}

async fn patch_preserves_omitted_fields_and_sets_null(app: TestApp) {
    let (_, before) = app.get("/api/posts/1").await;
    let (status, body) = app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"rating": null, "views": 121}"#)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["rating"], Value::Null);
    assert_eq!(body["views"], 121);
    for kept in ["title", "body", "published", "author_id", "created_at", "id"] {
        assert_eq!(body[kept], before[kept], "{kept} was preserved");
    }
    let (_, fetched) = app.get("/api/posts/1").await;
    assert_eq!(fetched, body, "the change was stored");
    let (status, body) = app.send(Method::PATCH, "/api/posts/1", BOB, Some("{}")).await;
    assert_eq!((status, &body), (StatusCode::OK, &fetched), "an empty PATCH changes nothing");
    let (status, body) = app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"rating": 2.0}"#)).await;
    assert_eq!((status, body["rating"].as_f64()), (StatusCode::OK, Some(2.0)));
}

async fn patch_rejects_bad_bodies(app: TestApp) {
    let cases = [
        (r#"{"views": null}"#, vec!["body", "views"], "null_not_allowed"),
        (r#"{"title": null}"#, vec!["body", "title"], "null_not_allowed"),
        (r#"{"id": 7}"#, vec!["body", "id"], "read_only"),
        (r#"{"created_at": "2020-01-01T00:00:00Z"}"#, vec!["body", "created_at"], "read_only"),
        (r#"{"nope": 1}"#, vec!["body", "nope"], "extra_forbidden"),
        (r#"{"views": "x"}"#, vec!["body", "views"], "type_error"),
    ];
    for (raw, expected_loc, expected_kind) in cases {
        let (status, body) = app.send(Method::PATCH, "/api/posts/1", BOB, Some(raw)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{raw}: {body}");
        assert_eq!(
            (loc(&body), kind(&body)),
            (expected_loc.iter().map(|s| s.to_string()).collect(), expected_kind),
            "{raw}"
        );
    }
    let long = format!(r#"{{"title": "{}"}}"#, "t".repeat(201));
    let (status, body) = app.send(Method::PATCH, "/api/posts/1", BOB, Some(&long)).await;
    assert_eq!((status, kind(&body)), (StatusCode::UNPROCESSABLE_ENTITY, "string_too_long"));
    let (status, _) = app.send(Method::PATCH, "/api/posts/1", None, Some(r#"{"views": 1}"#)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app.send(Method::PATCH, "/api/posts/999", BOB, Some(r#"{"views": 1}"#)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app.send(Method::PATCH, "/api/posts/x", BOB, Some(r#"{"views": 1}"#)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (_, after) = app.get("/api/posts/1").await;
    assert_eq!(after["views"], 120, "no rejected PATCH wrote anything");
}

async fn delete_confirms_and_removes(app: TestApp) {
    let (status, _) = app.send(Method::DELETE, "/api/posts/3", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = app.send(Method::DELETE, "/api/posts/3", BOB, None).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"deleted": true, "id": 3})));
    let (status, _) = app.get("/api/posts/3").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app.send(Method::DELETE, "/api/posts/3", BOB, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, body) = app.get("/api/posts/").await;
    assert_eq!(body["count"], 2);
}

async fn no_put_and_other_methods_get_json_405(app: TestApp) {
    for (method, path) in [
        (Method::PUT, "/api/posts/1"),
        (Method::PUT, "/api/posts/"),
        (Method::POST, "/api/posts/1"),
        // The posts are `bulk` (`DELETE /api/posts/bulk?id__in=…`, tests/bulk_writes.rs); the authors are not.
        (Method::DELETE, "/authors/"),
    ] {
        let (status, body) = app.send(method.clone(), path, BOB, Some("{}")).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::METHOD_NOT_ALLOWED, Some("method_not_allowed")),
            "{method} {path}"
        );
    }
}

async fn unique_and_foreign_key_violations(app: TestApp) {
    let dup = r#"{"name": "Other", "email": "ada@example.com"}"#;
    let (status, body) = app.send(Method::POST, "/authors/", ALICE, Some(dup)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!((body["code"].as_str(), body["field"].as_str()), (Some("unique_violation"), Some("email")));
    let (status, body) = app.send(Method::PATCH, "/authors/2", ALICE, Some(r#"{"email": "ada@example.com"}"#)).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("unique_violation")));

    let orphan = r#"{"title": "t", "body": "b", "author_id": 999}"#;
    let (status, body) = app.send(Method::POST, "/api/posts/", BOB, Some(orphan)).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("foreign_key_violation")), "{body}");
    let (status, body) = app.send(Method::DELETE, "/authors/1", ALICE, None).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("foreign_key_violation")),
        "author 1 still has posts: {body}"
    );
    assert!(!body.to_string().to_lowercase().contains("constraint"), "no SQL details leak: {body}");
}

async fn authors_need_an_identity(app: TestApp) {
    let (status, _) = app.get("/authors/").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = app.get("/authors/1").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) = app.send(Method::GET, "/authors/", BOB, None).await;
    assert_eq!((status, body["count"].as_i64()), (StatusCode::OK, Some(2)));
    let (status, body) =
        app.send(Method::POST, "/authors/", ALICE, Some(r#"{"name": "Grace", "email": "grace@example.com"}"#)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["email"], "grace@example.com");
}

async fn errors_are_json_whatever_accept_says(app: TestApp) {
    for path in ["/api/posts/999", "/api/posts/x", "/api/posts/?limit=0", "/nowhere"] {
        let response =
            app.client().get(format!("{}{path}", app.base)).header("accept", "text/html").send().await.unwrap();
        let content_type = response.headers()["content-type"].to_str().unwrap().to_string();
        assert!(content_type.starts_with("application/json"), "{path}: {content_type}");
        let body: Value = response.json().await.unwrap();
        assert!(body.get("detail").is_some(), "{path}: {body}");
    }
}

async fn router_filters_use_every_field_and_ignore_unrelated(app: TestApp) {
    // `body` is not in filterable_fields, but the router's allowlist (get_filter_fields) is every field.
    let (status, body) = app.get("/api/posts/?body=Can%20machines%20think%3F").await;
    assert_eq!((status, ids(&body)), (StatusCode::OK, vec![2]));
    let (_, body) = app.get("/api/posts/?unrelated=1&also=x").await;
    assert_eq!(body["count"], 3, "unrelated parameters are ignored");
    let (status, body) = app.get("/api/posts/?author_id=two").await;
    assert_eq!(
        (status, loc(&body)),
        (StatusCode::UNPROCESSABLE_ENTITY, vec!["query".to_string(), "author_id".to_string()])
    );
}
