use blog::entities::{author, post};
use viewset_core::prelude::*;

// Every mistake of a related path, in one build: a relation not declared in `relations`, a field the related model
// does not have, a path two relations deep, a relation declared twice, a declaration that is no `name = Entity`,
// and an entity the model has no `Related` impl for.
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    filter_backends = [ServiceFilterBackend, OrderingFilter],
    relations(author = author::Entity, author = author::Entity, writer = "author", itself = post::Entity),
    filterable_fields = ["editor__name", "author__nmae", "author__posts__title", "itself__title"],
    ordering_fields = ["author__name"],
)]
pub struct PostViewSet;

fn main() {}
