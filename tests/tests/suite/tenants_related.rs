//! The tenants example's projects, reached from tasks through a related filter, a related ordering and an embedded
//! relation: a project of another tenant is never revealed, not through a match, a count, the order of a page nor an
//! embedded record. The task board below lists every tenant's tasks on purpose (it has no row policy), so each
//! answer depends only on the related ViewSet's policy, the tenants example's `ProjectViewSet` (`tenant_field`).
//! On SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tenants::entities::{project, task};
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, TestApp, TestDb, ids};
use viewset_tests::identities::tenants::{BOB, CAROL};
use viewset_tests::on_every_database;

/// Every tenant's tasks, with their project through the related policy.
#[derive(ModelViewSet)]
#[viewset(
    model = task::Entity,
    prefix = "/board",
    filter_backends = [ServiceFilterBackend, OrderingFilter],
    relations(project = project::Entity),
    filterable_fields = ["title", "project__name"],
    ordering_fields = ["id", "project__name"],
    expandable = ["project"],
)]
pub struct TaskBoard;

async fn board(backend: Backend) -> TestApp {
    let database = TestDb::create(backend).await;
    let db = tenants::connect_and_migrate(&database.url).await.expect("migrate the tenants example");
    let mut api = tenants::api();
    api.include::<TaskBoard>().expect("TaskBoard registers once");
    let nested = axum::Router::new()
        .route(tenants::TASKS_PATH, axum::routing::get(tenants::nested::list_tasks).post(tenants::nested::create_task));
    let router =
        api.into_router().merge(nested).with_state(ServiceState::new(db.clone())).layer(tenants::auth::layer());
    TestApp::serve(router, db, database).await
}

on_every_database!(board => another_tenants_project_is_never_revealed);

async fn project_with_task(app: &TestApp, token: Option<&str>, name: &str, title: &str) -> i64 {
    let body = json!({"name": name}).to_string();
    let (status, project) = app.send(Method::POST, "/api/projects/", token, Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{project}");
    let path = format!("/api/projects/{}/tasks", project["id"]);
    let (status, task) = app.send(Method::POST, &path, token, Some(&json!({"title": title}).to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{task}");
    task["id"].as_i64().unwrap()
}

async fn page(app: &TestApp, query: &str, token: Option<&str>) -> Value {
    let (status, body) = app.send(Method::GET, &format!("/board/?{query}"), token, None).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    body
}

async fn another_tenants_project_is_never_revealed(app: TestApp) {
    // globex's tasks come first by id, under names that would sort around acme's "Rocket" if they were seen.
    let zulu = project_with_task(&app, CAROL, "Zulu", "globex one").await;
    let alpha = project_with_task(&app, CAROL, "Alpha", "globex two").await;
    let rocket = project_with_task(&app, BOB, "Rocket", "acme one").await;
    // The board shows every task to both (it has no policy of its own).
    assert_eq!(ids(&page(&app, "ordering=id", BOB).await), vec![zulu, alpha, rocket]);

    // A match and its count: bob finds his own project by name, never globex's.
    for (query, expected) in [
        ("project__name=Rocket", vec![rocket]),
        ("project__name=Zulu", vec![]),
        ("project__name__in=Zulu,Alpha,Rocket", vec![rocket]),
        ("project__name__icontains=u", vec![]),
        ("project__name__isnull=false", vec![rocket]),
    ] {
        let body = page(&app, query, BOB).await;
        assert_eq!((ids(&body), body["count"].as_i64()), (expected.clone(), Some(expected.len() as i64)), "{query}");
    }
    let carol = page(&app, "project__name__icontains=u", CAROL).await;
    assert_eq!(ids(&carol), vec![zulu], "carol's own project matches for her");

    // The order: for bob globex's projects have no name (NULLs first ascending, last descending, then by id), so
    // "Alpha" and "Zulu" do not move globex's tasks around his.
    assert_eq!(ids(&page(&app, "ordering=project__name,id", BOB).await), vec![zulu, alpha, rocket]);
    assert_eq!(ids(&page(&app, "ordering=-project__name,id", BOB).await), vec![rocket, zulu, alpha]);
    // carol sees names for hers only: "Alpha" < "Zulu", acme's task has none.
    assert_eq!(ids(&page(&app, "ordering=project__name,id", CAROL).await), vec![rocket, alpha, zulu]);

    // An embedded project: bob's own, globex's is null.
    let body = page(&app, "ordering=id&expand=project", BOB).await;
    let projects: Vec<Value> =
        body["results"].as_array().unwrap().iter().map(|t| t["project"]["name"].clone()).collect();
    assert_eq!(projects, vec![Value::Null, Value::Null, json!("Rocket")]);
    // In a group too.
    let body = page(&app, "or=(project__name.Zulu,project__name.Rocket)", BOB).await;
    assert_eq!((ids(&body), body["count"].as_i64()), (vec![rocket], Some(1)));
}
