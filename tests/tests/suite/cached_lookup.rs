//! Retrieve reads through a lookup statement built once per ViewSet (`store::statements`) when the scope adds nothing:
//! each key still answers its own record, the SQL is the same text every time (without a `LIMIT` when the lookup
//! field is the primary key, with one otherwise), and a required row policy that applies to this caller still scopes
//! the read (404), while one that does not apply leaves the cached read. The routes answer the same under an
//! application state of the application's own (`ServiceState: FromRef<AppState>`). On every database.

use reqwest::{Method, StatusCode};
use viewset_core::prelude::*;
use viewset_tests::fixtures::paged::PublishedToAnonymous;
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, recording};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

use blog::entities::post;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/plain/posts")]
struct PlainPosts;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/scoped/posts", policy = [PublishedToAnonymous])]
struct ScopedPosts;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/slugged/posts", lookup_field = "slug")]
struct SluggedPosts;

/// An application's own state, from which the routes take their `ServiceState`.
#[derive(Clone)]
struct AppState {
    service: ServiceState,
    #[allow(dead_code)] // what an application keeps beside the service's state
    name: &'static str,
}

impl axum::extract::FromRef<AppState> for ServiceState {
    fn from_ref(state: &AppState) -> ServiceState {
        state.service.clone()
    }
}

async fn recorded(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let (recorded, statements) = recording(&db);
    let router = include_viewset::<ScopedPosts, _>(include_viewset::<PlainPosts, _>(axum::Router::new()));
    let router = include_viewset::<SluggedPosts, _>(router);
    let app = router.with_state(ServiceState::new(recorded)).layer(blog::auth::layer());
    (TestApp::serve(app, db, database).await, statements)
}

async fn own_state(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let state = AppState { service: ServiceState::new(db.clone()), name: "blog" };
    let router = include_viewset::<ScopedPosts, AppState>(include_viewset::<PlainPosts, AppState>(axum::Router::new()));
    TestApp::serve(router.with_state(state).layer(blog::auth::layer()), db, database).await
}

on_every_database!(recorded => each_key_reads_its_record_through_one_statement);
on_every_database!(own_state => routes_answer_the_same_under_the_applications_own_state);

async fn each_key_reads_its_record_through_one_statement((app, statements): (TestApp, Statements)) {
    let mut texts = Vec::new();
    for id in [1, 2, 3, 1] {
        statements.lock().unwrap().clear();
        let (status, body) = app.send(Method::GET, &format!("/plain/posts/{id}"), None, None).await;
        assert_eq!((status, body["id"].as_i64()), (StatusCode::OK, Some(id)), "{body}");
        let sql = statements.lock().unwrap().clone();
        assert_eq!(sql.len(), 1, "{sql:?}");
        texts.push(sql[0].clone());
    }
    // The statement with its values inlined: the key differs, the rest is the same. The key is the primary key, which
    // matches one row at most: no `LIMIT` to bind.
    assert_eq!(texts[0], texts[3]);
    assert_ne!(texts[0], texts[1]);
    let without_key = |s: &str, id: i64| s.strip_suffix(&format!("= {id}")).map(str::to_string);
    assert_eq!(without_key(&texts[0], 1), without_key(&texts[1], 2), "{texts:?}");
    assert!(without_key(&texts[0], 1).is_some() && !texts[0].contains("LIMIT"), "{texts:?}");
    // A lookup field that is not the primary key keeps its `LIMIT`: the first match answers.
    statements.lock().unwrap().clear();
    let (status, _) = app.send(Method::GET, "/slugged/posts/no-such-slug", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let sql = statements.lock().unwrap().clone();
    assert!(sql.len() == 1 && sql[0].contains("LIMIT 1"), "{sql:?}");
    let (status, _) = app.send(Method::GET, "/plain/posts/404", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The policy applies to anonymous callers: the draft is outside their scope, every time.
    for _ in 0..2 {
        let (status, body) = app.send(Method::GET, "/scoped/posts/3", None, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    }
    let (status, body) = app.send(Method::GET, "/scoped/posts/1", None, None).await;
    assert_eq!((status, body["id"].as_i64()), (StatusCode::OK, Some(1)), "{body}");
    // It does not apply to a signed-in caller, who reads the draft.
    let (status, body) = app.send(Method::GET, "/scoped/posts/3", BOB, None).await;
    assert_eq!((status, body["id"].as_i64()), (StatusCode::OK, Some(3)), "{body}");
    let (status, _) = app.send(Method::GET, "/scoped/posts/3", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "the cached read of a signed-in caller does not leak to others");
}

async fn routes_answer_the_same_under_the_applications_own_state(app: TestApp) {
    let (status, body) = app.send(Method::GET, "/plain/posts/2", None, None).await;
    assert_eq!((status, body["id"].as_i64()), (StatusCode::OK, Some(2)), "{body}");
    let (status, body) = app.send(Method::GET, "/plain/posts/404", None, None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{body}");
    let (status, body) = app.send(Method::GET, "/scoped/posts/3", None, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = app.send(Method::GET, "/scoped/posts/3", BOB, None).await;
    assert_eq!((status, body["id"].as_i64()), (StatusCode::OK, Some(3)), "{body}");
    let (status, body) = app.send(Method::GET, "/plain/posts/?limit=2", None, None).await;
    assert_eq!((status, body["results"].as_array().map(Vec::len)), (StatusCode::OK, Some(2)), "{body}");
}
