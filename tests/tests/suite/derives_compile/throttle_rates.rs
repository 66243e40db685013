use axum::Json;
use viewset_core::prelude::*;
use viewset_core::throttle::{Period, Rate};
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(
    model = article::Entity,
    throttle(anon = "1/s", user = "1000000/second", staff = "3/hours", list = "5/m", retrieve = "6/minute",
             create = "7/hour", update = "8/day", delete = "9/d", stream = "10/min")
)]
pub struct ArticleViewSet;

#[viewset_core::actions]
impl ArticleViewSet {
    #[action(throttle = "5/minute")]
    async fn ping(request: RequestContext) -> Json<u8> {
        let _ = request;
        Json(1)
    }
}

pub fn run() {
    let throttles = <ArticleViewSet as ViewSet>::CONFIG.throttle;
    assert_eq!(throttles.anon, Some(Rate::new(1, Period::Second)));
    assert_eq!(throttles.user, Some(Rate::new(Rate::MAX_COUNT, Period::Second)));
    assert_eq!(throttles.operation("stream"), Some(Rate::new(10, Period::Minute)));
    assert_eq!(throttles.operations.len(), 6);
}
