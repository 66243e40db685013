use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity)]
pub struct ArticleViewSet;

#[viewset_core::actions]
impl ArticleViewSet {
    #[action(path = "stats")]
    async fn stats(request: RequestContext) -> &'static str {
        let _ = request;
        "a"
    }

    #[action(path = "stats", methods = ["get", "POST"])]
    async fn other_stats(request: RequestContext) -> &'static str {
        let _ = request;
        "b"
    }
}

fn main() {}
