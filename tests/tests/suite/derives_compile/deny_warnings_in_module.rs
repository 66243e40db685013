#![deny(warnings)]
// The expansion of both derives and `#[actions]` causes no warning in the user's crate: a ViewSet in a private
// module, its actions, and one `use` line per item, each of them used (no unused import, no dead code).

mod api {
    use axum::Json;
    use axum::extract::Query;
    use viewset_core::ApiError;
    use viewset_core::ModelViewSet;
    use viewset_core::RequestContext;
    use viewset_core::actions::JsonBody;
    use viewset_core::prelude::IsAuthenticated;
    use viewset_core::prelude::SearchFilter;
    use viewset_tests::fixtures::article;

    /// Articles, at `/api/articles`.
    #[derive(ModelViewSet)]
    #[viewset(
        model = article::Entity,
        prefix = "/api/articles",
        permission_classes = [IsAuthenticated],
        filter_backends = [SearchFilter],
        search_fields = ["title"],
        lookup_field = "slug",
    )]
    pub struct ArticleViewSet;

    /// The body of `rename`.
    #[derive(serde::Deserialize)]
    pub struct Rename {
        pub title: String,
    }

    /// The query of `recent`.
    #[derive(serde::Deserialize)]
    pub struct Window {
        pub days: Option<u32>,
    }

    #[viewset_core::actions]
    impl ArticleViewSet {
        /// A detail action with a typed body.
        #[action(detail, methods = ["POST"], path = "rename")]
        async fn rename(
            request: RequestContext,
            article: article::Model,
            JsonBody(body): JsonBody<Rename>,
        ) -> Result<Json<String>, ApiError> {
            let _ = (request, article);
            Ok(Json(body.title))
        }

        /// A collection action with a query.
        #[action(path = "recent")]
        async fn recent(request: RequestContext, Query(window): Query<Window>) -> Json<u32> {
            let _ = request;
            Json(window.days.unwrap_or(7))
        }
    }
}

use viewset_core::ServiceState;
use viewset_core::include_viewset;

pub fn run() {
    let _: axum::Router = include_viewset::<api::ArticleViewSet, _>(axum::Router::new())
        .with_state(ServiceState::new(sea_orm::DatabaseConnection::default()));
}
