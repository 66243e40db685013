use blog::entities::post;
use viewset_core::prelude::*;

// A name that is no relation of the model, a name not in snake_case and a name given twice: all in one build.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, expandable = ["authr", "Author", "author", "author"])]
pub struct PostViewSet;

fn main() {}
