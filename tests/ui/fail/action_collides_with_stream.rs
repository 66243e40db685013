use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity)]
pub struct ArticleViewSet;

#[viewset_core::actions]
impl ArticleViewSet {
    #[action]
    async fn stream(request: RequestContext) -> &'static str {
        let _ = request;
        "events"
    }
}

fn main() {}
