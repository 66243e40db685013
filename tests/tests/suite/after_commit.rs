//! After-commit hooks (issue #72, goal 3): `Hooks::after_commit` is called once per committed row — single, bulk
//! and upsert writes — with the previous and the new record for an update, after the commit, never for a write that
//! rolled back; a panicking hook changes neither the answer nor the hooks of later writes.

use std::sync::Mutex;
use std::time::Duration;

use blog::entities::post;
use reqwest::{Method, StatusCode};
use serde_json::json;
use viewset_core::ServiceState;
use viewset_core::prelude::*;
use viewset_core::viewset::Committed;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;

/// Posts whose after-commit hook records what it was told.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/hooked/posts", basename = "hooked", permission_classes = [AllowAny], bulk, upsert_keys = ["slug"], custom_hooks, expandable = ["author"], writable_relations = ["author"])]
pub struct HookedPosts;

/// `(action, title before, title after)` of every committed row any test wrote.
static SEEN: Mutex<Vec<(String, Option<String>, String)>> = Mutex::new(Vec::new());

impl Hooks for HookedPosts {
    async fn after_commit(_: &RequestContext, change: Committed<post::Model>) {
        let previous = match &change {
            Committed::Updated { previous, .. } => Some(previous.title.clone()),
            _ => None,
        };
        let title = change.record().title.clone();
        if title.ends_with("panic") {
            panic!("a hook that fails");
        }
        SEEN.lock().unwrap().push((change.action().to_string(), previous, title));
    }
}

async fn hooked_blog(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let mut api = blog::api();
    api.include::<HookedPosts>().expect("registers");
    TestApp::serve(blog::app_from(api, ServiceState::new(db.clone())), db, database).await
}

on_every_database!(hooked_blog => every_committed_row_is_told_once, rolled_back_writes_are_never_told, nested_writes_are_told);

/// A nested create tells its record's hook once it committed (`writable_relations`).
async fn nested_writes_are_told(app: TestApp) {
    let tag = format!("{:?}-nested", app.db.get_database_backend());
    let body = json!({"title": format!("{tag} one"), "body": "b", "author": {"name": "Nested"}});
    let bob = viewset_tests::identities::blog::BOB;
    let (status, created) = app.send(Method::POST, "/hooked/posts/", bob, Some(&body.to_string())).await;
    assert_eq!((status, &created["author"]["name"]), (StatusCode::CREATED, &json!("Nested")), "{created}");
    assert_eq!(seen(&tag, 1).await, vec![row("created", None, &format!("{tag} one"))]);
}

/// The rows seen whose titles start with `tag`, once `count` of them arrived (the hooks run after the answers).
async fn seen(tag: &str, count: usize) -> Vec<(String, Option<String>, String)> {
    let mine = || -> Vec<_> { SEEN.lock().unwrap().iter().filter(|(_, _, t)| t.starts_with(tag)).cloned().collect() };
    for _ in 0..200 {
        if mine().len() >= count {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    mine()
}

fn row(action: &str, previous: Option<&str>, title: &str) -> (String, Option<String>, String) {
    (action.to_string(), previous.map(str::to_string), title.to_string())
}

async fn send(app: &TestApp, method: Method, path: &str, body: serde_json::Value) -> (StatusCode, serde_json::Value) {
    app.send(method, path, None, Some(&body.to_string())).await
}

async fn every_committed_row_is_told_once(app: TestApp) {
    let tag = format!("{:?}-told", app.db.get_database_backend());
    let t = |suffix: &str| format!("{tag} {suffix}");
    let (status, created) =
        send(&app, Method::POST, "/hooked/posts/", json!({"title": t("one"), "body": "b", "author_id": 1})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].clone();
    send(&app, Method::PATCH, &format!("/hooked/posts/{id}"), json!({"title": t("one, renamed")})).await;
    // A PATCH that changes nothing writes nothing and is not told.
    send(&app, Method::PATCH, &format!("/hooked/posts/{id}"), json!({})).await;
    let (status, many) = send(
        &app,
        Method::POST,
        "/hooked/posts/bulk",
        json!([
            {"title": t("two"), "body": "b", "author_id": 1, "slug": format!("{tag}-two")},
            {"title": t("three"), "body": "b", "author_id": 2},
        ]),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{many}");
    let (two, three) = (many[0]["id"].clone(), many[1]["id"].clone());
    let (status, _) = send(
        &app,
        Method::PATCH,
        "/hooked/posts/bulk",
        json!([{"id": two, "views": 9}, {"id": three, "title": t("three, renamed")}]),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // An upsert: `two` exists by its slug (updated), `four` is new (created).
    let upsert = app
        .client()
        .post(format!("{}/hooked/posts/upsert?on_conflict=slug", app.base))
        .header("content-type", "application/json")
        .body(
            json!([
                {"title": t("two, upserted"), "body": "b", "author_id": 1, "slug": format!("{tag}-two")},
                {"title": t("four"), "body": "b", "author_id": 1, "slug": format!("{tag}-four")},
            ])
            .to_string(),
        )
        .send()
        .await
        .expect("upsert");
    assert!(upsert.status().is_success(), "{}", upsert.text().await.unwrap());
    let (status, _) = app.send(Method::DELETE, &format!("/hooked/posts/bulk?id__in={two},{three}"), None, None).await;
    assert_eq!(status, StatusCode::OK);
    app.send(Method::DELETE, &format!("/hooked/posts/{id}"), None, None).await;
    let expected = vec![
        row("created", None, &t("one")),
        row("updated", Some(&t("one")), &t("one, renamed")),
        row("created", None, &t("two")),
        row("created", None, &t("three")),
        row("updated", Some(&t("two")), &t("two")),
        row("updated", Some(&t("three")), &t("three, renamed")),
        row("updated", Some(&t("two")), &t("two, upserted")),
        row("created", None, &t("four")),
        row("deleted", None, &t("two, upserted")),
        row("deleted", None, &t("three, renamed")),
        row("deleted", None, &t("one, renamed")),
    ];
    // Each write's rows are told in order; different writes' hooks run in tasks of their own, in any order.
    let mut told = seen(&tag, expected.len()).await;
    let position = |r: &(String, Option<String>, String)| told.iter().position(|x| x == r);
    assert!(position(&expected[2]) < position(&expected[3]), "a bulk create's rows in order: {told:?}");
    assert!(position(&expected[9]) > position(&expected[8]), "a bulk delete's rows in order: {told:?}");
    let mut expected = expected;
    expected.sort();
    told.sort();
    assert_eq!(told, expected);
}

async fn rolled_back_writes_are_never_told(app: TestApp) {
    let tag = format!("{:?}-rolled", app.db.get_database_backend());
    let t = |suffix: &str| format!("{tag} {suffix}");
    // A foreign key the database refuses: the insert rolls back.
    let (status, body) =
        send(&app, Method::POST, "/hooked/posts/", json!({"title": t("orphan"), "body": "b", "author_id": 999})).await;
    assert!(status.is_client_error(), "{status} {body}");
    // A bulk create whose second row the database refuses: neither row is committed, neither is told.
    let (status, _) = send(
        &app,
        Method::POST,
        "/hooked/posts/bulk",
        json!([
            {"title": t("kept?"), "body": "b", "author_id": 1},
            {"title": t("orphan too"), "body": "b", "author_id": 999},
        ]),
    )
    .await;
    assert!(status.is_client_error());
    // A hook that panics: the write is committed and answered, and later writes are still told.
    let (status, _) =
        send(&app, Method::POST, "/hooked/posts/", json!({"title": t("panic"), "body": "b", "author_id": 1})).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) =
        send(&app, Method::POST, "/hooked/posts/", json!({"title": t("after"), "body": "b", "author_id": 1})).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(seen(&tag, 1).await, vec![row("created", None, &t("after"))]);
}
