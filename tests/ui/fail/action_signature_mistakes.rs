use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity)]
pub struct ArticleViewSet;

#[viewset_core::actions]
impl ArticleViewSet {
    // Not async.
    #[action]
    fn count(request: RequestContext) -> &'static str {
        let _ = request;
        "0"
    }

    // First parameter is not the request.
    #[action]
    async fn first(id: i32) -> String {
        id.to_string()
    }

    // A detail action receives the fetched record second.
    #[action(detail, methods = ["POST"])]
    async fn archive(request: RequestContext) -> &'static str {
        let _ = request;
        "x"
    }

    // Unknown method and a path with a parameter.
    #[action(methods = ["FETCH"], path = "{id}/x")]
    async fn odd(request: RequestContext) -> &'static str {
        let _ = request;
        "x"
    }
}

fn main() {}
