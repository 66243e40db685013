use sea_orm::{ColumnTrait, QueryFilter, Select};
use viewset_core::prelude::*;
use viewset_core::query::Filters;
use viewset_tests::fixtures::article;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, prefix = "/api/published", custom_hooks)]
pub struct PublishedArticles;

impl Hooks for PublishedArticles {
    fn get_queryset(request: &RequestContext, filters: &Filters) -> Result<Select<article::Entity>, ApiError> {
        let base = viewset_core::viewset::base_queryset::<Self>(request, filters)?;
        Ok(base.filter(article::Column::Published.eq(true)))
    }
}

pub fn run() {
    let _mount = include_viewset::<PublishedArticles, ServiceState>;
}
