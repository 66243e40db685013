use axum::Json;
use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(
    model = article::Entity,
    throttle(anon = "ten/minute", user = "0/day", staff = "1000001/second", create = "5/fortnight", list = "1000000000/day")
)]
pub struct ArticleViewSet;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "others", throttle(creat = "5/minute"))]
pub struct OtherArticles;

#[viewset_core::actions]
impl ArticleViewSet {
    #[action(throttle = "5 per minute")]
    async fn ping(request: RequestContext) -> Json<u8> {
        let _ = request;
        Json(1)
    }
}

fn main() {}
