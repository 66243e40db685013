use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// A field without a unique index: two rows may hold one title, so it cannot say which record exists.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, upsert_keys = ["slug", "title"])]
pub struct NotUnique;

// No such field.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "misspelt", upsert_keys = ["slgu"])]
pub struct Misspelt;

fn main() {}
