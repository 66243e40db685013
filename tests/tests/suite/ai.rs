//! The `/ai` surface over HTTP, on SQLite and PostgreSQL: mounted only with Studio and behind its gate (the tool
//! catalog: `ai_catalog.rs`); MCP tool calls that answer exactly what REST answers to the same caller (denials, hidden fields,
//! out-of-scope rows, validation errors); structured queries through the list path with their SQL; the full
//! context; and a Studio credential that is never an identity.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_studio::AI_PATHS;
use viewset_tests::ai_client::{mcp_answer, query, rest_answer, tenants_with_authed_studio};
use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::identities::{blog, tenants};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{TOKEN, blog_with_authed_studio, blog_with_studio, code, settings};

on_every_database!(blog_with_authed_studio =>
    ai_routes_pass_the_studio_gate,
    mcp_answers_what_rest_answers,
    studio_token_is_not_an_identity,
    query_runs_the_list_path_as_the_caller,
    context_describes_without_data,
    writing_tools_carry_approval_metadata_only,
);
on_every_database!(blog_without_studio => ai_routes_absent_without_studio);
on_every_database!(blog_with_debug_studio => explain_plans_each_statement_in_debug_mode);
on_every_database!(tenants_with_authed_studio => no_ai_endpoint_crosses_tenants);

async fn blog_without_studio(backend: Backend) -> TestApp {
    blog_with_studio(backend, settings(&[])).await
}

async fn blog_with_debug_studio(backend: Backend) -> TestApp {
    let mut debug = viewset_tests::studio_fixtures::with_auth();
    debug.debug = true;
    blog_with_studio(backend, debug).await
}

/// `(method, path)` of each `/ai` endpoint as a client calls it.
fn endpoints() -> Vec<(Method, &'static str)> {
    AI_PATHS
        .iter()
        .map(|path| match *path {
            "/ai/query/execute" | "/ai/tools/mcp" => (Method::POST, *path),
            _ => (Method::GET, *path),
        })
        .collect()
}

async fn raw(app: &TestApp, method: Method, path: &str, headers: &[(&str, &str)]) -> (StatusCode, String) {
    let mut request = app.client().request(method, format!("{}{path}", app.base));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let request = request
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    let response = request.send().await.expect("request");
    (response.status(), response.text().await.expect("body"))
}

async fn ai_routes_absent_without_studio(app: TestApp) {
    for (method, path) in endpoints() {
        let (status, body) = raw(&app, method, path, &[("x-studio-token", TOKEN)]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {body}");
    }
}

async fn ai_routes_pass_the_studio_gate(app: TestApp) {
    let bearer = format!("Bearer {TOKEN}");
    for (method, path) in endpoints() {
        let (status, body) = raw(&app, method.clone(), path, &[]).await;
        assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, "not_authenticated".into()), "{path}");
        let (status, body) = raw(&app, method.clone(), path, &[("authorization", "Bearer alice-token")]).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "a user's token is not Studio's: {path}: {body}");
        let evil = [("x-studio-token", TOKEN), ("origin", "http://evil.example")];
        let (status, body) = raw(&app, method.clone(), path, &evil).await;
        assert_eq!((status, code(&body)), (StatusCode::FORBIDDEN, "origin_not_allowed".into()), "{path}");
        for credential in [("x-studio-token", TOKEN), ("authorization", bearer.as_str())] {
            let (status, body) =
                raw(&app, method.clone(), path, &[credential, ("origin", "http://studio.local")]).await;
            let refused = [StatusCode::UNAUTHORIZED, StatusCode::FORBIDDEN, StatusCode::NOT_FOUND].contains(&status);
            assert!(!refused, "{path} with {credential:?}: {status} {body}");
        }
    }
}

/// Each call over MCP and over REST as the same caller: same status, same body (denials with their reason, hidden
/// fields absent, out-of-scope rows not found, validation errors with their `loc`/`type`).
async fn mcp_answers_what_rest_answers(app: TestApp) {
    let bad_views = json!({"views": "many"});
    let calls: Vec<(&str, Value, Method, String, Option<Value>)> = vec![
        ("authors_list", json!({}), Method::GET, "/authors/".into(), None),
        ("authors_retrieve", json!({"pk": 1}), Method::GET, "/authors/1".into(), None),
        ("authors_retrieve", json!({"pk": 999}), Method::GET, "/authors/999".into(), None),
        ("authors_retrieve", json!({"pk": "x y"}), Method::GET, "/authors/x%20y".into(), None),
        (
            "posts_list",
            json!({"views__gte": 100, "ordering": "-views"}),
            Method::GET,
            "/api/posts/?views__gte=100&ordering=-views".into(),
            None,
        ),
        ("posts_list", json!({"limit": 0}), Method::GET, "/api/posts/?limit=0".into(), None),
        ("posts_stats", json!({}), Method::GET, "/api/posts/stats".into(), None),
        (
            "posts_update",
            json!({"pk": 1, "body": bad_views}),
            Method::PATCH,
            "/api/posts/1".into(),
            Some(bad_views.clone()),
        ),
        (
            "authors_update",
            json!({"pk": 1, "body": {"email": "x@example.com"}}),
            Method::PATCH,
            "/authors/1".into(),
            Some(json!({"email": "x@example.com"})),
        ),
        (
            "posts_create_many",
            json!({"body": [{"title": "t", "body": "b", "author_id": 1}, {"title": "no body", "author_id": 1}]}),
            Method::POST,
            "/api/posts/bulk".into(),
            Some(json!([{"title": "t", "body": "b", "author_id": 1}, {"title": "no body", "author_id": 1}])),
        ),
        ("posts_delete_many", json!({"id__in": [1, 999]}), Method::DELETE, "/api/posts/bulk?id__in=1,999".into(), None),
    ];
    for user in [None, blog::BOB, blog::ALICE] {
        for (tool, arguments, method, path, body) in &calls {
            let rest = rest_answer(&app, user, method.clone(), path, body.as_ref()).await;
            let mcp = mcp_answer(&app, user, tool, arguments.clone()).await;
            assert_eq!(mcp, rest, "{tool} {arguments} as {user:?}");
        }
    }
    // The bulk tools write all rows, then delete them by their keys, as bob.
    let rows = json!([{"title": "One", "body": "b", "author_id": 1}, {"title": "Two", "body": "b", "author_id": 2}]);
    let (status, created) = mcp_answer(&app, blog::BOB, "posts_create_many", json!({"body": rows})).await;
    assert_eq!(status, 201, "{created}");
    let keys: Vec<Value> = created.as_array().unwrap().iter().map(|p| p["id"].clone()).collect();
    let (status, deleted) = mcp_answer(&app, blog::BOB, "posts_delete_many", json!({"id__in": keys})).await;
    assert_eq!((status, deleted["deleted"].as_u64()), (200, Some(2)), "{deleted}");
    // The hidden field: present for staff, absent for others, in both.
    let (_, staff) = mcp_answer(&app, blog::ALICE, "authors_retrieve", json!({"pk": 1})).await;
    let (_, user) = mcp_answer(&app, blog::BOB, "authors_retrieve", json!({"pk": 1})).await;
    assert!(staff["email"].is_string() && user.get("email").is_none(), "{staff} {user}");
    // An argument the tool does not have is refused before any route runs.
    let (status, body) = mcp_answer(&app, blog::BOB, "posts_list", json!({"nope": 1})).await;
    assert_eq!((status, &body["detail"][0]["loc"]), (422, &json!(["arguments", "nope"])));
}

async fn studio_token_is_not_an_identity(app: TestApp) {
    // `Authorization: Bearer <studio token>` admits to /ai; the call itself runs anonymously.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "authors_list", "arguments": {}}});
    let (status, body) =
        viewset_tests::ai_client::ai_request(&app, Method::POST, "/ai/tools/mcp", false, Some(TOKEN), Some(&call))
            .await;
    assert_eq!(status, StatusCode::OK);
    // As REST answers it behind the blog's bearer layer: challenged, 401.
    assert_eq!(body["result"]["structuredContent"]["status"], 401, "{body}");
    assert_eq!(body["result"]["structuredContent"]["body"], app.get("/authors/").await.1);
    let (status, body) = query(&app, Some(TOKEN), json!({"viewset": "authors"})).await;
    assert_eq!((status, body), app.get("/authors/").await);
    assert_eq!(status.as_u16(), 401);
}

async fn query_runs_the_list_path_as_the_caller(app: TestApp) {
    let (status, body) = query(
        &app,
        None,
        json!({"viewset": "PostViewSet", "filters": {"views__gte": 100}, "ordering": ["-views"], "limit": 1}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, rest) = app.get("/api/posts/?views__gte=100&ordering=-views&limit=1").await;
    assert_eq!((&body["rows"], &body["count"]), (&rest["results"], &rest["count"]));
    let page = body["sql"].as_array().unwrap().iter().find(|s| s["role"] == "page").expect("the page statement");
    let sql = page["sql"].as_str().unwrap();
    let views = ["\"views\" >= 100", "`views` >= 100"]; // PostgreSQL and SQLite, MariaDB
    assert!(views.iter().any(|v| sql.contains(v)) && sql.contains("LIMIT 1"), "{sql}");
    assert!(page["elapsed_ms"].as_f64().is_some() && body["time_ms"].as_f64().is_some());
    // Hidden fields: staff see the email, users do not; anonymous callers are refused as by REST.
    let (_, staff) = query(&app, blog::ALICE, json!({"viewset": "authors"})).await;
    let (_, user) = query(&app, blog::BOB, json!({"viewset": "authors"})).await;
    assert!(staff["rows"][0]["email"].is_string() && user["rows"][0].get("email").is_none(), "{user}");
    // Only the allowlist: an unknown filter names itself; a bad value is REST's 422.
    let (status, body) = query(&app, None, json!({"viewset": "posts", "filters": {"nope": "x"}})).await;
    assert_eq!(
        (status, &body["detail"][0]["loc"]),
        (StatusCode::UNPROCESSABLE_ENTITY, &json!(["body", "filters", "nope"]))
    );
    let (status, body) = query(&app, None, json!({"viewset": "posts", "filters": {"views__gte": "lots"}})).await;
    let (rest_status, rest) = app.get("/api/posts/?views__gte=lots").await;
    assert_eq!((status, body), (rest_status, rest));
    let (status, _) = query(&app, None, json!({"viewset": "posts", "sql": "SELECT 1"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "no SQL from the client");
    // EXPLAIN is a debug panel: refused outside debug mode.
    let (status, body) = query(&app, None, json!({"viewset": "posts", "explain": true})).await;
    assert_eq!((status, &body["detail"][0]["type"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("debug_only")));
}

/// Issue 17 (Query Explorer): in debug mode each statement the list ran carries the database's plan, made with the
/// statement's own bound values (PostgreSQL `EXPLAIN`, SQLite `EXPLAIN QUERY PLAN`); the rows are REST's.
async fn explain_plans_each_statement_in_debug_mode(app: TestApp) {
    let ask = json!({"viewset": "posts", "filters": {"views__gte": 100}, "search": "o'brien", "explain": true});
    let (status, body) = query(&app, None, ask).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, rest) = app.get("/api/posts/?views__gte=100&search=o%27brien").await;
    assert_eq!(body["rows"], rest["results"]);
    let statements = body["sql"].as_array().expect("statements");
    // The count is its own statement, or (PostgreSQL and SQLite, with a search term: `store::Plan::window_count`) the page's.
    let counted_in_page = |s: &&Value| s["role"] == "page" && s["sql"].as_str().is_some_and(|q| q.contains("OVER ()"));
    assert!(statements.iter().any(|s| s["role"] == "page"), "{body}");
    assert!(
        statements.iter().any(|s| s["role"] == "count") || statements.iter().any(|s| counted_in_page(&s)),
        "{body}"
    );
    for statement in statements {
        let plan = statement["plan"].as_array().unwrap_or_else(|| panic!("no plan: {statement}"));
        let text: Vec<&str> = plan.iter().filter_map(Value::as_str).collect();
        assert!(!text.is_empty() && text.iter().any(|l| l.contains("posts")), "{statement}");
    }
}

async fn context_describes_without_data(app: TestApp) {
    let (status, context) =
        viewset_tests::ai_client::ai_request(&app, Method::GET, "/ai/context/full", true, None, None).await;
    assert_eq!(status, StatusCode::OK);
    let text = context.to_string();
    for secret in [TOKEN, "ada@example.com", "alice-token", "Ada Lovelace"] {
        assert!(!text.contains(secret), "/ai/context/full holds {secret}");
    }
    assert_eq!(context["summary"]["ai_tool_count"], context["tools"]["count"]);
    let authors = context["models"].as_array().unwrap().iter().find(|m| m["table_name"] == "authors").unwrap();
    assert!(authors["fields"].as_array().unwrap().iter().any(|f| f["name"] == "email" && f["nullable"] == true));
    let posts = context["viewsets"].as_array().unwrap().iter().find(|v| v["name"] == "PostViewSet").unwrap();
    assert_eq!(posts["search_fields"], json!(["title", "body"]));
    let publish = posts["routes"].as_array().unwrap().iter().find(|r| r["handler"] == "publish").unwrap();
    assert_eq!(publish["tool"], "posts_publish");
    let blog_app = &context["migrations"]["apps"][0];
    assert_eq!(blog_app["app_label"], "blog");
    assert!(blog_app["migrations"].as_array().unwrap().iter().all(|m| m["applied"] == true));
    assert_eq!(context["settings"]["studio_auth_token_set"], true);
    // Issue 20 item 4: the admin configuration is the Model Browser's (and the other panels') configuration.
    let admin = &context["admin"];
    assert_eq!(admin["ui"], "/studio/ui");
    let browser = &admin["model_browser"];
    assert_eq!((&browser["writes"], &browser["export"]), (&json!(true), &json!(["csv", "json"])), "{admin}");
    let posts = browser["models"].as_array().unwrap().iter().find(|m| m["viewset"] == "PostViewSet").unwrap();
    assert_eq!(posts["list_path"], "/api/posts/");
    assert_eq!(posts["search_fields"], json!(["title", "body"]));
    assert_eq!(posts["writes"], json!(["create", "update", "delete"]));
    let bulk = &posts["bulk"];
    assert_eq!((&bulk["create"], &bulk["delete"], &bulk["max"]), (&json!(true), &json!(true), &json!(1000)), "{bulk}");
    assert_eq!(bulk["upsert_keys"], json!(["slug"]));
    let authors = browser["models"].as_array().unwrap().iter().find(|m| m["viewset"] == "AuthorViewSet").unwrap();
    assert_eq!(authors["hidden_from_non_staff"], json!(["email"]));
    assert_eq!(admin["query_explorer"]["explain"], false, "EXPLAIN is a debug panel");
}

async fn no_ai_endpoint_crosses_tenants(app: TestApp) {
    let create = |token, name: &str| {
        let body = json!({"name": name});
        let app = &app;
        async move { rest_answer(app, token, Method::POST, "/api/projects/", Some(&body)).await }
    };
    let (status, acme) = create(tenants::BOB, "Rocket").await;
    assert_eq!(status, 201, "{acme}");
    let (_, globex) = create(tenants::CAROL, "Anvil").await;
    let (acme, globex) = (acme["id"].clone(), globex["id"].clone());

    let (_, rows) = query(&app, tenants::BOB, json!({"viewset": "projects"})).await;
    assert_eq!(
        rows["rows"].as_array().unwrap().iter().map(|r| r["id"].clone()).collect::<Vec<_>>(),
        vec![acme.clone()]
    );
    let (_, list) = mcp_answer(&app, tenants::CAROL, "projects_list", json!({})).await;
    assert_eq!(
        list["results"].as_array().unwrap().iter().map(|r| r["id"].clone()).collect::<Vec<_>>(),
        vec![globex.clone()]
    );
    for (tool, arguments, method, path) in [
        ("projects_retrieve", json!({"pk": acme}), Method::GET, format!("/api/projects/{acme}")),
        ("projects_archive", json!({"pk": acme}), Method::POST, format!("/api/projects/{acme}/archive")),
        ("projects_delete", json!({"pk": acme}), Method::DELETE, format!("/api/projects/{acme}")),
        ("projects_list", json!({"name": "Rocket"}), Method::GET, "/api/projects/?name=Rocket".into()),
    ] {
        for user in [tenants::CAROL, tenants::DAVE, None] {
            let rest = rest_answer(&app, user, method.clone(), &path, None).await;
            let mcp = mcp_answer(&app, user, tool, arguments.clone()).await;
            assert_eq!(mcp, rest, "{tool} as {user:?}");
            assert!(!mcp.1.to_string().contains("Rocket"), "{tool} as {user:?} leaked acme's row");
        }
    }
    // The tenant column is no argument of any tool (the list schema leaves it out, as REST's document does).
    let (status, body) = mcp_answer(&app, tenants::CAROL, "projects_list", json!({"tenant_id": "acme"})).await;
    assert_eq!((status, &body["detail"][0]["loc"]), (422, &json!(["arguments", "tenant_id"])));
    let (status, rows) = query(&app, tenants::CAROL, json!({"viewset": "ProjectViewSet", "search": "Rock"})).await;
    assert_eq!((status, rows["rows"].as_array().map(Vec::len)), (StatusCode::OK, Some(0)));
}

/// Issue 20 item 5 (spec rule 5: "MCP approval metadata installs no HTTP approval workflow"): every tool that
/// writes carries `_meta.approval.required` over MCP's own `tools/list`; read-only tools do not require it; and
/// no approval route exists anywhere (Studio, /ai, the API).
async fn writing_tools_carry_approval_metadata_only(app: TestApp) {
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let (status, body) =
        viewset_tests::ai_client::ai_request(&app, Method::POST, "/ai/tools/mcp", true, None, Some(&list)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let tools = body["result"]["tools"].as_array().expect("tools");
    assert!(!tools.is_empty());
    for tool in tools {
        let writes = tool["annotations"]["readOnlyHint"] == false;
        assert_eq!(tool["_meta"]["approval"]["required"], writes, "{tool}");
        if writes {
            assert!(tool["_meta"]["approval"]["reason"].as_str().is_some_and(|r| r.contains("confirm")), "{tool}");
        }
    }
    let (_, document) = app.get("/openapi.json").await;
    let paths: Vec<&String> = document["paths"].as_object().expect("paths").keys().collect();
    let served = viewset_studio::STUDIO_PATHS.iter().chain(AI_PATHS.iter()).map(|p| p.to_string());
    for path in paths.into_iter().cloned().chain(served) {
        assert!(!path.contains("approv"), "an approval route was installed: {path}");
    }
    for path in ["/ai/approvals", "/ai/tools/approve", "/studio/approvals"] {
        let (status, _) = raw(&app, Method::POST, path, &[("x-studio-token", TOKEN)]).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
}
