//! Nested writes in a PATCH (issue #70, goal 1; `#[viewset(writable_relations = [...])]`) over HTTP, on SQLite,
//! PostgreSQL and MariaDB: `{"posts": {"add": [...]}}` creates children, `{"labels": {"add" | "remove" | "set":
//! [...]}}` changes links through the join table, each label through its own ViewSet's policy, all or nothing; and
//! the document's bodies of the create and the PATCH, and the guide's examples. The create: `nested_writes.rs`,
//! whose fixtures these are.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::identities::blog::{ALICE, BOB};
use viewset_tests::on_every_database;

use crate::nested_writes::{blog_app, count, counts, first_error, guarded_app, post};

on_every_database!(blog_app => an_author_gains_posts);
on_every_database!(guarded_app => labels_added_removed_and_set);

async fn patch(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
    app.send(Method::PATCH, path, token, Some(&body.to_string())).await
}

/// A PATCH adds children to a to-many relation; it never removes or replaces them (that would delete children).
async fn an_author_gains_posts(app: TestApp) {
    let before = count(&app, "posts").await;
    let body = json!({"name": "Ada L.", "posts": {"add": [{"title": "New", "body": "b"}]}});
    let (status, author) = patch(&app, "/authors/1", BOB, body).await;
    assert_eq!(status, StatusCode::OK, "{author}");
    assert_eq!(author["name"], "Ada L.", "{author}");
    let posts = author["posts"].as_array().unwrap_or_else(|| panic!("{author}"));
    assert!(posts.iter().any(|p| p["title"] == "New" && p["author_id"] == 1), "{author}");
    assert_eq!(count(&app, "posts").await, before + 1);
    for (body, loc, kind) in [
        (json!({"posts": {"remove": [1]}}), json!(["body", "posts", "remove"]), "nested_unavailable"),
        (json!({"posts": {"set": []}}), json!(["body", "posts", "set"]), "nested_unavailable"),
        (json!({"posts": [{"title": "t", "body": "b"}]}), json!(["body", "posts"]), "nested_expected_operations"),
        (
            json!({"name": "x", "posts": {"add": [{"title": "t"}]}}),
            json!(["body", "posts", "add", "0", "body"]),
            "missing",
        ),
    ] {
        let (status, refused) = patch(&app, "/authors/1", BOB, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {refused}");
        assert_eq!(first_error(&refused), (loc, json!(kind)), "{body}: {refused}");
    }
    assert_eq!(count(&app, "posts").await, before + 1, "nothing written");
    let (_, author) = app.send(Method::GET, "/authors/1", BOB, None).await;
    assert_eq!(author["name"], "Ada L.", "the refused PATCH changed nothing: {author}");
    // A to-one relation changes through its foreign key.
    let (status, refused) = patch(&app, "/api/posts/1", BOB, json!({"author": {"set": [2]}})).await;
    assert_eq!((status, first_error(&refused).1), (StatusCode::UNPROCESSABLE_ENTITY, json!("nested_unavailable")));
}

fn label_names(note: &Value) -> Vec<String> {
    let mut names: Vec<String> = note["labels"]
        .as_array()
        .unwrap_or_else(|| panic!("{note}"))
        .iter()
        .map(|l| l["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// `{"labels": {"add" | "remove" | "set": [...]}}` on PATCH: links only, each label through its ViewSet's policy.
async fn labels_added_removed_and_set(app: TestApp) {
    let (status, note) = post(&app, "/notes/", None, json!({"title": "n", "labels": [1]})).await;
    assert_eq!(status, StatusCode::CREATED, "{note}");
    let path = format!("/notes/{}", note["id"]);
    let add = json!({"title": "renamed", "labels": {"add": [2, {"name": "fresh", "secret": false}, 1]}});
    let (status, note) = patch(&app, &path, None, add).await;
    assert_eq!(status, StatusCode::OK, "{note}");
    assert_eq!(
        (label_names(&note), &note["title"]),
        (vec!["fresh".into(), "rust".into(), "web".into()], &json!("renamed"))
    );
    let (_, note) = patch(&app, &path, None, json!({"labels": {"remove": [2]}})).await;
    assert_eq!(label_names(&note), ["fresh", "rust"], "{note}");
    let (_, note) = patch(&app, &path, None, json!({"labels": {"set": [2]}})).await;
    assert_eq!(label_names(&note), ["web"], "{note}");
    // Staff link the secret label; an anonymous `set` keeps the link it cannot see.
    let (status, note) = patch(&app, &path, ALICE, json!({"labels": {"add": [3]}})).await;
    assert_eq!((status, label_names(&note)), (StatusCode::OK, vec!["hidden".into(), "web".into()]), "{note}");
    let (_, note) = patch(&app, &path, None, json!({"labels": {"set": [1]}})).await;
    assert_eq!(label_names(&note), ["rust"], "{note}");
    let (_, note) = app.send(Method::GET, &format!("{path}?expand=labels"), ALICE, None).await;
    assert_eq!(label_names(&note), ["hidden", "rust"], "{note}");
    // Refused, nothing written: a label the caller may not see, a key nobody has, a shape that is no change.
    let before = counts(&app, &["notes", "labels", "note_labels"]).await;
    for (body, loc, kind) in [
        (json!({"labels": {"remove": [3]}}), json!(["body", "labels", "remove", "0"]), "does_not_exist"),
        (json!({"title": "x", "labels": {"add": [2, 999]}}), json!(["body", "labels", "add", "1"]), "does_not_exist"),
        (json!({"labels": {"set": [1], "add": [2]}}), json!(["body", "labels"]), "nested_expected_operations"),
        (json!({"labels": {"drop": [1]}}), json!(["body", "labels", "drop"]), "nested_expected_operations"),
        (json!({"labels": {"add": [true]}}), json!(["body", "labels", "add", "0"]), "invalid_key"),
    ] {
        let (status, refused) = patch(&app, &path, None, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {refused}");
        assert_eq!(first_error(&refused), (loc, json!(kind)), "{body}: {refused}");
    }
    assert_eq!(counts(&app, &["notes", "labels", "note_labels"]).await, before, "nothing written");
    let (_, note) = app.send(Method::GET, &format!("{path}?expand=labels"), None, None).await;
    assert_eq!((label_names(&note), &note["title"]), (vec!["rust".to_string()], &json!("renamed")), "{note}");
}

/// The single create's body in the document: each writable relation an optional property typed by the related
/// ViewSet's create body (`<table>_create`) or key, the foreign key a to-one relation fills in no longer required,
/// and the related create body without the foreign key a to-many relation fills in.
#[test]
fn the_document_types_the_nested_bodies() {
    let doc = serde_json::to_value(blog::api().openapi("blog", "1")).expect("a document");
    let schemas = &doc["components"]["schemas"];
    let body = |path: &str| -> Value {
        let content = &doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"];
        // With `bulk`, the body is one record or an array of them.
        content.get("oneOf").map_or_else(|| content.clone(), |one_of| one_of[0].clone())
    };
    let post = body("/api/posts/");
    let author = &post["properties"]["author"]["oneOf"];
    assert_eq!(author[0]["type"], "integer", "{post}");
    assert_eq!(author[1]["$ref"], "#/components/schemas/authors_create", "{post}");
    assert!(!post["required"].as_array().unwrap().contains(&json!("author_id")), "{post}");
    let authors = body("/authors/");
    assert_eq!(authors["properties"]["posts"]["items"]["$ref"], "#/components/schemas/posts_create", "{authors}");
    let posts_create = &schemas["posts_create"];
    assert!(posts_create["properties"]["title"].is_object(), "{posts_create}");
    assert!(!posts_create["required"].as_array().unwrap().contains(&json!("author_id")), "{posts_create}");
    assert_eq!(posts_create["additionalProperties"], false, "{posts_create}");
    // The PATCH of an author adds posts.
    let patch = &doc["paths"]["/authors/{pk}"]["patch"]["requestBody"]["content"]["application/json"]["schema"];
    let add = &patch["properties"]["posts"]["properties"]["add"]["items"]["$ref"];
    assert_eq!(add, "#/components/schemas/posts_create", "{patch}");
    // The author created with a post may carry its own posts (two levels, `max_nested_depth`).
    assert!(schemas["authors_create"]["properties"]["posts"].is_object(), "{}", schemas["authors_create"]);
}

/// The guide's nested writes (relations.md, "Nested writes: `writable_relations`"), run as typed (through curl) against the
/// blog on a fresh SQLite file, in order: each answers the status its comment says, and the body too when the comment
/// shows it whole, else every `"key": value` it shows. Needs `curl`.
#[tokio::test]
async fn the_nested_writes_of_the_guide_work_as_typed() {
    let relations = viewset_tests::docs::page("relations.md");
    let section = viewset_tests::docs::section(relations, "## Nested writes: `writable_relations`");
    let block = section.split("```text").nth(1).and_then(|b| b.split("```").next()).expect("its examples");
    let lines: Vec<&str> = block.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 6, "three commands, each with its answer: {block}");
    let app = TestApp::blog(Backend::Sqlite).await;
    for pair in lines.chunks(2) {
        let (command, answer) = (pair[0], pair[1].strip_prefix("# ").expect("an answer"));
        let (status, body) = viewset_tests::shell::curl(command, &["localhost:8000"], &app.base).await;
        let (expected_status, expected_body) = answer.split_once(' ').unwrap();
        assert_eq!(status, expected_status, "{command}: {body}");
        let body: Value = serde_json::from_str(&body).unwrap();
        match serde_json::from_str::<Value>(expected_body) {
            Ok(expected) => assert_eq!(body, expected, "{command}"),
            Err(_) => {
                let compact = body.to_string();
                let shown = expected_body.split(['{', '}', '[', ']']).flat_map(|part| part.split(", "));
                for pair in shown.filter(|p| p.contains(": ") && !p.contains('…')) {
                    let (key, value) = pair.split_once(": ").unwrap();
                    assert!(compact.contains(&format!("{key}:{value}")), "{pair} in {compact}");
                }
            }
        }
    }
}
