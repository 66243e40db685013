//! Registration, discovery and the OpenAPI document: helpers' return values, duplicate and collision errors
//! naming both sides, every route documented, `/openapi.json` and `/docs` served.

use std::collections::BTreeSet;

use reqwest::StatusCode;
use viewset_core::__private::utoipa::openapi::path::HttpMethod;
use viewset_core::registration::{RegistrationError, Settings, include_all_app_viewsets, include_app_viewsets};
use viewset_core::{Api, ServiceState, discover_viewsets, include_viewset};
use viewset_tests::fixtures::{colliding, paged};
use viewset_tests::harness::{Backend, TestApp};

#[test]
fn include_twice_is_an_error_naming_both() {
    let mut api = Api::new();
    api.include::<blog::PostViewSet>().unwrap();
    let err = api.include::<blog::PostViewSet>().unwrap_err();
    assert!(matches!(err, RegistrationError::Duplicate { .. }));
    assert_eq!(
        err.to_string(),
        "PostViewSet is registered twice: explicitly, then explicitly; register each ViewSet once (explicitly or through discovery, not both)"
    );
    assert_eq!(api.viewsets(), vec!["PostViewSet"], "the failed registration left nothing behind");
}

/// The free function cannot return an error (it returns the Router): a second registration of one ViewSet on the
/// same Router panics, naming the ViewSet, its prefix, the route axum refused, and `Api` as the fallible way.
#[test]
fn include_viewset_twice_panics_naming_the_viewset_and_api() {
    let router = include_viewset::<blog::PostViewSet, ServiceState>(axum::Router::new());
    let router = include_viewset::<blog::AuthorViewSet, ServiceState>(router);
    let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        include_viewset::<blog::PostViewSet, ServiceState>(router)
    }));
    let payload = again.expect_err("registering PostViewSet twice on one Router panics");
    let message = payload.downcast_ref::<String>().expect("a formatted message");
    assert!(
        message.starts_with(
            "include_viewset::<PostViewSet>: a route of PostViewSet (prefix `/api/posts`) is already on this Router"
        ),
        "{message}"
    );
    assert!(message.contains("Overlapping method route. Handler for `GET /api/posts/"), "axum's detail: {message}");
    assert!(message.contains("register through viewset_core::Api (`api.include::<PostViewSet>()?`)"), "{message}");
}

/// An action's route counts too: `PostViewSet`'s `GET /api/posts/stats` over a hand-written route of that path.
#[test]
fn include_viewset_over_a_route_of_its_actions_panics_naming_the_viewset() {
    let mine = axum::routing::get(|| async { "mine" });
    let router = axum::Router::<ServiceState>::new().route("/api/posts/stats", mine);
    let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        include_viewset::<blog::PostViewSet, ServiceState>(router)
    }));
    let payload = again.expect_err("the action's route is already on the Router");
    let message = payload.downcast_ref::<String>().expect("a formatted message");
    assert!(message.starts_with("include_viewset::<PostViewSet>: a route of PostViewSet"), "{message}");
    assert!(message.contains("GET /api/posts/stats"), "axum's detail: {message}");
}

#[test]
#[should_panic(expected = "include_viewset::<SamePrefixPosts>: a route of SamePrefixPosts (prefix `/api/posts`)")]
fn include_viewset_over_a_colliding_viewset_panics_naming_it() {
    let router = include_viewset::<blog::PostViewSet, ServiceState>(axum::Router::new());
    let _ = include_viewset::<colliding::SamePrefixPosts, ServiceState>(router);
}

#[test]
fn explicit_then_discovered_is_an_error_naming_both() {
    let mut api = Api::new();
    api.include::<apps::library::api::BookViewSet>().unwrap();
    let err = include_app_viewsets(&mut api, "library", "api").unwrap_err();
    assert_eq!(
        err,
        RegistrationError::Duplicate {
            viewset: "BookViewSet".into(),
            first: "explicitly".into(),
            second: "through discovery of app `library`".into(),
        }
    );
}

#[test]
fn colliding_routes_are_an_error_naming_both() {
    let mut api = Api::new();
    api.include::<blog::PostViewSet>().unwrap();
    let err = api.include::<colliding::SamePrefixPosts>().unwrap_err();
    let message = err.to_string();
    assert!(message.contains("GET /api/posts/"), "{message}");
    assert!(
        message.contains("PostViewSet (explicitly)") && message.contains("SamePrefixPosts (explicitly)"),
        "{message}"
    );
    let manual = api.route(HttpMethod::Get, "/api/posts/{id}", axum::routing::get(|| async { "x" }), "shadow");
    assert!(manual.unwrap_err().to_string().contains("manual route GET /api/posts/{id}"));
}

#[test]
fn discover_viewsets_returns_public_viewsets_and_registers_nothing() {
    let names: Vec<_> = discover_viewsets!(viewset_tests::fixtures::paged).iter().map(|e| e.name).collect();
    let expected = [
        "AdminPosts",
        "ComposedPosts",
        "CursorPosts",
        "PagedPosts",
        "PublishedPosts",
        "ReadOnlyPosts",
        "StreamAuthors",
        "UncountedPosts",
        "UnlistedOrderingPosts",
    ];
    assert_eq!(names, expected);
    let names: Vec<_> = discover_viewsets!(apps::members::api).iter().map(|e| e.name).collect();
    assert_eq!(names, vec!["MemberViewSet"], "the private InternalMemberViewSet is not discovered");
    assert!(discover_viewsets!(apps::library).is_empty(), "only the module itself, not its children");
    let _ = paged::PagedPosts;
}

#[test]
fn app_helpers_return_what_they_registered() {
    let mut api = Api::new();
    assert_eq!(include_app_viewsets(&mut api, "library", "api").unwrap(), vec!["BookViewSet"]);
    assert_eq!(include_app_viewsets(&mut api, "library", "missing").unwrap(), Vec::<&str>::new());
    assert_eq!(include_app_viewsets(&mut api, "nonexistent", "api").unwrap(), Vec::<&str>::new());

    let mut api = Api::new();
    let settings = Settings::with_apps(["members", "nonexistent", "library"]);
    let registered = include_all_app_viewsets(&mut api, &settings, "api").unwrap();
    let expected: Vec<(String, Vec<&str>)> =
        vec![("library".into(), vec!["BookViewSet"]), ("members".into(), vec!["MemberViewSet"])];
    assert_eq!(registered.into_iter().collect::<Vec<_>>(), expected, "apps without ViewSets are left out");
    assert_eq!(api.viewsets(), vec!["MemberViewSet", "BookViewSet"], "in the settings' order");
    assert_eq!(Settings::from_vars([("SERVICE_APPS".into(), " a, ,b ".into())]).apps, vec!["a", "b"]);
}

#[test]
fn every_route_is_in_the_openapi_document() {
    let api = blog::api();
    let document = blog::openapi();
    let documented: BTreeSet<(String, String)> = document
        .paths
        .paths
        .iter()
        .flat_map(|(path, item)| {
            let json = serde_json::to_value(item).unwrap();
            ["get", "post", "put", "patch", "delete"]
                .into_iter()
                .filter(move |m| json.get(*m).is_some())
                .map(move |m| (m.to_uppercase(), path.clone()))
        })
        .collect();
    let served: BTreeSet<(String, String)> =
        api.routes().iter().map(|r| (r.method.to_string(), r.path.clone())).collect();
    assert_eq!(documented, served);
    assert!(served.contains(&("POST".into(), "/api/posts/{pk}/publish".into())));
    assert!(served.contains(&("GET".into(), "/api/posts/stats".into())));
    let json = serde_json::to_value(&document).unwrap();
    let list = &json["paths"]["/api/posts/"]["get"];
    let params: Vec<&str> =
        list["parameters"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    for expected in ["limit", "offset", "views__gte", "search", "ordering", "title"] {
        assert!(params.contains(&expected), "{expected} missing from {params:?}");
    }
    // The posts are `bulk`: a create is one record, a bulk create (its own operation) an array of them.
    let create = &json["paths"]["/api/posts/"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    let many = &json["paths"]["/api/posts/bulk"]["post"];
    assert_eq!(many["operationId"], "posts_create_many");
    let rows = &many["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!(rows["type"], "array", "{rows}");
    // A bulk row is a plain create body: `author_id` required, no nested `author`.
    assert_eq!(rows["items"]["required"], serde_json::json!(["title", "body", "author_id"]), "{rows}");
    assert!(rows["items"]["properties"].get("author").is_none(), "{rows}");
    assert_eq!(
        json["paths"]["/api/posts/"]["post"]["responses"]["201"]["content"]["application/json"]["schema"]["type"],
        "object"
    );
    assert_eq!(json["paths"]["/api/posts/upsert"]["post"]["operationId"], "posts_upsert");
    // The create answers what a nested write wrote (`writable_relations`): `author`, typed and optional.
    let answer = &json["paths"]["/api/posts/"]["post"]["responses"]["201"]["content"]["application/json"]["schema"];
    assert!(answer["properties"]["author"]["oneOf"].is_array(), "{answer}");
    assert!(!answer["required"].as_array().unwrap().contains(&serde_json::json!("author")), "{answer}");
    // `author_id` or, as the posts' `writable_relations` allow, `author` (`nested_writes.rs`).
    assert_eq!(create["required"], serde_json::json!(["title", "body"]));
    assert!(create["properties"]["author_id"].is_object() && create["properties"]["author"].is_object());
    assert_eq!(create["properties"]["title"]["maxLength"], 200);
    assert!(create["properties"].get("created_at").is_none(), "server-set fields are not in the create body");
    assert!(json["paths"]["/api/posts/{pk}"]["patch"]["responses"].get("422").is_some());
    // And a bulk update: an array of closed partial records, each naming its `id` (the only required field).
    let update = &json["paths"]["/api/posts/bulk"]["patch"];
    let rows = &update["requestBody"]["content"]["application/json"]["schema"];
    assert_eq!((rows["type"].as_str(), rows["minItems"].as_i64()), (Some("array"), Some(1)), "{rows}");
    assert_eq!(rows["items"]["additionalProperties"], false, "{rows}");
    assert_eq!(rows["items"]["required"], serde_json::json!(["id"]), "{rows}");
    assert_eq!(rows["items"]["properties"]["title"]["maxLength"], 200, "{rows}");
    assert_eq!(update["responses"]["200"]["content"]["application/json"]["schema"]["type"], "array");
    for status in ["204", "404", "422"] {
        assert!(update["responses"].get(status).is_some(), "{status}: {update}");
    }
    assert_eq!(
        json["paths"]["/api/posts/{pk}/publish"]["post"]["description"],
        "`POST /api/posts/{pk}/publish`: sets `published` (identity required)."
    );
}

#[tokio::test]
async fn openapi_json_and_docs_are_served() {
    let app = TestApp::blog(Backend::Sqlite).await;
    let (status, document) = app.get("/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(document["openapi"], "3.1.0");
    let response = app.client().get(format!("{}/docs/", app.base)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let html = response.text().await.unwrap();
    assert!(html.contains("swagger-ui"), "{html}");
    let asset = app.client().get(format!("{}/docs/swagger-ui-bundle.js", app.base)).send().await.unwrap();
    assert_eq!(asset.status(), StatusCode::OK, "assets are served by the app itself");
}
