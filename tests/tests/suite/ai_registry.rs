//! The AI tool registry: `ai_exposed = false` on a ViewSet or an `#[action]` removes its tools, an action with
//! several methods has one tool per method, a tool's name is its route's OpenAPI `operationId`, and two operations
//! with one name (exposed to AI or not) are a registration error naming both, which `basename` resolves.

use axum::Json;
use serde_json::{Value, json};
use viewset_core::Api;
use viewset_core::prelude::*;
use viewset_core::registration::{RegistrationError, ToolOperation, tools_of};
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "/a")]
pub struct Articles;

#[viewset_core::actions]
impl Articles {
    /// Kept from the AI tools.
    #[action(ai_exposed = false)]
    async fn internal(request: RequestContext) -> Json<Value> {
        let _ = request;
        Json(json!({}))
    }

    /// One tool per method.
    #[action(detail, methods = ["GET", "POST"])]
    async fn flag(request: RequestContext, article: article::Model) -> Json<article::Model> {
        let _ = request;
        Json(article)
    }
}

/// The same table under another prefix: its tool names are taken.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "/b")]
pub struct ArticlesAgain;

/// The same table, not exposed to AI: no tools, but its operation ids would still be `articles_*`.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "/c", ai_exposed = false)]
pub struct HiddenArticles;

/// The same table again, with names of its own.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "/d", ai_exposed = false, basename = "archived_articles")]
pub struct ArchivedArticles;

#[test]
fn exposure_and_names() {
    let tools = tools_of::<Articles>();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "articles_list",
            "articles_retrieve",
            "articles_create",
            "articles_update",
            "articles_delete",
            "articles_flag_get",
            "articles_flag_post"
        ]
    );
    let flag_get = &tools[5];
    assert_eq!(
        (flag_get.operation, flag_get.action, flag_get.path.as_str()),
        (ToolOperation::Action, Some("flag"), "/a/{pk}/flag")
    );
    assert!(flag_get.read_only && !tools[6].read_only && tools[6].destructive);
    assert_eq!(flag_get.doc, "One tool per method.");
    assert!(tools_of::<HiddenArticles>().is_empty());
}

#[test]
fn an_operation_name_collision_is_a_registration_error_naming_both() {
    let mut api = Api::new();
    api.include::<Articles>().unwrap();
    api.include::<ArchivedArticles>().unwrap();
    assert_eq!(api.tools().len(), 7, "ArchivedArticles is not exposed to AI");
    for again in [api.include::<ArticlesAgain>().unwrap_err(), api.include::<HiddenArticles>().unwrap_err()] {
        let RegistrationError::OperationCollision { operation, first, .. } = &again else { panic!("{again:?}") };
        assert_eq!((operation.as_str(), first.as_str()), ("articles_list", "Articles GET /a/"));
        let message = again.to_string();
        assert!(message.contains("basename = \"...\"") && message.contains("operation ids"), "{message}");
    }
    let err = api.include::<ArticlesAgain>().unwrap_err();
    assert!(err.to_string().contains("ArticlesAgain GET /b/"), "{err}");
    assert_eq!(api.tools().len(), 7, "a refused registration adds nothing");
    assert!(api.routes().iter().all(|r| !r.path.starts_with("/b/") && !r.path.starts_with("/c/")));
}

#[test]
fn operation_ids_are_the_tool_names() {
    let mut api = Api::new();
    api.include::<Articles>().unwrap().include::<ArchivedArticles>().unwrap();
    let doc = serde_json::to_value(api.openapi("t", "1")).unwrap();
    let mut ids: Vec<(String, String, String)> = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            ids.push((method.to_uppercase(), path.clone(), op["operationId"].as_str().unwrap().to_string()));
        }
    }
    for tool in api.tools() {
        let id = ids.iter().find(|(m, p, _)| m == tool.method && *p == tool.path).map(|(_, _, id)| id.as_str());
        assert_eq!(id, Some(tool.name.as_str()), "{} {}", tool.method, tool.path);
    }
    for route in api.routes() {
        let id = ids.iter().find(|(m, p, _)| m == route.method && *p == route.path).map(|(_, _, id)| id.clone());
        assert_eq!(id, route.operation_id, "{} {}", route.method, route.path);
    }
    let mut names: Vec<&str> = ids.iter().map(|(_, _, id)| id.as_str()).collect();
    assert!(names.contains(&"archived_articles_list") && names.contains(&"articles_stream"), "{names:?}");
    assert!(names.contains(&"articles_internal"), "an action kept from AI still has its operation id: {names:?}");
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count, "operation ids are unique");
}
