//! `POST /ai/query/execute` with an `aggregate`, on SQLite, PostgreSQL and MariaDB: it runs as the ViewSet's
//! `<basename>_aggregate` tool, so every caller gets exactly REST's groups (the list's filters and search applied,
//! hidden fields refused as unknown, another tenant's rows never counted), with the SQL it ran; bad input is a JSON
//! 422 at its place, never a 500.

use ::blog::entities::post;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_core::prelude::*;
use viewset_tests::ai_client::{query, rest_answer, tenants_with_authed_studio};
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::{blog, tenants};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{blog_with_authed_studio, with_auth};

on_every_database!(blog_with_authed_studio => answers_what_rest_answers_each_caller, bad_input_is_a_422);
on_every_database!(tenants_with_authed_studio => another_tenants_rows_are_never_counted);
on_every_database!(blog_and_a_viewset_without_aggregates => a_viewset_without_aggregates);

/// The aggregate query's answer, and REST's answer to the same request as the same caller.
async fn both(app: &TestApp, user: Option<&str>, body: Value, path: &str) -> ((StatusCode, Value), (u16, Value)) {
    (query(app, user, body).await, rest_answer(app, user, Method::GET, path, None).await)
}

async fn answers_what_rest_answers_each_caller(app: TestApp) {
    let cases = [
        (
            json!({"viewset": "posts", "aggregate": {"group_by": ["author_id"], "count": true, "sum": ["views"]}}),
            "/api/posts/aggregate?group_by=author_id&count=true&sum=views",
        ),
        (
            json!({"viewset": "PostViewSet", "filters": {"published": true}, "search": "engine",
                   "aggregate": {"group_by": "published", "avg": ["rating", "views"], "order_by": ["-avg_views"]}}),
            "/api/posts/aggregate?published=true&search=engine&group_by=published&avg=rating,views&order_by=-avg_views",
        ),
        (
            json!({"viewset": "posts", "aggregate": {"count": true, "having": ["count__gte:5"]}}),
            "/api/posts/aggregate?count=true&having=count__gte:5",
        ),
        (json!({"viewset": "authors", "aggregate": {"group_by": ["email"]}}), "/authors/aggregate?group_by=email"),
        (json!({"viewset": "authors", "aggregate": {"group_by": ["name"]}}), "/authors/aggregate?group_by=name"),
        // Refused by the route: an undeclared field, a limit over max_groups.
        (json!({"viewset": "posts", "aggregate": {"sum": "title"}}), "/api/posts/aggregate?sum=title"),
        (json!({"viewset": "posts", "aggregate": {"limit": 201}}), "/api/posts/aggregate?limit=201"),
    ];
    for user in [None, blog::BOB, blog::ALICE, blog::FORGED] {
        for (body, path) in &cases {
            let ((status, answer), (rest_status, rest)) = both(&app, user, body.clone(), path).await;
            assert_eq!(status.as_u16(), rest_status, "{body} as {user:?}: {answer}");
            if status.is_success() {
                assert_eq!((&answer["groups"], &answer["truncated"]), (&rest["groups"], &rest["truncated"]), "{body}");
                assert!(answer["tool"].as_str().unwrap().ends_with("_aggregate"), "{answer}");
                let sql = answer["sql"].as_array().expect("the statements");
                assert_eq!(sql.len(), 1, "one statement: {answer}");
                assert!(sql[0]["sql"].as_str().unwrap().contains("SELECT"), "{answer}");
                assert!(answer["time_ms"].as_f64().is_some());
                assert!(answer.get("rows").is_none(), "groups, not rows: {answer}");
            } else {
                assert_eq!(answer, rest, "{body} as {user:?}: the route's own refusal, unchanged");
            }
        }
    }
    // The numbers themselves, and who may group by a staff-only field.
    let (_, counted) = query(&app, None, cases[0].0.clone()).await;
    let counts: Vec<(i64, i64)> = counted["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["count"].as_i64().unwrap(), g["sum_views"].as_i64().unwrap()))
        .collect();
    assert_eq!(counts, [(1, 120), (2, 307)], "{counted}");
    let (status, filtered) = query(&app, None, cases[1].0.clone()).await;
    assert_eq!(
        (status, &filtered["groups"]),
        (StatusCode::OK, &json!([{"published": true, "avg_rating": 4.5, "avg_views": 120.0}]))
    );
    let (status, refused) = query(&app, blog::BOB, cases[3].0.clone()).await;
    assert_eq!(
        (status, &refused["detail"][0]["loc"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!(["query", "group_by"]))
    );
    let (status, staff) = query(&app, blog::ALICE, cases[3].0.clone()).await;
    assert_eq!((status, staff["groups"].as_array().map(Vec::len)), (StatusCode::OK, Some(2)), "{staff}");
    for user in [None, blog::FORGED] {
        let (status, _) = query(&app, user, cases[4].0.clone()).await;
        assert!(status.is_client_error() && status != StatusCode::UNPROCESSABLE_ENTITY, "{user:?}: {status}");
    }
}

/// A 422 of `/ai/query/execute` at `loc` with `kind`.
async fn refused(app: &TestApp, body: Value, loc: Value, kind: &str) {
    let (status, answer) = query(app, blog::BOB, body.clone()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {answer}");
    assert_eq!(
        (&answer["detail"][0]["loc"], answer["detail"][0]["type"].as_str()),
        (&loc, Some(kind)),
        "{body}: {answer}"
    );
}

async fn bad_input_is_a_422(app: TestApp) {
    let agg = |aggregate: Value| json!({"viewset": "posts", "aggregate": aggregate});
    let cases = [
        (json!({"viewset": "posts", "aggregate": "count"}), json!(["body", "aggregate"]), "type_error"),
        (agg(json!(["count"])), json!(["body", "aggregate"]), "type_error"),
        (agg(json!({"median": ["views"]})), json!(["body", "aggregate", "median"]), "unknown_parameter"),
        (agg(json!({"count": "yes"})), json!(["body", "aggregate", "count"]), "type_error"),
        (agg(json!({"limit": -3})), json!(["body", "aggregate", "limit"]), "type_error"),
        (agg(json!({"group_by": [1, 2]})), json!(["body", "aggregate", "group_by"]), "type_error"),
        (agg(json!({"group_by": []})), json!(["body", "aggregate", "group_by"]), "type_error"),
        (agg(json!({"tz": ["UTC"]})), json!(["body", "aggregate", "tz"]), "type_error"),
        (agg(json!({"sum": {"views": true}})), json!(["body", "aggregate", "sum"]), "type_error"),
        (
            json!({"viewset": "authors", "aggregate": {"sum": ["id"]}}),
            json!(["body", "aggregate", "sum"]),
            "unsupported_parameter",
        ),
        (
            json!({"viewset": "posts", "ordering": "-views", "aggregate": {}}),
            json!(["body", "ordering"]),
            "unsupported_parameter",
        ),
        (json!({"viewset": "posts", "limit": 2, "aggregate": {}}), json!(["body", "limit"]), "unsupported_parameter"),
        (json!({"viewset": "posts", "offset": 2, "aggregate": {}}), json!(["body", "offset"]), "unsupported_parameter"),
        (
            json!({"viewset": "posts", "filters": {"group_by": "published"}, "aggregate": {}}),
            json!(["body", "filters", "group_by"]),
            "unknown_filter",
        ),
        (
            json!({"viewset": "posts", "filters": {"nope": 1}, "aggregate": {}}),
            json!(["body", "filters", "nope"]),
            "unknown_filter",
        ),
        (json!({"viewset": "nowhere", "aggregate": {}}), json!(["body", "viewset"]), "unknown_viewset"),
        (json!({"viewset": "posts", "aggregate": {}, "explain": true}), json!(["body", "explain"]), "debug_only"),
        (json!({"viewset": "posts", "aggregate": {}, "sql": "SELECT 1"}), json!(["body"]), "invalid_query"),
        // What only the route knows is its own 422, at the query parameter.
        (agg(json!({"group_by": ["title"]})), json!(["query", "group_by"]), "unknown_field"),
        (agg(json!({"group_by": ["created_at__fortnight"]})), json!(["query", "group_by"]), "unknown_bucket"),
        (
            agg(json!({"group_by": "author_id,published,created_at,created_at__day,created_at__month"})),
            json!(["query", "group_by"]),
            "too_many_group_keys",
        ),
        (agg(json!({"having": ["sum_views__gte:1"]})), json!(["query", "having"]), "unknown_field"),
    ];
    for (body, loc, kind) in cases {
        refused(&app, body, loc, kind).await;
    }
    // An empty aggregate is the count of every row the caller may list.
    let (status, all) = query(&app, None, agg(json!({}))).await;
    assert_eq!((status, &all["groups"]), (StatusCode::OK, &json!([{"count": 3}])), "{all}");
    // Without the Studio credential: refused by the gate, whatever the body.
    let (status, _) = viewset_tests::ai_client::ai_request(
        &app,
        Method::POST,
        "/ai/query/execute",
        false,
        blog::ALICE,
        Some(&agg(json!({"count": true}))),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

async fn another_tenants_rows_are_never_counted(app: TestApp) {
    for (token, name) in [(tenants::BOB, "Rocket"), (tenants::ALICE, "Anvil"), (tenants::CAROL, "Dynamite")] {
        let (status, body) =
            rest_answer(&app, token, Method::POST, "/api/projects/", Some(&json!({"name": name}))).await;
        assert_eq!(status, 201, "{body}");
    }
    let ask = json!({"viewset": "projects", "aggregate": {"group_by": ["owner"], "count": true}});
    let (status, acme) = query(&app, tenants::BOB, ask.clone()).await;
    assert_eq!(
        (status, &acme["groups"]),
        (StatusCode::OK, &json!([{"owner": "alice", "count": 1}, {"owner": "bob", "count": 1}]))
    );
    let (_, globex) = query(&app, tenants::CAROL, ask.clone()).await;
    assert_eq!(globex["groups"], json!([{"owner": "carol", "count": 1}]));
    // The tenant column is no group key and no filter of the tool.
    let (status, body) =
        query(&app, tenants::CAROL, json!({"viewset": "projects", "aggregate": {"group_by": ["tenant_id"]}})).await;
    assert_eq!((status, &body["detail"][0]["loc"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!(["query", "group_by"])));
    // No tenant, no identity, an unknown token: refused as REST refuses them.
    for token in [tenants::DAVE, None, tenants::FORGED] {
        let (status, body) = query(&app, token, ask.clone()).await;
        let (rest, _) =
            rest_answer(&app, token, Method::GET, "/api/projects/aggregate?group_by=owner&count=true", None).await;
        assert_eq!(status.as_u16(), rest, "{token:?}: {body}");
        assert!(status.is_client_error() && !body.to_string().contains("carol"), "{token:?}: {body}");
    }
}

/// The blog's posts again, without `aggregates(...)`.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/api/plain", basename = "plain")]
pub struct PlainPosts;

/// The seeded blog with Studio, and `PlainPosts` registered with Studio too.
async fn blog_and_a_viewset_without_aggregates(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let mut api = ::blog::api();
    api.include::<PlainPosts>().expect("registers");
    let mut extra = Api::new();
    extra.include::<PlainPosts>().expect("registers");
    let studio = ::blog::studio(with_auth()).api(&extra).viewset::<PlainPosts>();
    let app = ::blog::app_from(api, ServiceState::new(db.clone()));
    TestApp::serve(studio.mount(app, db.clone()).expect("valid settings"), db, database).await
}

async fn a_viewset_without_aggregates(app: TestApp) {
    let (status, listed) = query(&app, None, json!({"viewset": "PlainPosts"})).await;
    assert_eq!(status, StatusCode::OK, "its list runs: {listed}");
    let ask = json!({"viewset": "PlainPosts", "aggregate": {"count": true}});
    let (status, body) = query(&app, None, ask).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        (&body["detail"][0]["loc"], &body["detail"][0]["type"]),
        (&json!(["body", "aggregate"]), &json!("no_aggregates"))
    );
    // Its description says so; the posts' says what may be grouped and computed.
    let context = viewset_tests::studio_fixtures::json(&app, "/ai/context/full").await;
    let described =
        |name: &str| context["viewsets"].as_array().unwrap().iter().find(|v| v["name"] == name).cloned().unwrap();
    assert_eq!(described("PlainPosts")["aggregates"], Value::Null);
    let posts = described("PostViewSet")["aggregates"].clone();
    assert_eq!(posts["path"], "/api/posts/aggregate");
    assert_eq!(
        posts["group_by"],
        json!([{"field": "author_id", "buckets": []}, {"field": "published", "buckets": []},
               {"field": "created_at", "buckets": ["hour", "day", "week", "month", "year"]}])
    );
    assert_eq!(posts["functions"]["avg"], json!(["rating", "views"]));
    assert_eq!((&posts["max_groups"], &posts["max_group_keys"]), (&json!(200), &json!(4)));
    let admin = &context["admin"]["model_browser"]["models"];
    assert_eq!(admin[0]["aggregates"], posts, "the Model Browser's models carry it too");
}
