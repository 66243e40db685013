use blog::entities::{author, post};
use viewset_core::prelude::*;

// `search_fields` stays direct text columns (the spec): a related path there is refused, declared relation or not.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, filter_backends = [SearchFilter], relations(author = author::Entity), search_fields = ["author__name"])]
pub struct PostViewSet;

fn main() {}
