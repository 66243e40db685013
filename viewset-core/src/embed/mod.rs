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

pub(crate) mod load;
pub(crate) mod tree;

pub use crate::access::fields::attach;
pub use crate::request::embedders::{Embedder, Embedders, Expand};
pub use crate::types::options::Expandable;
pub use load::{MAX_EMBEDDED_ROWS, embed_rows};
pub use tree::MAX_EXPAND_DEPTH;
