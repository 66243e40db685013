//! Relation embedding: `#[viewset(expandable = ["author"])]` lets a client ask `?expand=author` on list and
//! retrieve, and each record carries the related record (`"author": {...}` or `null`) or records (`"posts": [...]`
//! for a has-many relation) next to its own fields. `expand=author.profile` nests, through the related ViewSet's own
//! `expandable`, at most [`MAX_EXPAND_DEPTH`] relations deep.
//!
//! The related records come from the ViewSet registered for the related table ([`Embedders`], filled by
//! [`crate::Api`]), through [`crate::access`] like a list of their own: its `permission_classes` (a caller it does not
//! admit to `list` sees `null` / `[]`), `get_queryset` and row policies, object permissions, and hidden fields. So an
//! embedded record is one the caller could list, shown as that list shows it; nothing else is ever revealed.
//! One query per relation per page (never one per row): the keys of the page's rows in a single `IN (...)`.
//!
//! ```
//! # mod author { use sea_orm::entity::prelude::*;
//! #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
//! #   #[sea_orm(table_name = "authors")]
//! #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub name: String }
//! #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
//! #   impl ActiveModelBehavior for ActiveModel {} }
//! # mod post { use sea_orm::entity::prelude::*;
//! #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
//! #   #[sea_orm(table_name = "posts")]
//! #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub author_id: i32 }
//! #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
//! #   pub enum Relation {
//! #       #[sea_orm(belongs_to = "super::author::Entity", from = "Column::AuthorId", to = "super::author::Column::Id")]
//! #       Author,
//! #   }
//! #   impl ActiveModelBehavior for ActiveModel {} }
//! use viewset_core::prelude::*;
//!
//! #[derive(ModelViewSet)]
//! #[viewset(model = post::Entity, prefix = "/posts", expandable = ["author"])]
//! pub struct PostViewSet;
//!
//! #[derive(ModelViewSet)]
//! #[viewset(model = author::Entity, prefix = "/authors")]
//! pub struct AuthorViewSet;
//!
//! fn main() {
//!     let mut api = Api::new();
//!     api.include::<PostViewSet>().unwrap().include::<AuthorViewSet>().unwrap();
//!     let router = api.into_router(); // `GET /posts/?expand=author` embeds through AuthorViewSet
//!     assert_eq!(PostViewSet::CONFIG.expandable[0].name, "author");
//! }
//! ```

mod load;
mod registry;
mod tree;

use sea_orm::RelationDef;

pub use load::embed_rows;
pub use registry::{Embedder, Embedders};
pub(crate) use registry::{Hop, HopError, SharedEmbedders};
pub use tree::Expand;

/// One `expandable` entry: the name clients write in `?expand=` (and the key of the embedded value) and the
/// sea-orm relation it follows (the derive writes `|| Relation::Author.def()`, checked at compile time).
#[derive(Debug, Clone, Copy)]
pub struct Expandable {
    /// `author`.
    pub name: &'static str,
    /// The relation from this ViewSet's model.
    pub relation: fn() -> RelationDef,
}

/// Adds `embedded` (relation name, value) to `record`, a JSON object (anything else is left as it is).
///
/// ```
/// let mut record = serde_json::json!({"id": 1});
/// viewset_core::embed::attach(&mut record, vec![("author", serde_json::Value::Null)]);
/// assert_eq!(record, serde_json::json!({"id": 1, "author": null}));
/// ```
pub fn attach(record: &mut serde_json::Value, embedded: Vec<(&'static str, serde_json::Value)>) {
    if let serde_json::Value::Object(map) = record {
        map.extend(embedded.into_iter().map(|(name, value)| (name.to_string(), value)));
    }
}

/// The deepest `?expand=` path: `a.b.c`.
pub const MAX_EXPAND_DEPTH: usize = 3;

/// The most records one relation may embed into one response (a has-many relation over a page); more is a 422
/// asking for a smaller page.
pub const MAX_EMBEDDED_ROWS: u64 = 10_000;
