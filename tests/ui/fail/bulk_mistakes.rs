use viewset_core::prelude::*;
use viewset_tests::fixtures::article;

// A limit of no rows.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, bulk, max_bulk = 0)]
pub struct NoRows;

// A limit above any body limit.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "huge", bulk, max_bulk = 1000000)]
pub struct Huge;

// A limit without bulk writes.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "unused", max_bulk = 10)]
pub struct Unused;

// Bulk writes are `create`, `update` and `delete` (an upsert is `upsert_keys`); none named.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "upserts", bulk(create, upsert))]
pub struct Upserts;

#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "empty", bulk())]
pub struct Empty;

// One If-Match cannot carry the tag of every record.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "guarded", bulk, require_if_match)]
pub struct Guarded;

// Nor can a bulk update, alone.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "guarded_updates", require_if_match, bulk(create, update))]
pub struct GuardedUpdates;

// A bulk create can.
#[derive(ModelViewSet)]
#[viewset(model = article::Entity, basename = "guarded_creates", require_if_match, bulk(create))]
pub struct GuardedCreates;

fn main() {}
