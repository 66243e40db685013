use blog::entities::post;
use viewset_core::prelude::*;

// Alone, a misspelt relation is rustc's "no variant" error at the literal, which names the enum and suggests the
// variant.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, expandable = ["autor"])]
pub struct PostViewSet;

fn main() {}
