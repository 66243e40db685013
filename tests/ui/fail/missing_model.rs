use viewset_core::prelude::*;

#[derive(ModelViewSet)]
#[viewset(prefix = "/api/articles")]
pub struct ArticleViewSet;

fn main() {}
