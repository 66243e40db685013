use blog::entities::post;
use tenants::entities::project;
use viewset_core::prelude::*;

// Every mistake the attribute itself shows, in one build with a misspelt field: a relation path, a name listed
// twice, a name that is no field name, `max_groups` out of bounds, the tenant field in a list, and an unknown key
// (with a did-you-mean; an item with an unknown key is left out, so it has a ViewSet of its own).
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    aggregates(
        group_by = ["author__name", "published", "published", "Views"],
        sum = ["views", "viewz"],
        max_groups = 0,
    ),
)]
pub struct PostViewSet;

#[derive(ModelViewSet)]
#[viewset(
    model = project::Entity,
    prefix = "/projects",
    tenant_field = "tenant_id",
    aggregates(group_by = ["owner", "tenant_id"], max_groups = 1000000),
)]
pub struct ProjectViewSet;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/third", aggregates(avgs = ["rating"]))]
pub struct ThirdViewSet;

fn main() {}
