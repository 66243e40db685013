//! Nested writes (issue #70, goal 1; `#[viewset(writable_relations = [...])]`) over HTTP, on SQLite, PostgreSQL and
//! MariaDB: the blog's post with a new or an existing author, an author with its posts, a note with labels linked
//! and created through the join table; every row through its own ViewSet's policy (permissions, staff-only fields,
//! validation, the tenant's scope of a referenced row), all or nothing (rows counted), the bounds, an event per row
//! and the answer embedding what was written.

use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use serde_json::{Value, json};
use viewset_core::access::OperationPermission;
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, SseClient, TestApp, TestDb, WAIT};
use viewset_tests::identities::blog::{ALICE, BOB};
use viewset_tests::identities::tenants as people;
use viewset_tests::on_every_database;

use crate::many_to_many::{Labels, label, note};
use crate::support::writes;
use blog::entities::{author, post};
use tenants::entities::task;

/// Posts anyone may create, with their author; authors here may only be read.
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    prefix = "/open/posts",
    basename = "open_posts",
    permission_classes = [AllowAny],
    expandable = ["author"],
    writable_relations = ["author"],
)]
pub struct OpenPosts;

/// Authors nobody may create.
#[derive(ModelViewSet)]
#[viewset(model = author::Entity, prefix = "/ro/authors", basename = "ro_authors", permission_classes = [OperationPermission::allow(&["read"])])]
pub struct ReadOnlyAuthors;

/// Notes with their labels, written through the join table.
#[derive(ModelViewSet)]
#[viewset(
    model = note::Entity,
    prefix = "/notes",
    permission_classes = [AllowAny],
    relations(labels = label::Entity),
    expandable = ["labels"],
    writable_relations = ["labels"],
    max_nested_rows = 5,
)]
pub struct Notes;

/// Tasks with their project, new or existing, through the tenants example's `ProjectViewSet` (`tenant_field`).
#[derive(ModelViewSet)]
#[viewset(
    model = task::Entity,
    prefix = "/nested/tasks",
    basename = "nested_tasks",
    permission_classes = [IsAuthenticated],
    expandable = ["project"],
    writable_relations = ["project"],
)]
pub struct NestedTasks;

async fn tenants_app(backend: Backend) -> TestApp {
    let database = TestDb::create(backend).await;
    let db = tenants::connect_and_migrate(&database.url).await.expect("migrate the tenants example");
    let mut api = tenants::api();
    api.include::<NestedTasks>().expect("registers");
    let router = api.into_router().with_state(ServiceState::new(db.clone())).layer(tenants::auth::layer());
    TestApp::serve(router, db, database).await
}

pub(crate) async fn blog_app(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let router = blog::app_from(blog::api(), ServiceState::new(db.clone()));
    TestApp::serve(router, db, database).await
}

/// Open posts whose authors are read-only, and notes with labels (autoincrement keys on every backend).
pub(crate) async fn guarded_app(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let key = match db.get_database_backend() {
        DbBackend::Postgres => "SERIAL PRIMARY KEY",
        DbBackend::MySql => "INTEGER AUTO_INCREMENT PRIMARY KEY",
        _ => "INTEGER PRIMARY KEY AUTOINCREMENT",
    };
    for sql in [
        format!("CREATE TABLE notes (id {key}, title VARCHAR(100) NOT NULL)"),
        format!("CREATE TABLE labels (id {key}, name VARCHAR(50) NOT NULL, secret BOOLEAN NOT NULL)"),
        "CREATE TABLE note_labels (note_id INTEGER NOT NULL, label_id INTEGER NOT NULL, PRIMARY KEY (note_id, label_id))"
            .to_string(),
        "INSERT INTO labels (name, secret) VALUES ('rust', FALSE), ('web', FALSE), ('hidden', TRUE)".to_string(),
    ] {
        db.execute_unprepared(&sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let mut api = Api::new();
    api.include::<OpenPosts>().expect("registers").include::<ReadOnlyAuthors>().expect("registers");
    api.include::<Notes>().expect("registers").include::<Labels>().expect("registers");
    let router = api.into_router().with_state(ServiceState::new(db.clone())).layer(blog::auth::layer());
    TestApp::serve(router, db, database).await
}

on_every_database!(blog_app =>
    a_post_with_a_new_author,
    a_post_referencing_an_author,
    an_author_with_three_posts,
    a_failing_row_writes_nothing,
    bounds_and_shapes,
    minimal_and_idempotent,
);
on_every_database!(tenants_app => another_tenants_project_cannot_be_referenced);
on_every_database!(guarded_app => each_row_through_its_own_permissions, labels_through_the_join_table);

pub(crate) async fn count(app: &TestApp, table: &str) -> i64 {
    let statement = Statement::from_string(app.db.get_database_backend(), format!("SELECT COUNT(*) FROM {table}"));
    let row = app.db.query_one_raw(statement).await.expect("count").expect("a row");
    row.try_get_by_index::<i64>(0).expect("an integer")
}

/// The rows of `tables`, in order.
pub(crate) async fn counts(app: &TestApp, tables: &[&str]) -> Vec<i64> {
    let mut out = Vec::new();
    for table in tables {
        out.push(count(app, table).await);
    }
    out
}

pub(crate) async fn post(app: &TestApp, path: &str, token: Option<&str>, body: Value) -> (StatusCode, Value) {
    app.send(Method::POST, path, token, Some(&body.to_string())).await
}

/// The first error of a 422: its location and type.
pub(crate) fn first_error(body: &Value) -> (Value, Value) {
    let error = &body["detail"][0];
    (error["loc"].clone(), error["type"].clone())
}

async fn a_post_with_a_new_author(app: TestApp) {
    let before = counts(&app, &["authors", "posts"]).await;
    let mut stream = SseClient::connect(&app, "/api/posts/stream", BOB, None).await;
    assert_eq!(stream.next(WAIT).await.expect("ready").event, "ready");
    let body = json!({"title": "Nested", "body": "b", "author": {"name": "Grace Hopper"}});
    let (status, created) = post(&app, "/api/posts/", BOB, body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["author"]["name"], "Grace Hopper", "the author embedded as ?expand= does: {created}");
    assert_eq!(created["author_id"], created["author"]["id"], "{created}");
    assert!(created["author"].get("email").is_none(), "bob is no staff: {created}");
    assert_eq!(counts(&app, &["authors", "posts"]).await, [before[0] + 1, before[1] + 1]);
    let frame = stream.next(WAIT).await.expect("the post's event");
    assert_eq!((frame.event.as_str(), &frame.data["pk"]), ("created", &created["id"]), "{frame:?}");
    let (_, stored) = app.send(Method::GET, &format!("/authors/{}", created["author_id"]), ALICE, None).await;
    assert_eq!(stored["name"], "Grace Hopper", "{stored}");
}

async fn a_post_referencing_an_author(app: TestApp) {
    let before = count(&app, "posts").await;
    let (status, created) = post(&app, "/api/posts/", BOB, json!({"title": "Ref", "body": "b", "author": 1})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!((&created["author_id"], &created["author"]["id"]), (&json!(1), &json!(1)), "{created}");
    assert_eq!(count(&app, "authors").await, 2, "no author created");
    // A key nobody has, keys of the wrong type, both the relation and its foreign key: 422s, nothing written.
    for (author, kind) in [
        (json!(999), "does_not_exist"),
        (json!("abc"), "invalid_key"),
        (json!(true), "invalid_key"),
        (json!(1.5), "invalid_key"),
        (json!(null), "invalid_key"),
    ] {
        let (status, refused) =
            post(&app, "/api/posts/", BOB, json!({"title": "x", "body": "b", "author": author})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{author}: {refused}");
        assert_eq!(first_error(&refused), (json!(["body", "author"]), json!(kind)), "{author}: {refused}");
    }
    let both = json!({"title": "x", "body": "b", "author": 1, "author_id": 1});
    let (status, refused) = post(&app, "/api/posts/", BOB, both).await;
    assert_eq!((status, first_error(&refused).1), (StatusCode::UNPROCESSABLE_ENTITY, json!("nested_conflict")));
    assert_eq!(count(&app, "posts").await, before + 1);
}

fn posts_of(n: usize) -> Value {
    Value::Array((0..n).map(|i| json!({"title": format!("Part {i}"), "body": "b"})).collect())
}

async fn an_author_with_three_posts(app: TestApp) {
    let before = counts(&app, &["authors", "posts"]).await;
    let mut stream = SseClient::connect(&app, "/api/posts/stream", BOB, None).await;
    assert_eq!(stream.next(WAIT).await.expect("ready").event, "ready");
    let (status, created) = post(&app, "/authors/", BOB, json!({"name": "Bea", "posts": posts_of(3)})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let posts = created["posts"].as_array().unwrap_or_else(|| panic!("{created}"));
    // Embedded as `?expand=posts` embeds them: in the post ViewSet's order (`-id`), the last created first.
    let titles: Vec<&str> = posts.iter().map(|p| p["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Part 2", "Part 1", "Part 0"], "{created}");
    assert!(posts.iter().all(|p| p["author_id"] == created["id"]), "{created}");
    assert_eq!(counts(&app, &["authors", "posts"]).await, [before[0] + 1, before[1] + 3]);
    for record in posts.iter().rev() {
        let frame = stream.next(WAIT).await.expect("an event per post");
        assert_eq!((frame.event.as_str(), &frame.data["pk"]), ("created", &record["id"]), "{frame:?}");
    }
    // A child naming another author is refused at its field; naming this one is fine only as a new author has no key.
    let other = json!({"name": "Cy", "posts": [{"title": "t", "body": "b", "author_id": 1}]});
    let (status, refused) = post(&app, "/authors/", BOB, other).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(first_error(&refused), (json!(["body", "posts", "0", "author_id"]), json!("nested_conflict")));
    assert_eq!(counts(&app, &["authors", "posts"]).await, [before[0] + 1, before[1] + 3]);
}

async fn a_failing_row_writes_nothing(app: TestApp) {
    let before = counts(&app, &["authors", "posts"]).await;
    let long = "x".repeat(300);
    for (body, loc, token) in [
        // The second post has no body, the third a title too long: both located, nothing written.
        (
            json!({"name": "D", "posts": [{"title": "ok", "body": "b"}, {"title": "no body"}]}),
            json!(["body", "posts", "1", "body"]),
            BOB,
        ),
        (json!({"name": "D", "posts": [{"title": long, "body": "b"}]}), json!(["body", "posts", "0", "title"]), BOB),
        // A post with a new author who fails validation: nothing of either.
        (json!({"title": "t", "body": "b", "author": {"name": 5}}), json!(["body", "author", "name"]), BOB),
        // Staff-only `email` of a nested author, for a caller who is no staff.
        (
            json!({"title": "t", "body": "b", "author": {"name": "E", "email": "e@x"}}),
            json!(["body", "author", "email"]),
            BOB,
        ),
        // An unknown field of a nested post.
        (
            json!({"name": "D", "posts": [{"title": "t", "body": "b", "colour": 1}]}),
            json!(["body", "posts", "0", "colour"]),
            BOB,
        ),
    ] {
        let path = if body.get("posts").is_some() { "/authors/" } else { "/api/posts/" };
        let (status, refused) = post(&app, path, token, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {refused}");
        let locs: Vec<Value> = refused["detail"].as_array().unwrap().iter().map(|e| e["loc"].clone()).collect();
        assert!(locs.contains(&loc), "{body}: {refused}");
        assert_eq!(counts(&app, &["authors", "posts"]).await, before, "{body}: nothing written");
    }
    // Staff may set the email of the author they create.
    let body = json!({"title": "t", "body": "b", "author": {"name": "E", "email": "e@x.org"}});
    let (status, created) = post(&app, "/api/posts/", ALICE, body).await;
    assert_eq!((status, &created["author"]["email"]), (StatusCode::CREATED, &json!("e@x.org")), "{created}");
    // Anonymous: refused before anything is read, nothing written.
    let before = counts(&app, &["authors", "posts"]).await;
    let (status, _) = post(&app, "/authors/", None, json!({"name": "F", "posts": posts_of(1)})).await;
    assert!(matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN), "{status}");
    let (status, _) =
        post(&app, "/api/posts/", None, json!({"title": "t", "body": "b", "author": {"name": "G"}})).await;
    assert!(matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN), "{status}");
    assert_eq!(counts(&app, &["authors", "posts"]).await, before);
}

async fn bounds_and_shapes(app: TestApp) {
    let before = counts(&app, &["authors", "posts"]).await;
    let deep =
        json!({"name": "A", "posts": [{"title": "t", "body": "b", "author": {"name": "B", "posts": posts_of(1)}}]});
    let cycle = json!({"name": "A", "posts": [{"title": "t", "body": "b", "author": {"name": "B"}}]});
    for (path, body, loc, kind) in [
        ("/authors/", deep, json!(["body", "posts", "0", "author", "posts"]), "nested_too_deep"),
        ("/authors/", cycle, json!(["body", "posts", "0", "author"]), "nested_conflict"),
        ("/authors/", json!({"name": "A", "posts": posts_of(101)}), json!(["body"]), "too_many_nested_rows"),
        ("/authors/", json!({"name": "A", "posts": {"title": "t"}}), json!(["body", "posts"]), "nested_expected_array"),
        ("/authors/", json!({"name": "A", "posts": [1]}), json!(["body", "posts", "0"]), "nested_expected_object"),
        ("/api/posts/", json!({"title": "t", "body": "b", "author": [1]}), json!(["body", "author"]), "invalid_key"),
    ] {
        let (status, refused) = post(&app, path, BOB, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {refused}");
        assert_eq!(first_error(&refused), (loc, json!(kind)), "{body}: {refused}");
    }
    // Hostile: 10,000 rows, 50 levels deep.
    let (status, refused) = post(&app, "/authors/", BOB, json!({"name": "A", "posts": posts_of(10_000)})).await;
    assert_eq!((status, first_error(&refused).1), (StatusCode::UNPROCESSABLE_ENTITY, json!("too_many_nested_rows")));
    let mut deep = json!({"name": "last"});
    for level in 0..50 {
        deep = match level % 2 {
            0 => json!({"title": "t", "body": "b", "author": deep}),
            _ => json!({"name": "a", "posts": [deep]}),
        };
    }
    let (status, refused) = post(&app, "/authors/", BOB, deep).await;
    assert_eq!((status, first_error(&refused).1), (StatusCode::UNPROCESSABLE_ENTITY, json!("nested_too_deep")));
    assert_eq!(counts(&app, &["authors", "posts"]).await, before, "nothing written");
    // A body without a writable relation is the plain create, as before.
    let (status, created) = post(&app, "/api/posts/", BOB, json!({"title": "t", "body": "b", "author_id": 1})).await;
    assert_eq!((status, created.get("author")), (StatusCode::CREATED, None), "{created}");
}

/// `Prefer: return=minimal` and `Idempotency-Key` cover the whole nested write.
async fn minimal_and_idempotent(app: TestApp) {
    let before = counts(&app, &["authors", "posts"]).await;
    let body = json!({"name": "M", "posts": posts_of(2)}).to_string();
    let send = |prefer: Option<&'static str>, key: Option<&'static str>| {
        let body = body.clone();
        let app = &app;
        async move { writes::write(app, Method::POST, "/authors/", BOB, key.map(str::as_bytes), prefer, &body).await }
    };
    let minimal = send(Some("return=minimal"), None).await;
    assert_eq!((minimal.status, minimal.body.len()), (StatusCode::CREATED, 0));
    assert_eq!(minimal.headers["preference-applied"], "return=minimal");
    assert_eq!(counts(&app, &["authors", "posts"]).await, [before[0] + 1, before[1] + 2]);
    let first = send(None, Some("nested-key-1")).await;
    let again = send(None, Some("nested-key-1")).await;
    assert_eq!((first.status, again.status), (StatusCode::CREATED, StatusCode::CREATED));
    assert_eq!(again.headers["idempotent-replayed"], "true");
    assert_eq!(first.body, again.body);
    assert_eq!(counts(&app, &["authors", "posts"]).await, [before[0] + 2, before[1] + 4], "written once");
}

async fn each_row_through_its_own_permissions(app: TestApp) {
    let before = counts(&app, &["authors", "posts"]).await;
    // Open posts admit anyone, their authors are read-only here: a new author is refused, a reference is fine.
    let new_author = json!({"title": "t", "body": "b", "author": {"name": "H"}});
    let (status, refused) = post(&app, "/open/posts/", BOB, new_author.clone()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert!(refused.to_string().contains("body.author"), "located: {refused}");
    // Anonymous: the authors' refusal asks for credentials.
    let (status, refused) = post(&app, "/open/posts/", None, new_author).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    assert_eq!(counts(&app, &["authors", "posts"]).await, before);
    let (status, created) = post(&app, "/open/posts/", None, json!({"title": "t", "body": "b", "author": 2})).await;
    assert_eq!((status, &created["author"]["id"]), (StatusCode::CREATED, &json!(2)), "{created}");
}

async fn labels_through_the_join_table(app: TestApp) {
    let before = counts(&app, &["notes", "labels", "note_labels"]).await;
    let body = json!({"title": "tagged", "labels": [1, {"name": "new", "secret": false}]});
    let (status, created) = post(&app, "/notes/", None, body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let names: Vec<&str> = created["labels"].as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "{created}");
    assert!(names.contains(&"rust") && names.contains(&"new"), "{created}");
    assert_eq!(counts(&app, &["notes", "labels", "note_labels"]).await, [before[0] + 1, before[1] + 1, before[2] + 2]);
    let (_, read) = app.get(&format!("/notes/{}?expand=labels", created["id"])).await;
    assert_eq!(read["labels"].as_array().map(Vec::len), Some(2), "{read}");
    // The secret label is invisible to anonymous callers (the label ViewSet's row policy); a label twice; a key of
    // the wrong type; more rows than `max_nested_rows`: refused, nothing written.
    let before = counts(&app, &["notes", "labels", "note_labels"]).await;
    for (labels, loc, kind) in [
        (json!([1, 3]), json!(["body", "labels", "1"]), "does_not_exist"),
        (json!([2, 2]), json!(["body", "labels", "1"]), "duplicate"),
        (json!([true]), json!(["body", "labels", "0"]), "invalid_key"),
        (json!(["x"]), json!(["body", "labels", "0"]), "invalid_key"),
        (json!([1, 2, 1, 2, 1, 2]), json!(["body"]), "too_many_nested_rows"),
    ] {
        let (status, refused) = post(&app, "/notes/", None, json!({"title": "n", "labels": labels})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{labels}: {refused}");
        assert_eq!(first_error(&refused), (loc, json!(kind)), "{labels}: {refused}");
    }
    assert_eq!(counts(&app, &["notes", "labels", "note_labels"]).await, before, "nothing written");
    // Staff see the secret label, and may link it.
    let (status, created) = post(&app, "/notes/", ALICE, json!({"title": "secret", "labels": [3]})).await;
    assert_eq!((status, &created["labels"][0]["name"]), (StatusCode::CREATED, &json!("hidden")), "{created}");
}

async fn another_tenants_project_cannot_be_referenced(app: TestApp) {
    let (status, zulu) = post(&app, "/api/projects/", people::CAROL, json!({"name": "Zulu"})).await;
    assert_eq!(status, StatusCode::CREATED, "{zulu}");
    // Bob (acme) names globex's project: the same answer as a project that does not exist, nothing written.
    let before = counts(&app, &["projects", "tasks"]).await;
    for key in [zulu["id"].clone(), json!(9999)] {
        let (status, refused) = post(&app, "/nested/tasks/", people::BOB, json!({"title": "t", "project": key})).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
        assert_eq!(first_error(&refused), (json!(["body", "project"]), json!("does_not_exist")), "{refused}");
    }
    assert_eq!(counts(&app, &["projects", "tasks"]).await, before);
    // A new project is created through `ProjectViewSet`: stamped with bob's tenant, owned by him (its hook).
    let (status, task) =
        post(&app, "/nested/tasks/", people::BOB, json!({"title": "t", "project": {"name": "Rocket"}})).await;
    assert_eq!(status, StatusCode::CREATED, "{task}");
    assert_eq!(task["project"]["name"], "Rocket", "{task}");
    assert_eq!(task["project"]["owner"], "bob", "{task}");
    let project = format!("/api/projects/{}", task["project_id"]);
    let (status, _) = app.send(Method::GET, &project, people::CAROL, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "globex cannot see acme's new project");
    let (status, seen) = app.send(Method::GET, &project, people::ALICE, None).await;
    assert_eq!((status, &seen["tenant_id"]), (StatusCode::OK, &json!("acme")), "{seen}");
    // A task of a tenant-less caller: the project cannot be stamped, nothing written.
    let before = counts(&app, &["projects", "tasks"]).await;
    let (status, _) = post(&app, "/nested/tasks/", people::DAVE, json!({"title": "t", "project": {"name": "P"}})).await;
    assert!(status.is_client_error(), "{status}");
    assert_eq!(counts(&app, &["projects", "tasks"]).await, before);
}
