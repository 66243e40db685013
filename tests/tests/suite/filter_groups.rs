//! `?or=(...)` boolean filter groups of `ServiceFilterBackend` over HTTP on SQLite and PostgreSQL: terms are the
//! ViewSet's own filter parameters, groups nest, the group is ANDed with the other filters, every mistake is a 422
//! at `["query", "or"]`, and a group never reaches another tenant's rows.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_tests::harness::{TestApp, ids};
use viewset_tests::identities::tenants::{BOB, CAROL};
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog => groups_select_rows, bad_groups_are_422s);
on_every_database!(TestApp::tenants => a_group_stays_in_the_tenant);

/// The query string's reserved characters in a value, percent-encoded.
fn enc(group: &str) -> String {
    group.replace('%', "%25").replace(' ', "%20").replace('"', "%22").replace('&', "%26").replace('+', "%2B")
}

async fn list(app: &TestApp, query: &str) -> Value {
    let (status, body) = app.get(&format!("/api/posts/?{query}")).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    body
}

async fn groups_select_rows(app: TestApp) {
    // Seed: 1 (views 120, rating 4.5, published), 2 (300, 5.0, published), 3 (7, no rating, draft).
    assert_eq!(ids(&list(&app, "or=(views__gt.200,rating__isnull.true)").await), [3, 2]);
    assert_eq!(ids(&list(&app, "or=(views__gt.200,rating__isnull.true)&published=true").await), [2], "ANDed");
    let nested = list(&app, "or=(views__lt.10,and(published.true,rating__gte.4.6))").await;
    assert_eq!((ids(&nested), &nested["count"]), (vec![3, 2], &json!(2)));
    let quoted = enc(r#"or=(title__in."On Computable Numbers,Nope",views.120)"#);
    assert_eq!(ids(&list(&app, &quoted).await), [3, 1]);
    assert_eq!(ids(&list(&app, &enc("or=(title__icontains.ENGINE)")).await), [1]);
    assert_eq!(ids(&list(&app, "or=(views.1,views.2)").await), Vec::<i64>::new());
    let (_, document) = app.get("/openapi.json").await;
    let params = document["paths"]["/api/posts/"]["get"]["parameters"].as_array().unwrap();
    let or = params.iter().find(|p| p["name"] == "or").expect("`or` is documented");
    assert_eq!(or["schema"]["type"], "string");
    assert!(or["description"].as_str().unwrap().contains("and("), "{or}");
    let authors = document["paths"]["/authors/"]["get"]["parameters"].as_array().unwrap();
    assert!(authors.iter().all(|p| p["name"] != "or"), "only with ServiceFilterBackend");
}

async fn bad_groups_are_422s(app: TestApp) {
    let deep = "or=(and(or(and(views.1))))";
    let many = format!("or=({})", (0..21).map(|i| format!("views.{i}")).collect::<Vec<_>>().join(","));
    let cases = [
        ("or=(body.x)", "unknown_field", "`body` in `or`: not a filter"),
        ("or=(published__gt.1)", "unsupported_lookup", "`published__gt` in `or`"),
        ("or=(views__near.1)", "unsupported_lookup", "unsupported lookup `near`"),
        ("or=(views__gt.abc)", "value_error", "`views__gt` in `or`"),
        ("or=(rating__isnull.maybe)", "bool_parsing", "valid boolean"),
        (deep, "too_deep", "max_group_depth"),
        (many.as_str(), "too_many_terms", "max_group_terms"),
        ("or=(views.1", "group_syntax", "unbalanced"),
        ("or=(views.1))", "group_syntax", "after the closing"),
        ("or=views.1", "group_syntax", "must start with `(`"),
        ("or=(views.1,and(views.2)", "group_syntax", "unbalanced"),
        ("or=(views.1)&or=(views.2)", "duplicate_parameter", "or"),
    ];
    for (query, kind, message) in cases {
        let (status, body) = app.get(&format!("/api/posts/?{query}")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {body}");
        let error = &body["detail"][0];
        assert_eq!((&error["loc"], error["type"].as_str()), (&json!(["query", "or"]), Some(kind)), "{query}: {body}");
        assert!(error["msg"].as_str().unwrap().contains(message), "{query}: {body}");
    }
    assert!(ids(&list(&app, "or=(and(or(views.120)))").await) == [1], "three levels are allowed");
}

async fn a_group_stays_in_the_tenant(app: TestApp) {
    for (token, name) in [(BOB, "Rocket"), (CAROL, "Anvil")] {
        let body = json!({"name": name}).to_string();
        let (status, created) = app.send(Method::POST, "/api/projects/", token, Some(&body)).await;
        assert_eq!(status, StatusCode::CREATED, "{created}");
    }
    let (status, list) = app.send(Method::GET, "/api/projects/?or=(name.Anvil,archived.false)", BOB, None).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let names: Vec<&str> = list["results"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!((names, &list["count"]), (vec!["Rocket"], &json!(1)), "carol's project stays out of bob's list");
    let (_, list) = app.send(Method::GET, "/api/projects/?or=(owner.carol,name.Anvil)", BOB, None).await;
    assert_eq!((&list["results"], &list["count"]), (&json!([]), &json!(0)), "not even through the count");
    let (status, body) = app.send(Method::GET, "/api/projects/?or=(tenant_id.globex)", BOB, None).await;
    assert_eq!((status, body["detail"][0]["type"].as_str()), (StatusCode::UNPROCESSABLE_ENTITY, Some("unknown_field")));
}
