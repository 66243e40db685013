use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity)]
pub struct ArticleViewSet;

#[viewset_core::actions]
impl ArticleViewSet {
    #[action]
    async fn stats(&self, request: RequestContext) -> &'static str {
        let _ = request;
        "x"
    }
}

fn main() {}
