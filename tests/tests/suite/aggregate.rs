//! `GET <prefix>/aggregate` over HTTP on SQLite, PostgreSQL and MariaDB: the same groups and typed numbers on all
//! three for the same rows (time buckets included), the list's filters, `or=` groups, related filters and search
//! narrowing the rows, `order_by`, `having`, `limit` and `truncated`, hostile parameters answered 422 at the
//! parameter, hidden fields refused exactly as unknown ones, and the tenants example's scope: another tenant's rows
//! and another owner's notes are never counted. Its document, tool, statement count and rate: `aggregate_surfaces`.

use chrono::{DateTime, Utc};
use reqwest::{Method, StatusCode};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};
use viewset_tests::harness::TestApp;
use viewset_tests::identities::blog::{ALICE, BOB, FORGED};
use viewset_tests::identities::tenants;
use viewset_tests::on_every_database;

use blog::entities::post;

on_every_database!(TestApp::blog =>
    groups_and_typed_numbers,
    time_buckets_in_utc,
    the_lists_filters_narrow_the_rows,
    order_having_limit,
    hostile_parameters,
    hidden_fields_answer_as_unknown,
    time_zones,
    huge_values_never_answer_500,
);
on_every_database!(TestApp::tenants => another_tenants_rows_are_never_counted, owner_private_rows_are_never_counted);

/// The seeded posts' creation times, fixed so the buckets are known: Ada's post late on Saturday 28 March 2026
/// (UTC), Alan's published post just after midnight, before Europe/Berlin's clocks go forward (01:00 UTC), his
/// draft on Thursday 2 April.
pub(crate) async fn fixed_times(app: &TestApp) -> (i64, i64) {
    let rows = set_times(app, &["2026-03-28T23:30:00Z", "2026-03-29T00:30:00Z", "2026-04-02T12:00:00Z"]).await;
    assert_eq!(rows.len(), 3, "the blog's seed");
    (i64::from(rows[0].author_id), i64::from(rows[1].author_id))
}

/// Sets the creation time of the seeded posts, in their order, to `times` (a post past them keeps its own);
/// returns the posts.
async fn set_times(app: &TestApp, times: &[&str]) -> Vec<post::Model> {
    let rows = post::Entity::find().all(&app.db).await.expect("posts");
    for (row, time) in rows.iter().zip(times) {
        let time: DateTime<Utc> = time.parse().expect("a time");
        post::Entity::update_many()
            .col_expr(post::Column::CreatedAt, Expr::value(time))
            .filter(post::Column::Id.eq(row.id))
            .exec(&app.db)
            .await
            .expect("set created_at");
    }
    rows
}

pub(crate) async fn aggregate(app: &TestApp, query: &str) -> Value {
    let (status, body) = app.get(&format!("/api/posts/aggregate?{query}")).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    body
}

/// A 422 at `["query", param]` of `type`.
async fn refused(app: &TestApp, token: Option<&str>, path: &str, param: &str, kind: &str) -> Value {
    let (status, body) = app.send(Method::GET, path, token, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {body}");
    assert_eq!(body["detail"][0]["loc"], json!(["query", param]), "{path}: {body}");
    assert_eq!(body["detail"][0]["type"], kind, "{path}: {body}");
    body
}

async fn groups_and_typed_numbers(app: TestApp) {
    let (ada, alan) = fixed_times(&app).await;
    let body = aggregate(
        &app,
        "group_by=author_id&count&sum=views&avg=rating,views&min=views&max=created_at,rating&count_distinct=author_id",
    )
    .await;
    assert_eq!(
        body,
        json!({"groups": [
            {"author_id": ada, "count": 1, "sum_views": 120, "avg_rating": 4.5, "avg_views": 120.0, "min_views": 120,
             "max_created_at": "2026-03-28T23:30:00Z", "max_rating": 4.5, "count_distinct_author_id": 1},
            {"author_id": alan, "count": 2, "sum_views": 307, "avg_rating": 5.0, "avg_views": 153.5, "min_views": 7,
             "max_created_at": "2026-04-02T12:00:00Z", "max_rating": 5.0, "count_distinct_author_id": 1},
        ], "truncated": false}),
    );
    assert!(body["groups"][0]["sum_views"].is_i64() && body["groups"][0]["avg_views"].is_f64(), "typed: {body}");
    // Booleans are booleans; nothing asked for is each group's count; no group key is one group.
    let body = aggregate(&app, "group_by=published").await;
    assert_eq!(body["groups"], json!([{"published": false, "count": 1}, {"published": true, "count": 2}]));
    let body = aggregate(&app, "sum=views&avg=rating").await;
    assert_eq!(body["groups"], json!([{"sum_views": 427, "avg_rating": 4.75}]));
    // A NULL is a group of its own (first ascending), and an aggregate of NULLs is null.
    let body = aggregate(&app, "group_by=author_id,published&max=rating&order_by=max_rating").await;
    assert_eq!(
        body["groups"],
        json!([
            {"author_id": alan, "published": false, "max_rating": null},
            {"author_id": ada, "published": true, "max_rating": 4.5},
            {"author_id": alan, "published": true, "max_rating": 5.0},
        ])
    );
    // An empty set: no groups, or one group of zero without keys.
    let body = aggregate(&app, "group_by=author_id&views__gt=1000").await;
    assert_eq!(body, json!({"groups": [], "truncated": false}));
    let body = aggregate(&app, "count&sum=views&views__gt=1000").await;
    assert_eq!(body["groups"], json!([{"count": 0, "sum_views": null}]));
}

async fn time_buckets_in_utc(app: TestApp) {
    fixed_times(&app).await;
    for (bucket, expected) in [
        ("hour", json!([["2026-03-28T23:00", 1], ["2026-03-29T00:00", 1], ["2026-04-02T12:00", 1]])),
        ("day", json!([["2026-03-28", 1], ["2026-03-29", 1], ["2026-04-02", 1]])),
        ("week", json!([["2026-03-23", 2], ["2026-03-30", 1]])),
        ("month", json!([["2026-03", 2], ["2026-04", 1]])),
        ("year", json!([["2026", 3]])),
    ] {
        let key = format!("created_at__{bucket}");
        let body = aggregate(&app, &format!("group_by={key}&count&tz=UTC")).await;
        let groups: Vec<Value> =
            body["groups"].as_array().unwrap().iter().map(|g| json!([g[&key], g["count"]])).collect();
        assert_eq!(json!(groups), expected, "{bucket}: {body}");
    }
    let body = aggregate(&app, "group_by=created_at__month,published&sum=views&order_by=-created_at__month").await;
    assert_eq!(
        body["groups"],
        json!([
            {"created_at__month": "2026-04", "published": false, "sum_views": 7},
            {"created_at__month": "2026-03", "published": true, "sum_views": 420},
        ])
    );
}

async fn the_lists_filters_narrow_the_rows(app: TestApp) {
    let (ada, alan) = fixed_times(&app).await;
    for (query, expected) in [
        ("published=true", json!([[ada, 1], [alan, 1]])),
        ("views__gte=100", json!([[ada, 1], [alan, 1]])),
        ("or=(views__lt.10,rating__gte.4.9)", json!([[alan, 2]])),
        // Authors are listed to identified callers only: for an anonymous one the related filter matches nothing,
        // as on the list.
        ("author__name=Ada%20Lovelace", json!([])),
        ("search=engine", json!([[ada, 1]])),
        ("created_at__gte=2026-03-29T00:00:00Z", json!([[alan, 2]])),
    ] {
        let body = aggregate(&app, &format!("group_by=author_id&count&{query}")).await;
        let groups: Vec<Value> =
            body["groups"].as_array().unwrap().iter().map(|g| json!([g["author_id"], g["count"]])).collect();
        assert_eq!(json!(groups), expected, "{query}: {body}");
    }
    let (_, body) =
        app.send(Method::GET, "/api/posts/aggregate?group_by=author_id&author__name=Ada%20Lovelace", BOB, None).await;
    assert_eq!(body["groups"], json!([{"author_id": ada, "count": 1}]));
    let (_, list) = app.get("/api/posts/?author__name=Ada%20Lovelace").await;
    assert_eq!(list["count"], 0, "the list agrees");
    // A list parameter is read as the list reads it: a value it refuses is refused here the same way.
    let (list, refusal) = app.get("/api/posts/?views__gte=lots&rating=high").await;
    let (status, body) = app.get("/api/posts/aggregate?group_by=author_id&views__gte=lots&rating=high").await;
    assert_eq!((status, &body), (list, &refusal));
}

async fn order_having_limit(app: TestApp) {
    let (ada, alan) = fixed_times(&app).await;
    let body = aggregate(&app, "group_by=author_id&sum=views&order_by=-sum_views&limit=1").await;
    assert_eq!(body, json!({"groups": [{"author_id": alan, "sum_views": 307}], "truncated": true}));
    let body = aggregate(&app, "group_by=author_id&sum=views&order_by=-sum_views&limit=2").await;
    assert_eq!(body["truncated"], false);
    assert_eq!(body["groups"][1], json!({"author_id": ada, "sum_views": 120}));
    let body = aggregate(&app, "group_by=author_id&count&having=count__gte:2").await;
    assert_eq!(body["groups"], json!([{"author_id": alan, "count": 2}]));
    let body = aggregate(&app, "group_by=author_id&count&avg=rating&having=count__exact:1,avg_rating__lt:4.6").await;
    assert_eq!(body["groups"], json!([{"author_id": ada, "count": 1, "avg_rating": 4.5}]));
    let body = aggregate(&app, "group_by=published&count&order_by=-published").await;
    assert_eq!(body["groups"][0]["published"], true);
}

async fn hostile_parameters(app: TestApp) {
    let path = |query: &str| format!("/api/posts/aggregate?{query}");
    for (query, param, kind) in [
        ("group_by=nope", "group_by", "unknown_field"),
        ("group_by=title", "group_by", "unknown_field"),
        ("group_by=author_id);DROP TABLE posts;--", "group_by", "unknown_field"),
        ("group_by=author_id,,published", "group_by", "invalid_list"),
        ("group_by=author_id,author_id", "group_by", "duplicate_name"),
        (
            "group_by=author_id,published,created_at,created_at__day,created_at__month",
            "group_by",
            "too_many_group_keys",
        ),
        ("group_by=created_at__minute", "group_by", "unknown_bucket"),
        ("group_by=published__day", "group_by", "unknown_bucket"),
        ("sum=title", "sum", "unknown_field"),
        ("sum=rating", "sum", "unknown_field"),
        ("avg=body", "avg", "unknown_field"),
        ("count_distinct=slug", "count_distinct", "unknown_field"),
        ("count=maybe", "count", "bool_parsing"),
        ("order_by=title", "order_by", "unknown_field"),
        ("group_by=author_id&order_by=sum_views", "order_by", "unknown_field"),
        ("having=count", "having", "invalid_having"),
        ("having=count__between:1", "having", "invalid_having"),
        ("having=sum_views__gt:1", "having", "unknown_field"),
        ("count&having=count__gt:1e400", "having", "float_parsing"),
        ("limit=0", "limit", "greater_than_equal"),
        ("limit=201", "limit", "less_than_equal"),
        ("limit=ten", "limit", "int_parsing"),
        ("tz=Europe/Berlin';--", "tz", "unknown_time_zone"),
        ("tz=", "tz", "unknown_time_zone"),
        ("group_by=author_id&group_by=published", "group_by", "duplicate_parameter"),
    ] {
        refused(&app, None, &path(query), param, kind).await;
    }
    let (status, body) = app.send(Method::POST, "/api/posts/aggregate", ALICE, Some("{}")).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{body}");
    let (_, list) = app.get("/api/posts/").await;
    assert_eq!(list["count"], 3, "nothing was dropped");
}

async fn hidden_fields_answer_as_unknown(app: TestApp) {
    // Authors need an identity: the aggregate refuses whom the list refuses.
    for token in [None, FORGED] {
        let (list, _) = app.send(Method::GET, "/authors/", token, None).await;
        let (status, body) = app.send(Method::GET, "/authors/aggregate?group_by=name", token, None).await;
        assert!(list.is_client_error() && status == list, "{token:?}: {status} {body}");
    }
    // `email` is staff-only: for Bob it is no field at all, the same answer as a name that does not exist.
    let unknown = refused(&app, BOB, "/authors/aggregate?group_by=nope", "group_by", "unknown_field").await;
    let hidden = refused(&app, BOB, "/authors/aggregate?group_by=email", "group_by", "unknown_field").await;
    let message = |body: &Value, name: &str| body["detail"][0]["msg"].as_str().unwrap().replace(name, "<name>");
    assert_eq!(message(&hidden, "email"), message(&unknown, "nope"));
    let choices =
        |body: &Value| body["detail"][0]["msg"].as_str().unwrap().split("accepts:").nth(1).unwrap().to_string();
    assert_eq!(choices(&hidden).trim(), "name", "a hidden field is not offered: {hidden}");
    refused(&app, BOB, "/authors/aggregate?count_distinct=email", "count_distinct", "unknown_field").await;
    // Filtering by it is ignored for Bob, as on the list.
    let (status, body) = app.send(Method::GET, "/authors/aggregate?count&email=nobody", BOB, None).await;
    assert_eq!((status, &body["groups"]), (StatusCode::OK, &json!([{"count": 2}])), "{body}");
    // Staff see it.
    let (status, body) =
        app.send(Method::GET, "/authors/aggregate?group_by=email&count_distinct=email", ALICE, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body["groups"],
        json!([
            {"email": "ada@example.com", "count_distinct_email": 1},
            {"email": "alan@example.com", "count_distinct_email": 1},
        ])
    );
}

async fn time_zones(app: TestApp) {
    // 01:30 UTC on 29 March 2026 is 03:30 in Berlin: the clocks went forward at 01:00 UTC.
    set_times(&app, &["2026-03-28T23:30:00Z", "2026-03-29T00:30:00Z", "2026-03-29T01:30:00Z"]).await;
    // The same buckets on every database: PostgreSQL applies the zone, the others get its offsets in the statement.
    let body = aggregate(&app, "group_by=created_at__hour&count&tz=Europe/Berlin").await;
    assert_eq!(
        body["groups"],
        json!([
            {"created_at__hour": "2026-03-29T00:00", "count": 1},
            {"created_at__hour": "2026-03-29T01:00", "count": 1},
            {"created_at__hour": "2026-03-29T03:00", "count": 1},
        ])
    );
    let body = aggregate(&app, "group_by=created_at__day&count&tz=America/New_York").await;
    assert_eq!(body["groups"], json!([{"created_at__day": "2026-03-28", "count": 3}]));
    // Names are read as the time zone database spells them, whatever their case.
    let body = aggregate(&app, "group_by=created_at__day&count&tz=europe/berlin").await;
    assert_eq!(body["groups"], json!([{"created_at__day": "2026-03-29", "count": 3}]));
    // The clocks go back at 01:00 UTC on 25 October: 00:30 and 01:30 UTC are both 02:30 in Berlin, one hour
    // bucket there and two in UTC; 23:30 UTC that Sunday is Monday in Berlin, a week of its own.
    set_times(&app, &["2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", "2026-10-25T23:30:00Z"]).await;
    let body = aggregate(&app, "group_by=created_at__hour&count&tz=Europe/Berlin").await;
    assert_eq!(
        body["groups"],
        json!([
            {"created_at__hour": "2026-10-25T02:00", "count": 2},
            {"created_at__hour": "2026-10-26T00:00", "count": 1},
        ])
    );
    let body = aggregate(&app, "group_by=created_at__hour&count").await;
    assert_eq!(body["groups"].as_array().map(Vec::len), Some(3), "three hours in UTC: {body}");
    let weeks = "group_by=created_at__week&count&order_by=-created_at__week&tz=Europe/Berlin";
    let body = aggregate(&app, weeks).await;
    assert_eq!(
        body["groups"],
        json!([{"created_at__week": "2026-10-26", "count": 1}, {"created_at__week": "2026-10-19", "count": 2}])
    );
    let body = aggregate(&app, "group_by=created_at__week&count").await;
    assert_eq!(body["groups"], json!([{"created_at__week": "2026-10-19", "count": 3}]));
    refused(
        &app,
        None,
        "/api/posts/aggregate?group_by=created_at__day&tz=Mars/Olympus_Mons",
        "tz",
        "unknown_time_zone",
    )
    .await;
}

async fn another_tenants_rows_are_never_counted(app: TestApp) {
    let create = |token: Option<&'static str>, name: &'static str| {
        let app = &app;
        async move {
            let body = json!({"name": name}).to_string();
            let (status, created) = app.send(Method::POST, "/api/projects/", token, Some(&body)).await;
            assert_eq!(status, StatusCode::CREATED, "{created}");
        }
    };
    create(tenants::BOB, "Rocket").await;
    create(tenants::ALICE, "Anvil").await;
    create(tenants::BOB, "Sled").await;
    for name in ["Dynamite", "Magnet", "Spring"] {
        create(tenants::CAROL, name).await;
    }
    let aggregate = |token, query: &str| {
        let path = format!("/api/projects/aggregate?{query}");
        let app = &app;
        async move { app.send(Method::GET, &path, token, None).await }
    };
    let (status, body) = aggregate(tenants::BOB, "group_by=owner&count").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["groups"], json!([{"owner": "alice", "count": 1}, {"owner": "bob", "count": 2}]));
    let (_, body) = aggregate(tenants::CAROL, "count&count_distinct=owner").await;
    assert_eq!(body["groups"], json!([{"count": 3, "count_distinct_owner": 1}]));
    // Naming the tenant changes nothing: it is no group key, and as a filter it is ignored as on the list.
    refused(&app, tenants::BOB, "/api/projects/aggregate?group_by=tenant_id", "group_by", "unknown_field").await;
    let (_, body) = aggregate(tenants::BOB, "count&tenant_id=globex").await;
    assert_eq!(body["groups"], json!([{"count": 3}]));
    // No tenant, no identity, an unknown token: refused as the list refuses them.
    for token in [tenants::DAVE, None, tenants::FORGED] {
        let (list, _) = app.send(Method::GET, "/api/projects/", token, None).await;
        let (status, body) = aggregate(token, "count").await;
        assert!(status.is_client_error() && status == list, "{token:?}: {status} {body}");
    }
}

async fn owner_private_rows_are_never_counted(app: TestApp) {
    for (token, text) in [(tenants::BOB, "mine"), (tenants::BOB, "also mine"), (tenants::CAROL, "carol's")] {
        let body = json!({"text": text}).to_string();
        let (status, created) = app.send(Method::POST, "/api/notes/", token, Some(&body)).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
    }
    let (status, body) = app.send(Method::GET, "/api/notes/aggregate?group_by=owner", tenants::BOB, None).await;
    assert_eq!((status, &body["groups"]), (StatusCode::OK, &json!([{"owner": "bob", "count": 2}])), "{body}");
    let (_, body) = app.send(Method::GET, "/api/notes/aggregate?count", tenants::CAROL, None).await;
    assert_eq!(body["groups"], json!([{"count": 1}]));
}

/// Doubles near the type's limit: PostgreSQL's `avg` overflows its sum of squares (22003), a 422, never a 500;
/// SQLite and MariaDB answer a number (or `null`).
async fn huge_values_never_answer_500(app: TestApp) {
    for rating in [4.9e79, -2.8e165, 1.7e308] {
        let body = json!({"title": "huge", "body": "b", "author_id": 1, "rating": rating}).to_string();
        let (status, created) = app.send(Method::POST, "/api/posts/", BOB, Some(&body)).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
    }
    for query in ["avg=rating", "sum=views&avg=rating&max=rating", "group_by=published&avg=rating"] {
        let (status, body) = app.get(&format!("/api/posts/aggregate?{query}")).await;
        assert!(status == StatusCode::OK || status == StatusCode::UNPROCESSABLE_ENTITY, "{query}: {status} {body}");
    }
}
