use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "")]
pub struct ArticleViewSet;

pub fn run() {
    let _mount = include_viewset::<ArticleViewSet, ServiceState>;
}
