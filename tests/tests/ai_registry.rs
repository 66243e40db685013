//! The AI tool registry: `ai_exposed = false` on a ViewSet or an `#[action]` removes its tools, an action with
//! several methods has one tool per method, and two tools with one name are a registration error naming both.

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

/// The same table, not exposed to AI: no tools, so no collision.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "/c", ai_exposed = false)]
pub struct HiddenArticles;

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
fn a_tool_name_collision_is_a_registration_error_naming_both() {
    let mut api = Api::new();
    api.include::<Articles>().unwrap();
    api.include::<HiddenArticles>().unwrap();
    assert_eq!(api.tools().len(), 7);
    let err = api.include::<ArticlesAgain>().unwrap_err();
    let RegistrationError::ToolCollision { tool, first, second } = &err else { panic!("{err:?}") };
    assert_eq!(
        (tool.as_str(), first.as_str(), second.as_str()),
        ("articles_list", "Articles GET /a/", "ArticlesAgain GET /b/")
    );
    let message = err.to_string();
    assert!(message.contains("ai_exposed = false"), "{message}");
    assert_eq!(api.tools().len(), 7, "a refused registration adds nothing");
    assert!(api.routes().iter().all(|r| !r.path.starts_with("/b/")));
}
