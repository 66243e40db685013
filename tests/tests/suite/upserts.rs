//! Upsert (`#[viewset(upsert_keys = ["slug"])]`: `POST <prefix>/upsert?on_conflict=slug`, merging by default or
//! with `Prefer: resolution=ignore-duplicates`) over HTTP, on SQLite and PostgreSQL: which rows were
//! created, updated or ignored; bad input as a 422 with nothing written; a key held by a record outside the
//! caller's scope (404 naming it), an identity that may create but not update (403) and the object permissions
//! for `Update` (403), each with nothing written; parallel upserts of one key end with one row.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_core::access::OperationPermission;
use viewset_core::prelude::*;
use viewset_tests::fixtures::paged::{PublishedOnly, PublishedToAnonymous};
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

use crate::support::writes;
use writes::{Answer, count, write};

use blog::entities::post;

/// Posts anyone may write, within [`PublishedToAnonymous`] (an anonymous caller sees published posts only).
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/scoped/posts", basename = "scoped", permission_classes = [AllowAny], policy = [PublishedToAnonymous], bulk, upsert_keys = ["slug"])]
pub struct ScopedPosts;

/// Posts a caller may read and create, never update.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/create_only/posts", basename = "create_only", permission_classes = [OperationPermission::allow(&["read", "create"])], bulk(create), upsert_keys = ["slug"])]
pub struct CreateOnly;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/checked/posts", basename = "checked", permission_classes = [AllowAny, PublishedOnly], upsert_keys = ["slug"])]
pub struct CheckedPosts;

/// The seeded blog with the ViewSets above; the unpublished post has the slug `draft`, a published one `machines`.
async fn upsert_blog(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let mut api = blog::api();
    api.include::<ScopedPosts>().expect("registers").include::<CreateOnly>().expect("registers");
    api.include::<CheckedPosts>().expect("registers");
    let app = TestApp::serve(blog::app_from(api, ServiceState::new(db.clone())), db, database).await;
    for sql in [
        "UPDATE posts SET slug = 'draft' WHERE title = 'On Computable Numbers'",
        "UPDATE posts SET slug = 'machines' WHERE title = 'Computing Machinery and Intelligence'",
    ] {
        let statement = sea_orm::Statement::from_string(app.db.get_database_backend(), sql);
        sea_orm::ConnectionTrait::execute_raw(&app.db, statement).await.expect("a slug");
    }
    app
}

const MERGE: Option<&str> = Some("resolution=merge-duplicates");
const IGNORE: Option<&str> = Some("resolution=ignore-duplicates");

/// A post's create body with a slug.
fn row(slug: &str, title: &str) -> Value {
    json!({"title": title, "body": "b", "author_id": 1, "slug": slug})
}

async fn upsert(app: &TestApp, path: &str, token: Option<&str>, prefer: Option<&str>, body: &Value) -> Answer {
    write(app, Method::POST, path, token, None, prefer, &body.to_string()).await
}

async fn posts(app: &TestApp) -> i64 {
    count(app, "SELECT COUNT(*) FROM posts").await
}

async fn title_of(app: &TestApp, slug: &str) -> String {
    assert_eq!(count(app, &format!("SELECT COUNT(*) FROM posts WHERE slug = '{slug}'")).await, 1, "{slug}");
    let sql = format!("SELECT title FROM posts WHERE slug = '{slug}'");
    let statement = sea_orm::Statement::from_string(app.db.get_database_backend(), sql);
    let row = sea_orm::ConnectionTrait::query_one_raw(&app.db, statement).await.expect("a query").expect("a row");
    row.try_get_by_index::<String>(0).expect("a title")
}

on_every_database!(upsert_blog => creates_updates_and_ignores, bad_input_writes_nothing, never_overwrites_what_patch_could_not);
// Concurrent upserts of one new key wait on each other on MariaDB (InnoDB's gap locks behind `SELECT … FOR UPDATE`
// of a missing row) for longer than the test waits.
on_every_database!(upsert_blog => parallel_upserts_end_with_one_row);

async fn creates_updates_and_ignores(app: TestApp) {
    let path = "/api/posts/upsert?on_conflict=slug";
    let before = posts(&app).await;
    let made = upsert(&app, path, BOB, MERGE, &json!([row("a", "A"), row("b", "B")])).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.json());
    assert_eq!(made.header("preference-applied"), Some("resolution=merge-duplicates"));
    let body = made.json();
    assert_eq!((body["created"].clone(), body["updated"].clone()), (json!([0, 1]), json!([])));
    assert_eq!(body["records"][1]["slug"], "b");
    assert_eq!(posts(&app).await, before + 2);

    // One existing key (updated, in place) and one new (created), in request order.
    let a_id = body["records"][0]["id"].clone();
    let mixed = upsert(&app, path, BOB, MERGE, &json!([row("a", "A2"), row("c", "C")])).await;
    assert_eq!(mixed.status, StatusCode::CREATED, "{}", mixed.json());
    let body = mixed.json();
    assert_eq!((body["created"].clone(), body["updated"].clone()), (json!([1]), json!([0])));
    assert_eq!((body["records"][0]["id"].clone(), body["records"][0]["title"].clone()), (a_id, json!("A2")));
    assert_eq!(posts(&app).await, before + 3);
    assert_eq!(title_of(&app, "a").await, "A2");

    // Every key exists: 200. `on_conflict` may be left out (the one key), and so may `Prefer` (merging).
    let single = upsert(&app, "/api/posts/upsert", BOB, None, &json!([row("c", "C2")])).await;
    assert_eq!(single.status, StatusCode::OK, "{}", single.json());
    assert_eq!(single.json()["updated"], json!([0]));
    assert_eq!(title_of(&app, "c").await, "C2");

    // ignore-duplicates: the existing record is left as it is, its row answered `null`.
    let ignored = upsert(&app, path, BOB, IGNORE, &json!([row("a", "ignored"), row("d", "D")])).await;
    assert_eq!(ignored.status, StatusCode::CREATED, "{}", ignored.json());
    assert_eq!(ignored.header("preference-applied"), Some("resolution=ignore-duplicates"));
    let body = ignored.json();
    assert_eq!((body["created"].clone(), body["ignored"].clone()), (json!([1]), json!([0])));
    assert_eq!(body["records"][0], Value::Null);
    assert_eq!(title_of(&app, "a").await, "A2");
    let none = upsert(&app, path, BOB, IGNORE, &json!([row("a", "ignored")])).await;
    assert_eq!((none.status, none.json()["ignored"].clone()), (StatusCode::OK, json!([0])));
    assert_eq!(posts(&app).await, before + 4);

    // Without a slug, posts are created as before.
    let plain = upsert(&app, "/api/posts/", BOB, None, &json!({"title": "t", "body": "b", "author_id": 1})).await;
    assert_eq!((plain.status, plain.json()["slug"].clone()), (StatusCode::CREATED, Value::Null));
    // The create is never an upsert: `on_conflict` or a resolution there is a 422 naming the upsert's route, and
    // nothing is written; an unknown resolution on the upsert is its default, merging.
    for (path, prefer, loc) in [
        ("/api/posts/?on_conflict=slug", None, json!(["query", "on_conflict"])),
        ("/api/posts/?on_conflict=slug", MERGE, json!(["query", "on_conflict"])),
        ("/api/posts/", IGNORE, json!(["header", "prefer"])),
    ] {
        let moved = upsert(&app, path, BOB, prefer, &row("e", "E")).await;
        assert_eq!(moved.status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {}", moved.json());
        assert_eq!(
            (moved.json()["detail"][0]["loc"].clone(), moved.json()["detail"][0]["type"].clone()),
            (loc, json!("extra_forbidden"))
        );
        assert!(
            moved.json()["detail"][0]["msg"].as_str().unwrap().contains("POST /api/posts/upsert"),
            "{}",
            moved.json()
        );
    }
    assert_eq!(posts(&app).await, before + 5);
    let unknown = upsert(&app, "/api/posts/upsert", BOB, Some("resolution=overwrite"), &json!([row("c", "C3")])).await;
    assert_eq!((unknown.status, unknown.json()["updated"].clone()), (StatusCode::OK, json!([0])));
    assert_eq!(title_of(&app, "c").await, "C3");
    // A create of an existing slug is the unique violation it always was.
    let again = upsert(&app, "/api/posts/", BOB, None, &row("c", "C")).await;
    assert_eq!(again.status, StatusCode::CONFLICT, "a plain create of an existing slug: {}", again.json());
}

async fn bad_input_writes_nothing(app: TestApp) {
    let before = posts(&app).await;
    let path = "/api/posts/upsert?on_conflict=slug";
    let refused = |answer: &Answer, loc: Value, what: &str| {
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{what}: {}", answer.json());
        let locs: Vec<Value> = answer.json()["detail"].as_array().unwrap().iter().map(|e| e["loc"].clone()).collect();
        assert!(locs.contains(&loc), "{what}: {loc} in {locs:?}");
    };
    let other = upsert(&app, "/api/posts/upsert?on_conflict=title", BOB, MERGE, &json!([row("x", "X")])).await;
    refused(&other, json!(["query", "on_conflict"]), "a field that is no upsert key");
    let plain = upsert(&app, "/api/posts/upsert?on_conflict=title", BOB, None, &json!([row("x", "X")])).await;
    refused(&plain, json!(["query", "on_conflict"]), "no upsert key, even without Prefer");
    let extra = upsert(&app, "/api/posts/upsert?on_conflict=slug&title=x", BOB, None, &json!([row("x", "X")])).await;
    refused(&extra, json!(["query", "title"]), "a parameter the upsert does not take");
    let object = upsert(&app, path, BOB, MERGE, &row("x", "X")).await;
    refused(&object, json!(["body"]), "one object: an upsert is an array of rows");
    assert_eq!(object.json()["detail"][0]["type"], "list_type");
    let mix = json!([row("x", "X"), {"title": "t", "body": "b", "author_id": 1}]);
    refused(&upsert(&app, path, BOB, MERGE, &mix).await, json!(["body", "1", "slug"]), "a row without a key");
    let null = json!([row("x", "X"), {"title": "t", "body": "b", "author_id": 1, "slug": null}]);
    refused(&upsert(&app, path, BOB, MERGE, &null).await, json!(["body", "1", "slug"]), "a null key");
    let twice = json!([row("x", "X"), row("y", "Y"), row("x", "X2")]);
    refused(&upsert(&app, path, BOB, MERGE, &twice).await, json!(["body", "2", "slug"]), "a key twice");
    let scalars = json!([1, "x"]);
    refused(&upsert(&app, path, BOB, MERGE, &scalars).await, json!(["body", "0"]), "an array of non-objects");
    let nul = json!([row("x\u{0}", "X")]);
    refused(&upsert(&app, path, BOB, MERGE, &nul).await, json!(["body", "0", "slug"]), "a NUL byte");
    // An existing key with a row that is a valid create but an invalid update: nothing written either.
    let long = json!([row("y", "Y"), row("machines", &"x".repeat(201))]);
    refused(&upsert(&app, path, BOB, MERGE, &long).await, json!(["body", "1", "title"]), "an invalid row");
    // `If-Match` names one record's version, which an upsert of many records cannot check: refused, nothing written.
    let request = app.client().post(format!("{}{path}", app.base)).bearer_auth(BOB.unwrap());
    let request = request.header("content-type", "application/json").header("prefer", MERGE.unwrap());
    let body = json!([row("machines", "Overwritten")]).to_string();
    let answer = request.header("if-match", "*").body(body).send().await.expect("an upsert");
    let answer = Answer {
        status: answer.status(),
        headers: answer.headers().clone(),
        body: answer.bytes().await.unwrap().to_vec(),
    };
    refused(&answer, json!(["header", "if-match"]), "If-Match on an upsert");
    assert_eq!(answer.json()["detail"][0]["type"], "if_match_unsupported");
    assert_eq!(posts(&app).await, before);
    assert_eq!(title_of(&app, "machines").await, "Computing Machinery and Intelligence");
}

async fn never_overwrites_what_patch_could_not(app: TestApp) {
    let before = posts(&app).await;
    // `draft` is unpublished: outside an anonymous caller's scope. A 404 naming it, nothing written (not even `n`).
    for prefer in [MERGE, IGNORE] {
        let body = json!([row("n", "New"), row("draft", "Overwritten")]);
        let hidden = upsert(&app, "/scoped/posts/upsert?on_conflict=slug", None, prefer, &body).await;
        assert_eq!(hidden.status, StatusCode::NOT_FOUND, "{}", hidden.json());
        assert_eq!(hidden.json()["key"], "draft");
    }
    assert_eq!(posts(&app).await, before);
    assert_eq!(title_of(&app, "draft").await, "On Computable Numbers");
    // A caller who sees it may upsert it.
    let seen = upsert(&app, "/scoped/posts/upsert?on_conflict=slug", BOB, MERGE, &json!([row("draft", "Seen")])).await;
    assert_eq!((seen.status, seen.json()["updated"].clone()), (StatusCode::OK, json!([0])));

    // May create, may not update: a new key is created, an existing one is a 403 and nothing is written.
    let new =
        upsert(&app, "/create_only/posts/upsert?on_conflict=slug", BOB, MERGE, &json!([row("fresh", "Fresh")])).await;
    assert_eq!(new.status, StatusCode::CREATED, "{}", new.json());
    let body = json!([row("other", "Other"), row("machines", "Overwritten")]);
    let denied = upsert(&app, "/create_only/posts/upsert?on_conflict=slug", BOB, MERGE, &body).await;
    assert_eq!(denied.status, StatusCode::FORBIDDEN, "{}", denied.json());
    assert_eq!(title_of(&app, "machines").await, "Computing Machinery and Intelligence");
    // ignore-duplicates writes nothing to the existing record: no update permission needed.
    let skipped = upsert(&app, "/create_only/posts/upsert?on_conflict=slug", BOB, IGNORE, &body).await;
    assert_eq!((skipped.status, skipped.json()["ignored"].clone()), (StatusCode::CREATED, json!([1])));
    assert_eq!(posts(&app).await, before + 2);

    // The object permissions for Update: `Seen` (ex-`draft`) is unpublished, so PATCH and upsert are both 403.
    let patch = write(
        &app,
        Method::PATCH,
        &format!("/checked/posts/{}", seen.json()["records"][0]["id"]),
        BOB,
        None,
        None,
        r#"{"title": "P"}"#,
    )
    .await;
    assert_eq!(patch.status, StatusCode::FORBIDDEN);
    let checked =
        upsert(&app, "/checked/posts/upsert?on_conflict=slug", BOB, MERGE, &json!([row("draft", "Overwritten")])).await;
    assert_eq!(checked.status, StatusCode::FORBIDDEN, "{}", checked.json());
    assert_eq!(title_of(&app, "draft").await, "Seen");
    let published =
        upsert(&app, "/checked/posts/upsert?on_conflict=slug", BOB, MERGE, &json!([row("machines", "M2")])).await;
    // Without `bulk(create)`, one row per upsert.
    let two = json!([row("machines", "M3"), row("fresh-2", "F")]);
    let refused = upsert(&app, "/checked/posts/upsert?on_conflict=slug", BOB, MERGE, &two).await;
    assert_eq!(
        (refused.status, refused.json()["detail"][0]["type"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!("too_long"))
    );
    assert_eq!(published.status, StatusCode::OK, "{}", published.json());
    assert_eq!(title_of(&app, "machines").await, "M2");
}

async fn parallel_upserts_end_with_one_row(app: TestApp) {
    let app = std::sync::Arc::new(app);
    for round in 0..3 {
        let slug = format!("race-{round}");
        let tasks: Vec<_> = (0..8)
            .map(|i| {
                let (app, body) = (app.clone(), json!([row(&slug, &format!("writer {i}"))]));
                tokio::spawn(async move { upsert(&app, "/api/posts/upsert?on_conflict=slug", BOB, MERGE, &body).await })
            })
            .collect();
        let mut created = 0;
        for task in tasks {
            let answer = task.await.expect("a task");
            assert!(
                matches!(answer.status, StatusCode::CREATED | StatusCode::OK),
                "{}: {}",
                answer.status,
                answer.json()
            );
            created += answer.json()["created"].as_array().unwrap().len();
        }
        assert_eq!(created, 1, "one writer created {slug}, the others updated it");
        assert_eq!(count(&app, &format!("SELECT COUNT(*) FROM posts WHERE slug = '{slug}'")).await, 1);
    }
}
