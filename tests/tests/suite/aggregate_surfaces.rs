//! Where the aggregate shows beside its answer, on SQLite, PostgreSQL and MariaDB: the OpenAPI operation typed per
//! ViewSet, the `<basename>_aggregate` AI tool (its JSON Schema, and each call answering what REST answers), one
//! statement per request, its own rate (`throttle(aggregate = ...)`), and an action at its path refused at
//! registration.

use reqwest::StatusCode;
use serde_json::json;
use viewset_core::prelude::*;
use viewset_core::throttle::Throttle;
use viewset_tests::ai_client::{mcp_answer, rest_answer};
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, recording};
use viewset_tests::identities::blog as ids;
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::blog_with_authed_studio;

use super::aggregate::aggregate;
use blog::entities::post;

on_every_database!(TestApp::blog => documented_per_viewset);
on_every_database!(blog_with_authed_studio => the_tool_is_typed_and_answers_as_rest);
on_every_database!(recorded => one_statement);
on_every_database!(rated => the_aggregate_has_a_rate_of_its_own);

async fn the_tool_is_typed_and_answers_as_rest(app: TestApp) {
    let (status, catalog) =
        viewset_tests::ai_client::ai_request(&app, reqwest::Method::GET, "/ai/tools", true, None, None).await;
    assert_eq!(status, StatusCode::OK);
    let tools = catalog["tools"].as_array().unwrap();
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{name}"));
    // Its own parameters (the declared fields named in their descriptions) and the list's filters.
    let aggregate = tool("posts_aggregate");
    let properties = aggregate["inputSchema"]["properties"].as_object().unwrap();
    for param in ["group_by", "count", "sum", "avg", "min", "max", "count_distinct", "order_by", "having", "limit"] {
        assert!(properties.contains_key(param), "posts_aggregate takes {param}: {aggregate}");
    }
    for param in ["tz", "views__gte", "search", "or"] {
        assert!(properties.contains_key(param), "posts_aggregate takes {param}: {aggregate}");
    }
    for param in ["offset", "ordering", "fields", "expand", "format"] {
        assert!(!properties.contains_key(param), "posts_aggregate has no {param}");
    }
    assert!(properties["sum"]["description"].as_str().unwrap().contains("views"), "{aggregate}");
    assert_eq!(properties["limit"]["maximum"], 200);
    let hints = (&aggregate["annotations"]["readOnlyHint"], &aggregate["_meta"]["path"]);
    assert_eq!(hints, (&json!(true), &json!("/api/posts/aggregate")));
    tool("authors_aggregate");
    // Each call answers what REST answers to the same caller: groups, a refused field, a hidden one.
    let calls = [
        (
            "posts_aggregate",
            json!({"group_by": "author_id", "sum": "views", "views__gte": 10}),
            "/api/posts/aggregate?group_by=author_id&sum=views&views__gte=10",
        ),
        ("posts_aggregate", json!({"sum": "title"}), "/api/posts/aggregate?sum=title"),
        ("authors_aggregate", json!({"group_by": "email"}), "/authors/aggregate?group_by=email"),
    ];
    for user in [None, ids::BOB, ids::ALICE] {
        for (tool, arguments, path) in &calls {
            let rest = rest_answer(&app, user, reqwest::Method::GET, path, None).await;
            let mcp = mcp_answer(&app, user, tool, arguments.clone()).await;
            assert_eq!(mcp, rest, "{tool} {arguments} as {user:?}");
        }
    }
    let (status, body) = mcp_answer(&app, ids::BOB, "posts_aggregate", json!({"group_by": "published"})).await;
    assert_eq!((status, body["groups"].as_array().map(Vec::len)), (200, Some(2)), "{body}");
}

async fn documented_per_viewset(app: TestApp) {
    let (_, document) = app.get("/openapi.json").await;
    let aggregates: Vec<&String> =
        document["paths"].as_object().unwrap().keys().filter(|path| path.ends_with("/aggregate")).collect();
    assert_eq!(aggregates, ["/api/posts/aggregate", "/authors/aggregate"]);
    let op = &document["paths"]["/api/posts/aggregate"]["get"];
    assert_eq!(op["operationId"], "posts_aggregate");
    let parameter = |name: &str| {
        op["parameters"].as_array().unwrap().iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("{name}"))
    };
    let group_by = parameter("group_by")["description"].as_str().unwrap();
    assert!(group_by.contains("author_id, published, created_at, created_at__hour|day|week|month|year"), "{group_by}");
    assert!(parameter("avg")["description"].as_str().unwrap().contains("rating, views"));
    // Patterns of exactly the declared names, so a generated request that matches them is one the server accepts.
    assert_eq!(
        parameter("group_by")["schema"]["pattern"],
        "^(author_id|published|created_at|created_at__(hour|day|week|month|year))\
         (,(author_id|published|created_at|created_at__(hour|day|week|month|year)))*$"
    );
    assert_eq!(parameter("sum")["schema"]["pattern"], "^(views)(,(views))*$");
    let having = parameter("having")["schema"]["pattern"].as_str().unwrap();
    assert!(having.starts_with("^(count|sum_views|avg_rating|avg_views|"), "{having}");
    assert_eq!(
        (&parameter("limit")["schema"]["maximum"], &parameter("limit")["schema"]["default"]),
        (&json!(200), &json!(200))
    );
    parameter("views__gte");
    assert!(op["parameters"].as_array().unwrap().iter().all(|p| p["name"] != "offset" && p["name"] != "ordering"));
    let group = &op["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["groups"]["items"];
    let property = |name: &str| group["properties"][name]["type"].clone();
    assert_eq!(property("author_id"), json!(["integer", "null"]));
    assert_eq!(property("count"), json!("integer"));
    assert_eq!(property("sum_views"), json!(["integer", "null"]));
    assert_eq!(property("avg_views"), json!(["number", "null"]));
    assert_eq!(property("max_created_at"), json!(["string", "null"]));
    assert_eq!(property("published"), json!(["boolean", "null"]));
    assert_eq!(property("created_at__week"), json!("string"));
    assert!(group["properties"].get("sum_rating").is_none(), "only what is declared");
    assert_eq!(
        op["responses"]["422"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/InputValidationError"
    );
    // Authors need an identity: the operation says so.
    assert!(
        document["paths"]["/authors/aggregate"]["get"]["security"].to_string().contains("bearerAuth"),
        "{}",
        document["paths"]["/authors/aggregate"]
    );
}

/// The blog, seeded, with every statement its routes run recorded.
async fn recorded(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let (recorded, statements) = recording(&db);
    (TestApp::serve(blog::app(recorded), db, database).await, statements)
}

async fn one_statement((app, statements): (TestApp, Statements)) {
    let query = "group_by=author_id,created_at__month&count&sum=views&avg=rating&having=count__gte:1&order_by=-count\
                 &published=true&search=e&or=(views__gt.1,rating__isnull.true)";
    statements.lock().unwrap().clear();
    let body = aggregate(&app, query).await;
    assert_eq!(body["groups"].as_array().map(Vec::len), Some(2), "{body}");
    let ran = statements.lock().unwrap().clone();
    assert_eq!(ran.len(), 1, "one statement: {ran:#?}");
    for part in ["GROUP BY", "HAVING", "ORDER BY", "LIMIT"] {
        assert!(ran[0].contains(part), "{part}: {}", ran[0]);
    }
}

/// The blog's posts with an aggregate rate of their own: 2 a minute, for every caller.
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    prefix = "/api/counted",
    basename = "counted",
    aggregates(group_by = ["published"]),
    throttle(aggregate = "2/minute")
)]
pub struct CountedPosts;

async fn rated(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let mut api = blog::api();
    api.include::<CountedPosts>().expect("CountedPosts registers");
    let router = blog::app_from(api, ServiceState::new(db.clone()).with_throttle(Throttle::new()));
    TestApp::serve(router, db, database).await
}

async fn the_aggregate_has_a_rate_of_its_own(app: TestApp) {
    for _ in 0..2 {
        let (status, body) = app.get("/api/counted/aggregate?group_by=published").await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let (status, body) = app.get("/api/counted/aggregate?group_by=published").await;
    assert_eq!(
        (status, body["code"].as_str(), body["scope"].as_str()),
        (StatusCode::TOO_MANY_REQUESTS, Some("throttled"), Some("aggregate")),
        "{body}"
    );
    // The list's budget is not the aggregate's.
    for _ in 0..3 {
        assert_eq!(app.get("/api/counted/").await.0, StatusCode::OK);
    }
}

/// Posts with aggregates and a collection action at the aggregate's path.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/api/clash", basename = "clash", aggregates(group_by = ["published"]))]
pub struct ClashingPosts;

#[viewset_core::actions]
impl ClashingPosts {
    /// `GET /api/clash/aggregate`: the aggregate's own path.
    #[action(path = "aggregate")]
    async fn mine(request: RequestContext) -> axum::Json<&'static str> {
        let _ = request;
        axum::Json("mine")
    }
}

#[test]
fn an_action_at_the_aggregate_path_is_a_registration_error() {
    let mut api = Api::new();
    let refused = api.include::<ClashingPosts>().expect_err("two GET /api/clash/aggregate");
    assert!(refused.to_string().contains("/api/clash/aggregate"), "{refused}");
}
