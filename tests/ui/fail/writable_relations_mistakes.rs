use blog::entities::post;
use viewset_core::prelude::*;

// A writable relation is one of `expandable`: a misspelt name is reported at its literal, with those it may be.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, expandable = ["author"], writable_relations = ["autor"])]
pub struct Misspelt;

// Nothing expandable, nothing writable.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, basename = "bare", writable_relations = ["author"])]
pub struct NotExpandable;

// Each name once.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, basename = "twice", expandable = ["author"], writable_relations = ["author", "author"])]
pub struct Twice;

// The bounds: at least 1, at most 3 relations deep and 10,000 rows, and only with writable relations.
#[derive(ModelViewSet)]
#[viewset(
    model = post::Entity,
    basename = "bounds",
    expandable = ["author"],
    writable_relations = ["author"],
    max_nested_depth = 0,
    max_nested_rows = 100000,
)]
pub struct Bounds;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, basename = "deep", expandable = ["author"], writable_relations = ["author"], max_nested_depth = 4)]
pub struct Deep;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, basename = "unused", expandable = ["author"], max_nested_rows = 10)]
pub struct Unused;

fn main() {}
