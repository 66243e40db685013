use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity)]
pub struct ArticleViewSet;

#[viewset_core::actions]
impl ArticleViewSet {
    #[action(detail, methods = ["POST"], ai_exposed = "no")]
    async fn publish(request: RequestContext, article: article::Model) -> axum::Json<article::Model> {
        let _ = request;
        axum::Json(article)
    }
}

fn main() {}
