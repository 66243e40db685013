//! The OpenAPI document tells the truth (issue 14 item 6): each claim it makes about a route is checked against the
//! server's answer, on SQLite, PostgreSQL and MariaDB, for the blog (served `/openapi.json`) and the tenants example.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_core::query::FilterLookup;
use viewset_tests::harness::TestApp;
use viewset_tests::identities::{blog::BOB, tenants};
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog =>
    delete_documents_the_id_it_answers,
    paging_bounds_are_the_configured_ones,
    bodies_are_closed_objects,
    integral_floats_are_integers,
    action_and_write_errors_are_documented,
    bearer_security_where_permissions_need_an_identity,
    every_documented_filter_is_accepted_and_no_other_lookup,
    conditional_requests_are_documented_as_served,
    transport_and_token_errors_are_documented_as_served,
);

on_every_database!(TestApp::tenants => tenants_filters_agree_with_the_server);

/// The shared error responses every operation references: `(status, component)`.
const SHARED: [(&str, &str); 7] = [
    ("401", "Unauthorized"),
    ("405", "MethodNotAllowed"),
    ("413", "PayloadTooLarge"),
    ("414", "UriTooLong"),
    ("431", "RequestHeaderFieldsTooLarge"),
    ("500", "InternalError"),
    ("503", "ServiceUnavailable"),
];

async fn document(app: &TestApp) -> Value {
    let (status, document) = app.get("/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    document
}

fn list_parameters<'a>(doc: &'a Value, path: &str) -> Vec<&'a Value> {
    doc["paths"][path]["get"]["parameters"].as_array().expect("list parameters").iter().collect()
}

fn parameter<'a>(doc: &'a Value, path: &str, name: &str) -> Option<&'a Value> {
    list_parameters(doc, path).into_iter().find(|p| p["name"] == name)
}

async fn delete_documents_the_id_it_answers(app: TestApp) {
    let doc = document(&app).await;
    let delete = &doc["paths"]["/api/posts/{pk}"]["delete"];
    let id = &delete["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["id"];
    assert_eq!(id, &delete["parameters"][0]["schema"], "DELETE's id is the lookup field's schema");
    assert_eq!(id["type"], "integer");
    let (status, body) = app.send(Method::DELETE, "/api/posts/1", BOB, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["id"].is_i64(), "the server answers an integer id: {body}");
}

async fn paging_bounds_are_the_configured_ones(app: TestApp) {
    let doc = document(&app).await;
    let limit = &parameter(&doc, "/api/posts/", "limit").expect("limit")["schema"];
    assert_eq!((limit["minimum"].as_i64(), limit["maximum"].as_i64()), (Some(1), Some(100)), "{limit}");
    assert_eq!(limit["default"], 20);
    let offset = &parameter(&doc, "/api/posts/", "offset").expect("offset")["schema"];
    assert_eq!(offset["minimum"], 0);
    for (query, status) in [("limit=1", 200), ("limit=100", 200), ("limit=0", 422), ("limit=101", 422)] {
        assert_eq!(app.get(&format!("/api/posts/?{query}")).await.0.as_u16(), status, "{query}");
    }
    assert_eq!(app.get("/api/posts/?offset=-1").await.0, StatusCode::UNPROCESSABLE_ENTITY);
}

async fn bodies_are_closed_objects(app: TestApp) {
    let doc = document(&app).await;
    for (path, method) in
        [("/api/posts/", "post"), ("/api/posts/{pk}", "patch"), ("/authors/", "post"), ("/api/posts/bulk", "post")]
    {
        let schema = &doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"];
        // A bulk create (its own operation): an array of closed objects.
        let schema = if schema["type"] == "array" { &schema["items"] } else { schema };
        assert_eq!(schema["additionalProperties"], false, "{method} {path}: {schema}");
    }
    let body = r#"{"title": "t", "body": "b", "author_id": 1, "unknown": 1}"#;
    let (status, _) = app.send(Method::POST, "/api/posts/", BOB, Some(body)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "an unknown field is refused, as documented");
    let (status, _) = app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"unknown": 1}"#)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
}

/// The document's bodies are JSON Schema, where `7.0` is an integer: the server reads it as one.
async fn integral_floats_are_integers(app: TestApp) {
    let body = r#"{"title": "t", "body": "b", "author_id": 1.0, "views": 7.0}"#;
    let (status, created) = app.send(Method::POST, "/api/posts/", BOB, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!((created["views"].as_i64(), created["author_id"].as_i64()), (Some(7), Some(1)));
    let (status, body) = app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 2.5}"#)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "a fraction is still refused: {body}");
}

async fn action_and_write_errors_are_documented(app: TestApp) {
    let doc = document(&app).await;
    let publish = &doc["paths"]["/api/posts/{pk}/publish"]["post"]["responses"];
    assert!(publish.get("400").is_some(), "the action's 400 is documented: {publish}");
    let (status, body) = app.send(Method::POST, "/api/posts/abc/publish", BOB, None).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let responses = &op["responses"];
            for (status, name) in SHARED {
                assert_eq!(responses[status]["$ref"], format!("#/components/responses/{name}"), "{method} {path}");
            }
            assert!(responses.get("403").is_some(), "{method} {path} lacks 403");
            let reads_body = op.get("requestBody").is_some();
            assert_eq!(responses.get("415").is_some(), reads_body, "{method} {path}: 415");
        }
    }
    // The documented 405 is what the server answers, as JSON.
    let (status, body) = app.send(Method::PUT, "/api/posts/1", BOB, Some("{}")).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::METHOD_NOT_ALLOWED, Some("method_not_allowed")));
}

async fn bearer_security_where_permissions_need_an_identity(app: TestApp) {
    let doc = document(&app).await;
    let scheme = &doc["components"]["securitySchemes"]["bearerAuth"];
    assert_eq!((scheme["type"].as_str(), scheme["scheme"].as_str()), (Some("http"), Some("bearer")));
    let required = serde_json::json!([{"bearerAuth": []}]);
    let optional = serde_json::json!([{}, {"bearerAuth": []}]);
    for (path, method, security, anonymous) in [
        // Behind the blog's bearer layer an anonymous caller is challenged: the documented 401.
        ("/authors/", "get", &required, 401),
        ("/api/posts/", "post", &required, 401),
        ("/api/posts/", "get", &optional, 200),
        ("/api/posts/{pk}", "get", &optional, 200),
    ] {
        assert_eq!(&doc["paths"][path][method]["security"], security, "{method} {path}");
        let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
        let body = (method == Method::POST).then_some(r#"{"title": "t", "body": "b", "author_id": 1}"#);
        let (status, _) = app.send(method, &path.replace("{pk}", "1"), None, body).await;
        assert_eq!(status.as_u16(), anonymous, "{path} anonymously");
    }
}

/// A value the parameter's schema allows, as a query string spells it.
fn sample(schema: &Value) -> &'static str {
    let schema = schema.get("anyOf").map_or(schema, |any| &any[0]);
    match (schema["type"].as_str(), schema["format"].as_str(), schema.get("pattern")) {
        (Some("integer"), ..) => "1",
        (Some("number"), ..) => "1.5",
        (_, Some("date-time"), _) => "2026-01-01T00:00:00Z",
        (_, Some("date"), _) => "2026-01-01",
        (_, _, Some(_)) => "true",
        _ => "a",
    }
}

/// Every documented list parameter with a value its schema allows is accepted; every lookup of a filterable field
/// that is not documented is a 422.
async fn check_filters(app: &TestApp, doc: &Value, path: &str, token: Option<&str>, filterable: &[&str]) {
    let params = list_parameters(doc, path);
    for param in &params {
        let name = param["name"].as_str().unwrap();
        // `__in` takes a comma-separated list of values of the field's type (its exact filter's schema).
        let value = match name.strip_suffix("__in") {
            Some(field) => {
                let exact = params.iter().find(|p| p["name"] == field).expect("the field's exact filter");
                format!("{0},{0}", sample(&exact["schema"]))
            }
            // `fields` names model fields (its pattern); every model has an `id`.
            None if name == "fields" => "id".to_string(),
            // `expand`: the first name its pattern `^(a|b)...` allows.
            None if name == "expand" => {
                let pattern = param["schema"]["pattern"].as_str().expect("a pattern");
                pattern[2..].split([')', '|']).next().expect("a name").to_string()
            }
            // A filter group (`or`): its documented example.
            None if name == "or" => param["schema"]["examples"][0].as_str().expect("an example").to_string(),
            // An enumeration (`count`): its first value.
            None if param["schema"]["enum"].is_array() => param["schema"]["enum"][0].as_str().unwrap().to_string(),
            None => sample(&param["schema"]).to_string(),
        };
        let (status, body) = app.send(Method::GET, &format!("{path}?{name}={value}"), token, None).await;
        assert_eq!(status, StatusCode::OK, "documented {name}={value}: {body}");
    }
    for field in filterable {
        for lookup in FilterLookup::ALL.into_iter().filter(|l| *l != FilterLookup::Exact) {
            let name = format!("{field}__{}", lookup.name());
            if params.iter().any(|p| p["name"] == name.as_str()) {
                continue;
            }
            let (status, body) = app.send(Method::GET, &format!("{path}?{name}=1"), token, None).await;
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "undocumented {name}: {body}");
        }
    }
}

async fn every_documented_filter_is_accepted_and_no_other_lookup(app: TestApp) {
    let doc = document(&app).await;
    let names: Vec<&str> = list_parameters(&doc, "/api/posts/").iter().map(|p| p["name"].as_str().unwrap()).collect();
    for absent in ["published__gt", "views__contains", "created_at__icontains", "rating__contains"] {
        assert!(!names.contains(&absent), "{absent} is always a 422 and must not be documented");
    }
    let present = ["views__gt", "published__isnull", "title__icontains", "created_at__lte", "author_id__in"];
    for present in present.into_iter().chain(["author__name__icontains", "author__email__isnull"]) {
        assert!(names.contains(&present), "{present} missing");
    }
    let views_gt = &parameter(&doc, "/api/posts/", "views__gt").unwrap()["schema"];
    assert_eq!(views_gt["type"], "number", "a fractional bound on an integer column is accepted (rounded)");
    for bound in ["2.5", "1e-5", "-1E3"] {
        let (status, body) = app.get(&format!("/api/posts/?views__lte={bound}")).await;
        assert_eq!(status, StatusCode::OK, "views__lte={bound} is a number: {body}");
    }
    let created = &parameter(&doc, "/api/posts/", "created_at__gt").unwrap()["schema"];
    assert_eq!(created["format"], "date-time");
    let filterable =
        ["published", "views", "author_id", "rating", "title", "created_at", "author__name", "author__email"];
    check_filters(&app, &doc, "/api/posts/", None, &filterable).await;
}

async fn tenants_filters_agree_with_the_server(app: TestApp) {
    let doc = serde_json::to_value(::tenants::openapi()).unwrap();
    let names: Vec<&str> =
        list_parameters(&doc, "/api/projects/").iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert!(!names.iter().any(|n| n.starts_with("tenant_id")), "the tenant field is not a filter: {names:?}");
    assert!(names.contains(&"archived__isnull") && !names.contains(&"archived__gt"), "{names:?}");
    assert_eq!(doc["paths"]["/api/projects/"]["get"]["security"], serde_json::json!([{"bearerAuth": []}]));
    check_filters(&app, &doc, "/api/projects/", tenants::BOB, &["name", "archived", "owner"]).await;
    check_filters(&app, &doc, "/api/notes/", tenants::BOB, &[]).await;
}

async fn conditional_requests_are_documented_as_served(app: TestApp) {
    let doc = document(&app).await;
    let detail = &doc["paths"]["/api/posts/{pk}"];
    let header = |op: &str, name: &str| {
        detail[op]["parameters"]
            .as_array()
            .expect("parameters")
            .iter()
            .find(|p| p["name"] == name && p["in"] == "header")
            .cloned()
    };
    assert!(header("get", "If-None-Match").is_some(), "{}", detail["get"]);
    assert!(detail["get"]["responses"]["304"].is_object());
    assert!(detail["get"]["responses"]["200"]["headers"]["ETag"].is_object());
    for op in ["patch", "delete"] {
        assert_eq!(header(op, "If-Match").map(|p| p["required"].clone()), Some(Value::Bool(false)), "{op}");
        assert!(detail[op]["responses"]["412"].is_object(), "{op}");
        assert!(detail[op]["responses"]["428"].is_null(), "{op}: the blog does not require If-Match");
    }
    assert!(doc["paths"]["/api/posts/"]["post"]["responses"]["201"]["headers"]["ETag"].is_object());

    // What the document says, the server does: the documented ETag, its 304, and a stale If-Match's 412.
    let first = app.client().get(format!("{}/api/posts/1", app.base)).send().await.expect("retrieve");
    let etag = first.headers()["etag"].clone();
    let again = app.client().get(format!("{}/api/posts/1", app.base)).header("if-none-match", etag).send().await;
    assert_eq!(again.expect("conditional retrieve").status(), StatusCode::NOT_MODIFIED);
    let stale = app
        .client()
        .patch(format!("{}/api/posts/1", app.base))
        .bearer_auth(BOB.unwrap())
        .header("if-match", "\"stale\"")
        .json(&serde_json::json!({"views": 1}))
        .send()
        .await
        .expect("patch");
    assert_eq!(stale.status(), StatusCode::PRECONDITION_FAILED);
}

/// Every `$ref` of the document names a component it defines.
#[test]
fn every_reference_resolves() {
    fn walk<'a>(value: &'a Value, refs: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                refs.extend(map.get("$ref").and_then(Value::as_str));
                map.values().for_each(|v| walk(v, refs));
            }
            Value::Array(items) => items.iter().for_each(|v| walk(v, refs)),
            _ => {}
        }
    }
    for doc in [serde_json::to_value(blog::openapi()).unwrap(), serde_json::to_value(::tenants::openapi()).unwrap()] {
        let mut refs = Vec::new();
        walk(&doc, &mut refs);
        assert!(refs.contains(&"#/components/responses/UriTooLong"), "{refs:?}");
        assert!(refs.contains(&"#/components/schemas/LimitError"), "{refs:?}");
        for reference in refs {
            let pointer = reference.strip_prefix('#').expect("a local reference");
            assert!(doc.pointer(pointer).is_some(), "{reference} does not resolve");
        }
    }
}

/// One documented answer of a shared response: its `code`, its `limit` (for `LimitError`), and the fields its
/// component schema requires.
#[derive(Debug)]
struct Answer {
    code: String,
    limit: Option<String>,
    required: Vec<String>,
}

/// The answers the shared response `name` documents (each variant narrows a component schema).
fn documented(doc: &Value, name: &str) -> Vec<Answer> {
    let schema = &doc["components"]["responses"][name]["content"]["application/json"]["schema"];
    let variants = schema.get("oneOf").and_then(Value::as_array).cloned().unwrap_or_else(|| vec![schema.clone()]);
    let text = |v: &Value| v.as_str().map(str::to_string);
    variants
        .iter()
        .map(|variant| {
            let base = variant["allOf"][0]["$ref"].as_str().expect("a narrowed component");
            let required = doc.pointer(&base[1..]).expect("resolves")["required"].as_array().expect("required").clone();
            let narrowing = &variant["allOf"][1]["properties"];
            Answer {
                code: text(&narrowing["code"]["enum"][0]).expect("code"),
                limit: text(&narrowing["limit"]["enum"][0]),
                required: required.iter().filter_map(text).collect(),
            }
        })
        .collect()
}

/// The server's answer is one the shared response `name` documents, with every field its schema requires.
fn assert_documented(doc: &Value, name: &str, status: StatusCode, body: &Value) {
    let status_of = doc["paths"]["/api/posts/"]["get"]["responses"][status.as_str()]["$ref"].clone();
    assert_eq!(status_of, format!("#/components/responses/{name}"), "{status} is {name}");
    let answers = documented(doc, name);
    let answer = answers
        .iter()
        .find(|a| body["code"] == a.code.as_str() && body["limit"].as_str() == a.limit.as_deref())
        .unwrap_or_else(|| panic!("{status} {body} is none of {name}'s documented answers: {answers:?}"));
    for field in &answer.required {
        assert!(body.get(field).is_some(), "{status} {body} lacks the required {field}");
    }
}

/// Serves `router` on a loopback port; the base URL and the server task.
async fn serve(router: axum::Router) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    (base, tokio::spawn(async move { axum::serve(listener, router).await.expect("serve") }))
}

/// The answers of `Limits` (413, 414, 431, 503 `request_timeout`) and of `Authenticate` (401 `invalid_token`) are
/// the documented ones, on a documented operation (`GET /api/posts/`, which reads no body: 413 is on every route).
async fn transport_and_token_errors_are_documented_as_served(app: TestApp) {
    use std::time::Duration;
    use viewset_core::auth::Authenticate;
    use viewset_core::limits::Limits;
    use viewset_core::{Principal, ServiceState};

    let doc = document(&app).await;
    let answer = |response: reqwest::Response| async move {
        let (status, headers) = (response.status(), response.headers().clone());
        (status, headers, response.json::<Value>().await.expect("a JSON error"))
    };
    let list = format!("{}/api/posts/", app.base);
    let long = app.client().get(format!("{list}?title={}", "x".repeat(9 * 1024))).send().await.expect("request");
    let (status, _, body) = answer(long).await;
    assert_eq!(status, StatusCode::URI_TOO_LONG);
    assert_documented(&doc, "UriTooLong", status, &body);
    let padded = app.client().get(&list).header("x-padding", "y".repeat(17 * 1024)).send().await.expect("request");
    let (status, _, body) = answer(padded).await;
    assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    assert_documented(&doc, "RequestHeaderFieldsTooLarge", status, &body);
    let big = app.client().get(&list).body(vec![b' '; 1024 * 1024 + 1]).send().await.expect("request");
    let (status, _, body) = answer(big).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_documented(&doc, "PayloadTooLarge", status, &body);

    // A strict `Authenticate` (the blog's demo layer lets a refused token continue anonymous).
    let strict = Authenticate::bearer(|_token: String| async { None::<Principal> });
    let state = ServiceState::new(app.db.clone());
    let router = Limits::default().apply(blog::api().into_router().with_state(state.clone()).layer(strict));
    let (base, server) = serve(router).await;
    let refused = app.client().get(format!("{base}/api/posts/")).bearer_auth("stale").send().await.expect("request");
    let (status, headers, body) = answer(refused).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_documented(&doc, "Unauthorized", status, &body);
    assert_eq!(
        headers["www-authenticate"],
        r#"Bearer error="invalid_token", error_description="The credential is invalid or expired.""#
    );
    assert!(doc["components"]["responses"]["Unauthorized"]["headers"]["WWW-Authenticate"].is_object());
    server.abort();

    // A list slower than `request_timeout` (a layer delays it).
    let slow = axum::middleware::from_fn(|request, next: axum::middleware::Next| async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        next.run(request).await
    });
    let limits = Limits::default().with_request_timeout(Duration::from_millis(50));
    let (base, server) = serve(limits.apply(blog::api().into_router().with_state(state).layer(slow))).await;
    let late = app.client().get(format!("{base}/api/posts/")).send().await.expect("request");
    let (status, _, body) = answer(late).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_documented(&doc, "ServiceUnavailable", status, &body);
    assert!(body["request_id"].is_string(), "{body}");
    server.abort();
}
