//! The tenants example: no route ever crosses tenants, clients cannot set, filter, search or order by the tenant
//! column, object permissions guard writes, an owner-filtered list keeps guessed ids unreadable, and the nested
//! route checks its parent. On SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_tests::harness::{TestApp, ids};
use viewset_tests::identities::tenants::{ALICE, BOB, CAROL, DAVE, FORGED};
use viewset_tests::on_every_database;

async fn create(app: &TestApp, token: Option<&str>, name: &str) -> Value {
    let (status, body) =
        app.send(Method::POST, "/api/projects/", token, Some(&json!({"name": name}).to_string())).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

on_every_database!(TestApp::tenants =>
    create_stamps_tenant_and_owner,
    no_route_crosses_tenants,
    tenant_column_cannot_be_set_filtered_or_ordered,
    principals_without_tenant_or_identity_are_denied,
    object_permission_guards_writes_and_actions,
    owner_filtered_list_keeps_guessed_ids_unreadable,
    nested_route_checks_its_parent,
);

async fn create_stamps_tenant_and_owner(app: TestApp) {
    let project = create(&app, BOB, "Rocket").await;
    assert_eq!((project["tenant_id"].as_str(), project["owner"].as_str()), (Some("acme"), Some("bob")));
    let project = create(&app, CAROL, "Anvil").await;
    assert_eq!((project["tenant_id"].as_str(), project["owner"].as_str()), (Some("globex"), Some("carol")));
}

async fn no_route_crosses_tenants(app: TestApp) {
    let acme = create(&app, BOB, "Rocket").await["id"].as_i64().unwrap();
    let globex = create(&app, CAROL, "Anvil").await["id"].as_i64().unwrap();
    let (_, list) = app.send(Method::GET, "/api/projects/", BOB, None).await;
    assert_eq!((list["count"].as_i64(), ids(&list)), (Some(1), vec![acme]));
    let (_, list) = app.send(Method::GET, "/api/projects/", CAROL, None).await;
    assert_eq!(ids(&list), vec![globex]);
    let other = format!("/api/projects/{globex}");
    for (method, path, body) in [
        (Method::GET, other.clone(), None),
        (Method::PATCH, other.clone(), Some(r#"{"name": "Mine now"}"#)),
        (Method::DELETE, other.clone(), None),
        (Method::POST, format!("{other}/archive"), None),
    ] {
        for token in [BOB, ALICE] {
            let (status, json) = app.send(method.clone(), &path, token, body).await;
            assert_eq!(
                (status, json["code"].as_str()),
                (StatusCode::NOT_FOUND, Some("not_found")),
                "{method} {path} {token:?}"
            );
        }
    }
    let (_, mine) = app.send(Method::GET, "/api/projects/mine", ALICE, None).await;
    assert_eq!(mine, json!([]), "alice owns nothing; carol's project is in another tenant");
    let (_, anvil) = app.send(Method::GET, &other, CAROL, None).await;
    assert_eq!((anvil["name"].as_str(), anvil["archived"].as_bool()), (Some("Anvil"), Some(false)), "untouched");
}

async fn tenant_column_cannot_be_set_filtered_or_ordered(app: TestApp) {
    let (status, body) =
        app.send(Method::POST, "/api/projects/", BOB, Some(r#"{"name": "Sneaky", "tenant_id": "globex"}"#)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["detail"][0]["loc"], json!(["body", "tenant_id"]));
    let acme = create(&app, BOB, "Rocket").await["id"].as_i64().unwrap();
    let (status, _) =
        app.send(Method::PATCH, &format!("/api/projects/{acme}"), BOB, Some(r#"{"tenant_id": "globex"}"#)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    create(&app, CAROL, "Anvil").await;
    for query in ["tenant_id=globex", "ordering=-tenant_id", "search=globex"] {
        let (status, list) = app.send(Method::GET, &format!("/api/projects/?{query}"), BOB, None).await;
        assert_eq!(status, StatusCode::OK, "{query}");
        assert!(ids(&list).iter().all(|id| *id == acme), "{query}: {list}");
    }
    // With a lookup, the tenant column answers exactly as a field the model lacks: a 422, never a filter.
    let (status, body) = app.send(Method::GET, "/api/projects/?tenant_id__in=globex,acme", BOB, None).await;
    let (_, unknown) = app.send(Method::GET, "/api/projects/?nosuch__in=globex,acme", BOB, None).await;
    assert_eq!((status, &body["detail"][0]["type"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("unknown_filter")));
    let msg = |b: &serde_json::Value| b["detail"][0]["msg"].as_str().unwrap_or_default().to_string();
    assert_eq!(msg(&body).replace("tenant_id__in", "nosuch__in"), msg(&unknown));
    let (_, rocket) = app.send(Method::GET, &format!("/api/projects/{acme}"), BOB, None).await;
    assert_eq!(rocket["tenant_id"], "acme");
}

async fn principals_without_tenant_or_identity_are_denied(app: TestApp) {
    create(&app, BOB, "Rocket").await;
    // Without a tenant: 403; anonymous (no token, or one the layer does not know): 401, the bearer layer's challenge.
    for token in [DAVE, None, FORGED] {
        let refused = if token == DAVE { StatusCode::FORBIDDEN } else { StatusCode::UNAUTHORIZED };
        for (method, path) in
            [(Method::GET, "/api/projects/"), (Method::GET, "/api/projects/1"), (Method::POST, "/api/projects/")]
        {
            let (status, body) = app.send(method.clone(), path, token, Some(r#"{"name": "x"}"#)).await;
            assert_eq!(status, refused, "{method} {path} {token:?}: {body}");
        }
    }
}

async fn object_permission_guards_writes_and_actions(app: TestApp) {
    let rocket = create(&app, BOB, "Rocket").await["id"].as_i64().unwrap();
    let path = format!("/api/projects/{rocket}");
    let (status, _) = app.send(Method::GET, &path, ALICE, None).await;
    assert_eq!(status, StatusCode::OK, "same tenant reads");
    // Alice is staff, so she may change it; a non-staff colleague may not.
    let colleague = app.send(Method::POST, "/api/projects/", ALICE, Some(r#"{"name": "Alice's"}"#)).await.1;
    let alices = format!("/api/projects/{}", colleague["id"]);
    let (status, body) = app.send(Method::PATCH, &alices, BOB, Some(r#"{"name": "Bob's now"}"#)).await;
    assert_eq!(
        (status, body["detail"].as_str()),
        (StatusCode::FORBIDDEN, Some("Only the project's owner may change it."))
    );
    let (status, _) = app.send(Method::POST, &format!("{alices}/archive"), BOB, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "detail actions run object permissions");
    let (status, _) = app.send(Method::DELETE, &alices, BOB, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = app.send(Method::POST, &format!("{path}/archive"), BOB, None).await;
    assert_eq!((status, body["archived"].as_bool()), (StatusCode::OK, Some(true)));
    let (status, _) = app.send(Method::PATCH, &path, ALICE, Some(r#"{"name": "Renamed by staff"}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let (_, mine) = app.send(Method::GET, "/api/projects/mine", BOB, None).await;
    assert_eq!(mine.as_array().map(Vec::len), Some(1));
}

async fn owner_filtered_list_keeps_guessed_ids_unreadable(app: TestApp) {
    let (status, note) = app.send(Method::POST, "/api/notes/", BOB, Some(r#"{"text": "bob's secret"}"#)).await;
    assert_eq!((status, note["owner"].as_str()), (StatusCode::CREATED, Some("bob")));
    let path = format!("/api/notes/{}", note["id"]);
    let (_, list) = app.send(Method::GET, "/api/notes/", CAROL, None).await;
    assert_eq!(list["count"], 0);
    for (method, body) in [(Method::GET, None), (Method::PATCH, Some(r#"{"text": "mine"}"#)), (Method::DELETE, None)] {
        let (status, _) = app.send(method.clone(), &path, CAROL, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method} of a guessed id");
    }
    let (status, body) = app.send(Method::POST, "/api/notes/", CAROL, Some(r#"{"text": "x", "owner": "bob"}"#)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "owner is server-set: {body}");
    let (_, mine) = app.send(Method::GET, &path, BOB, None).await;
    assert_eq!(mine["text"], "bob's secret");
}

async fn nested_route_checks_its_parent(app: TestApp) {
    let rocket = create(&app, BOB, "Rocket").await["id"].as_i64().unwrap();
    let anvil = create(&app, CAROL, "Anvil").await["id"].as_i64().unwrap();
    let (status, task) =
        app.send(Method::POST, &format!("/api/projects/{rocket}/tasks"), BOB, Some(r#"{"title": "Fuel"}"#)).await;
    assert_eq!((status, task["project_id"].as_i64()), (StatusCode::CREATED, Some(rocket)));
    let (status, tasks) = app.send(Method::GET, &format!("/api/projects/{rocket}/tasks"), BOB, None).await;
    assert_eq!((status, tasks.as_array().map(Vec::len)), (StatusCode::OK, Some(1)));
    for (method, body) in [(Method::GET, None), (Method::POST, Some(r#"{"title": "Sabotage"}"#))] {
        let (status, _) = app.send(method.clone(), &format!("/api/projects/{anvil}/tasks"), BOB, body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method} under another tenant's project");
    }
    let (status, _) = app.send(Method::GET, &format!("/api/projects/{rocket}/tasks"), CAROL, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = app.send(Method::GET, &format!("/api/projects/{rocket}/tasks"), None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, body) =
        app.send(Method::POST, &format!("/api/projects/{rocket}/tasks"), BOB, Some(r#"{"title": 5}"#)).await;
    assert_eq!(
        (status, body["detail"][0]["loc"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!(["body", "title"]))
    );
}
