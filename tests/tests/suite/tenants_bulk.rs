//! Bulk writes and upserts in the tenants example never cross tenants, on SQLite and PostgreSQL: a bulk create
//! stamps the caller's tenant and owner on every row and refuses a row that names a tenant; an upsert of a code held
//! in another tenant is a 404 naming it, with nothing written, whichever the resolution; an upsert inside the
//! tenant passes the object permission (only the owner or staff updates); a bulk delete naming another tenant's
//! record deletes nothing; a principal without a tenant writes nothing.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_tests::harness::{TestApp, ids};
use viewset_tests::identities::tenants::{ALICE, BOB, CAROL, DAVE};
use viewset_tests::on_every_database;

async fn send(app: &TestApp, method: Method, path: &str, token: Option<&str>, body: &Value) -> (StatusCode, Value) {
    app.send(method, path, token, Some(&body.to_string())).await
}

async fn upsert(app: &TestApp, token: Option<&str>, resolution: &str, body: &Value) -> (StatusCode, Value) {
    let body = body.to_string();
    let prefer = format!("resolution={resolution}");
    let request = app
        .client()
        .post(format!("{}/api/projects/upsert?on_conflict=code", app.base))
        .header("content-type", "application/json")
        .header("prefer", prefer);
    let request = match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    };
    let response = request.body(body).send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Every project, as staff of each tenant sees them: (acme's, globex's) names.
async fn names(app: &TestApp) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    for token in [ALICE, CAROL] {
        let (_, list) = app.send(Method::GET, "/api/projects/?ordering=id&limit=100", token, None).await;
        let names = list["results"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_string());
        out.push(names.collect());
    }
    let globex = out.pop().unwrap();
    (out.pop().unwrap(), globex)
}

on_every_database!(TestApp::tenants =>
    bulk_create_stamps_every_row,
    upserts_never_reach_another_tenant,
    bulk_delete_stays_in_the_tenant,
);

async fn bulk_create_stamps_every_row(app: TestApp) {
    let rows = json!([{"name": "Rocket", "code": "r-1"}, {"name": "Sled"}]);
    let (status, created) = send(&app, Method::POST, "/api/projects/bulk", BOB, &rows).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    for project in created.as_array().unwrap() {
        assert_eq!((project["tenant_id"].as_str(), project["owner"].as_str()), (Some("acme"), Some("bob")));
    }
    // A row naming a tenant (or an owner) is refused with its index; nothing is written.
    let sneaky =
        json!([{"name": "Fine"}, {"name": "Sneaky", "tenant_id": "globex"}, {"name": "Owned", "owner": "carol"}]);
    let (status, body) = send(&app, Method::POST, "/api/projects/bulk", BOB, &sneaky).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let locs: Vec<&Value> = body["detail"].as_array().unwrap().iter().map(|e| &e["loc"]).collect();
    assert!(
        locs.contains(&&json!(["body", "1", "tenant_id"])) && locs.contains(&&json!(["body", "2", "owner"])),
        "{locs:?}"
    );
    // Without a tenant: 403; anonymous: 401 (the bearer layer's challenge); nothing written.
    for (token, refused) in [(DAVE, StatusCode::FORBIDDEN), (None, StatusCode::UNAUTHORIZED)] {
        let (status, _) = send(&app, Method::POST, "/api/projects/bulk", token, &json!([{"name": "Nowhere"}])).await;
        assert_eq!(status, refused);
    }
    assert_eq!(names(&app).await, (vec!["Rocket".to_string(), "Sled".to_string()], vec![]));
}

async fn upserts_never_reach_another_tenant(app: TestApp) {
    let (status, _) = send(&app, Method::POST, "/api/projects/", CAROL, &json!({"name": "Anvil", "code": "x"})).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = send(&app, Method::POST, "/api/projects/", BOB, &json!({"name": "Rocket", "code": "r"})).await;
    assert_eq!(status, StatusCode::CREATED);
    // acme names globex's code: a 404 naming it, with either resolution, alone or beside a new row.
    for resolution in ["merge-duplicates", "ignore-duplicates"] {
        for body in
            [json!([{"name": "Taken", "code": "x"}]), json!([{"name": "New", "code": "n"}, {"name": "T", "code": "x"}])]
        {
            let (status, answer) = upsert(&app, BOB, resolution, &body).await;
            assert_eq!(status, StatusCode::NOT_FOUND, "{resolution} {body}: {answer}");
            assert!(answer.to_string().contains('x'), "the 404 names the key: {answer}");
        }
    }
    assert_eq!(names(&app).await, (vec!["Rocket".to_string()], vec!["Anvil".to_string()]), "nothing written");
    // Inside acme: the owner updates its own record, and a new code is created in acme.
    let both = json!([{"name": "Rocket 2", "code": "r"}, {"name": "Sled", "code": "s"}]);
    let (status, answer) = upsert(&app, BOB, "merge-duplicates", &both).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    assert_eq!((answer["updated"].clone(), answer["created"].clone()), (json!([0]), json!([1])));
    assert_eq!(answer["records"][1]["tenant_id"], "acme");
    // The object permission: only the owner or staff may change a project; staff alice may.
    let (status, _) = upsert(&app, ALICE, "merge-duplicates", &json!([{"name": "Rocket 3", "code": "r"}])).await;
    assert_eq!(status, StatusCode::OK);
    let (acme, globex) = names(&app).await;
    assert_eq!((acme, globex), (vec!["Rocket 3".to_string(), "Sled".to_string()], vec!["Anvil".to_string()]));
    // globex's carol upserting acme's code: a 404, nothing written.
    let (status, _) = upsert(&app, CAROL, "merge-duplicates", &json!([{"name": "Mine now", "code": "s"}])).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(names(&app).await.1, vec!["Anvil".to_string()]);
}

async fn bulk_delete_stays_in_the_tenant(app: TestApp) {
    let (_, acme) = send(&app, Method::POST, "/api/projects/bulk", BOB, &json!([{"name": "A"}, {"name": "B"}])).await;
    let (_, globex) = send(&app, Method::POST, "/api/projects/bulk", CAROL, &json!([{"name": "G"}])).await;
    let acme_ids = ids(&json!({"results": acme}));
    let globex_id = globex[0]["id"].as_i64().unwrap();
    let mixed = format!("/api/projects/bulk?id__in={},{globex_id}", acme_ids[0]);
    let (status, answer) = app.send(Method::DELETE, &mixed, BOB, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{answer}");
    assert_eq!(names(&app).await, (vec!["A".to_string(), "B".to_string()], vec!["G".to_string()]), "nothing deleted");
    let (status, _) = app.send(Method::DELETE, &format!("/api/projects/bulk?id__in={globex_id}"), DAVE, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let own = format!("/api/projects/bulk?id__in={},{}", acme_ids[0], acme_ids[1]);
    let (status, answer) = app.send(Method::DELETE, &own, BOB, None).await;
    assert_eq!((status, answer["deleted"].as_i64()), (StatusCode::OK, Some(2)), "{answer}");
    assert_eq!(names(&app).await, (vec![], vec!["G".to_string()]));
}
