use axum::Json;
use axum::extract::Query;
use viewset_core::actions::JsonBody;
use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "/api/articles", permission_classes = [IsAuthenticatedOrReadOnly])]
pub struct ArticleViewSet;

#[derive(serde::Deserialize)]
pub struct Rename {
    pub title: String,
}

#[derive(serde::Deserialize)]
pub struct Window {
    pub days: Option<u32>,
}

#[viewset_core::actions]
impl ArticleViewSet {
    /// Detail action with a typed body and its own permissions.
    #[action(detail, methods = ["POST", "PUT"], path = "rename", permission_classes = [IsAuthenticated.and(IsAdminUser)])]
    async fn rename(
        request: RequestContext,
        article: article::Model,
        JsonBody(body): JsonBody<Rename>,
    ) -> Result<Json<String>, ApiError> {
        let _ = (request, article);
        Ok(Json(body.title))
    }

    /// Collection action with a query extractor, inheriting the ViewSet's permissions.
    #[action(path = "trending/week")]
    async fn trending(request: RequestContext, Query(window): Query<Window>) -> Json<u32> {
        let _ = request;
        Json(window.days.unwrap_or(7))
    }

    /// Not an action: stays an ordinary associated function.
    pub fn helper() -> u32 {
        1
    }
}

pub fn run() {
    let _ = ArticleViewSet::helper();
    let _: axum::Router = include_viewset::<ArticleViewSet, _>(axum::Router::new())
        .with_state(ServiceState::new(sea_orm::DatabaseConnection::default()));
}
