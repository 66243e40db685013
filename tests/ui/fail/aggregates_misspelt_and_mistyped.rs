use blog::entities::post;
use viewset_core::prelude::*;

// Fields rustc checks, all in one build: a misspelt field in each list (with the closest field), a text field to
// sum, a boolean to average, a boolean's minimum (no order); the valid names beside them are accepted.
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    aggregates(
        group_by = ["autor_id", "published"],
        sum = ["viewz", "title"],
        avg = ["published", "rating"],
        min = ["published", "created_at"],
        max = ["ratin"],
        count_distinct = ["slugg"],
    ),
)]
pub struct PostViewSet;

fn main() {}
