//! The `/ai` tool catalog over HTTP, on every database: one tool per exposed operation, named as the OpenAPI
//! operations are, each with the JSON Schema of its arguments and its route (the rest of `/ai`: `ai.rs`).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_studio::ENDPOINTS;
use viewset_tests::harness::TestApp;
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::blog_with_authed_studio;

on_every_database!(blog_with_authed_studio => catalog_has_one_tool_per_exposed_operation);

fn tool<'a>(catalog: &'a Value, name: &str) -> &'a Value {
    catalog["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{name}"))
}

async fn catalog_has_one_tool_per_exposed_operation(app: TestApp) {
    let (status, catalog) =
        viewset_tests::ai_client::ai_request(&app, Method::GET, "/ai/tools", true, None, None).await;
    assert_eq!(status, StatusCode::OK);
    let names: Vec<&str> = catalog["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    let expected: Vec<&str> = "posts_list posts_retrieve posts_create posts_update posts_delete posts_create_many \
         posts_update_many posts_delete_many posts_upsert posts_aggregate posts_publish posts_stats authors_list authors_retrieve \
         authors_create authors_update authors_delete authors_aggregate tags_list tags_retrieve tags_create tags_update \
         tags_delete"
        .split_whitespace()
        .collect();
    assert_eq!(names, expected);
    assert_eq!(catalog["count"], expected.len());
    let list = tool(&catalog, "posts_list");
    let properties = list["inputSchema"]["properties"].as_object().unwrap();
    for param in ["limit", "offset", "views__gte", "title__icontains", "author_id__in", "search", "ordering"] {
        assert!(properties.contains_key(param), "posts_list takes {param}");
    }
    assert!(!properties.contains_key("body__icontains"), "body is searchable, not filterable");
    assert_eq!(list["annotations"]["readOnlyHint"], true);
    let create = tool(&catalog, "posts_create");
    assert_eq!(create["inputSchema"]["required"], json!(["body"]));
    assert_eq!(create["inputSchema"]["properties"]["body"]["additionalProperties"], false);
    assert!(create["inputSchema"]["properties"]["body"]["properties"]["title"].is_object());
    assert_eq!(create["annotations"]["destructiveHint"], false);
    // `bulk`: an array of create bodies, and the keys of a bulk delete; `on_conflict` is the upsert's alone.
    let many = tool(&catalog, "posts_create_many");
    let body = &many["inputSchema"]["properties"]["body"];
    assert_eq!((body["type"].as_str(), body["maxItems"].as_u64()), (Some("array"), Some(1000)), "{body}");
    assert!(body["items"]["properties"]["title"].is_object(), "{body}");
    assert!(many["inputSchema"]["properties"].get("on_conflict").is_none());
    assert!(create["inputSchema"]["properties"].get("on_conflict").is_none());
    let upsert = tool(&catalog, "posts_upsert");
    assert_eq!(upsert["_meta"]["path"], "/api/posts/upsert");
    assert_eq!(upsert["inputSchema"]["properties"]["on_conflict"]["enum"], json!(["slug"]), "{upsert}");
    assert_eq!(upsert["inputSchema"]["properties"]["body"]["type"], "array", "{upsert}");
    assert_eq!(upsert["inputSchema"]["properties"]["body"]["items"]["required"][3], "slug", "{upsert}");
    let update_many = &tool(&catalog, "posts_update_many")["inputSchema"]["properties"]["body"];
    assert_eq!(update_many["type"], "array", "{update_many}");
    let delete_many = tool(&catalog, "posts_delete_many");
    assert!(delete_many["inputSchema"]["properties"]["id__in"].is_object(), "{delete_many}");
    assert_eq!(delete_many["annotations"]["destructiveHint"], true);
    let delete = tool(&catalog, "posts_delete");
    assert_eq!(
        (&delete["annotations"]["destructiveHint"], &delete["annotations"]["idempotentHint"]),
        (&json!(true), &json!(true))
    );
    assert_eq!(delete["inputSchema"]["required"], json!(["pk"]));
    assert_eq!(tool(&catalog, "posts_publish")["_meta"]["path"], "/api/posts/{pk}/publish");

    let (_, handshake) =
        viewset_tests::ai_client::ai_request(&app, Method::GET, "/studio/handshake", true, None, None).await;
    let caps: Vec<&str> = handshake["capabilities"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert!(caps.contains(&"ai_tools") && caps.contains(&"ai_query"), "{caps:?}");
    for unbuilt in ["ai_codegen", "ai_patch", "ai_planner"] {
        assert!(!caps.contains(&unbuilt), "{unbuilt} is not built");
    }
    // Every key at its fixed path, the code generator's included: capabilities, not `endpoints`, say what works.
    let endpoints = handshake["endpoints"].as_object().unwrap();
    assert_eq!(endpoints.len(), ENDPOINTS.len());
    for (key, path) in ENDPOINTS {
        assert_eq!(endpoints[key], path, "{key}");
    }
    let (_, summary) =
        viewset_tests::ai_client::ai_request(&app, Method::GET, "/studio/context/summary", true, None, None).await;
    assert_eq!(summary["ai_tool_count"], expected.len());
}
