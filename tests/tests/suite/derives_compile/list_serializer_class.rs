use serde::Serialize;
use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

/// The list representation: a summary without the body.
#[derive(Serialize)]
pub struct ArticleSummary {
    pub id: i32,
    pub title: String,
    pub slug: String,
}

impl From<article::Model> for ArticleSummary {
    fn from(m: article::Model) -> Self {
        ArticleSummary { id: m.id, title: m.title, slug: m.slug }
    }
}

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "/api/articles", list_serializer_class = ArticleSummary)]
pub struct ArticleViewSet;

pub fn run() {
    let _mount = include_viewset::<ArticleViewSet, ServiceState>;
}
