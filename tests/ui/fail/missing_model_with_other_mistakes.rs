use viewset_core::prelude::*;

// A missing `model` no longer hides the other mistakes of the same attribute: all four are reported in one build.
#[derive(ModelViewSet)]
#[viewset(url_prefix = "/api/articles", prefix = "api/articles", default_limit = 0, max_limit = 0)]
pub struct ArticleViewSet;

fn main() {}
