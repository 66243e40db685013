//! Which ViewSet serves embedded records of a table: the first registered for it.

use futures_util::future::BoxFuture;

use super::Expandable;
use super::load::{Batch, load};
use crate::error::ApiError;
use crate::viewset::Hooks;

/// Loads the records of one table whose `column` is one of `keys`, as the caller may see them: `(key, record)`
/// pairs, the key being the JSON text of the record's `column` value.
type LoadFn = for<'a> fn(
    &'a crate::RequestContext,
    Batch<'a>,
) -> BoxFuture<'a, Result<Vec<(String, serde_json::Value)>, ApiError>>;

/// A ViewSet as the server of embedded records of its table.
#[derive(Clone, Copy)]
pub struct Embedder {
    /// The ViewSet's name.
    pub viewset: &'static str,
    /// Its model's table.
    pub table: &'static str,
    /// Its own `expandable` (what `expand=a.b` may name after `a`).
    pub expandable: &'static [Expandable],
    pub(crate) load: LoadFn,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").field("viewset", &self.viewset).field("table", &self.table).finish_non_exhaustive()
    }
}

impl Embedder {
    /// `V` as the server of embedded `V` records.
    pub fn of<V: Hooks>() -> Self {
        Embedder {
            viewset: V::CONFIG.name,
            table: sea_orm::EntityName::table_name(&V::Entity::default()),
            expandable: V::CONFIG.expandable,
            load: load::<V>,
        }
    }
}

/// The ViewSets of an [`crate::Api`] by table, for `?expand=`. [`crate::Api::into_router`] installs it as a request
/// extension; [`crate::RequestContext::embedders`] carries it to the handlers.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use viewset_core::embed::{Embedder, Embedders};
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, prefix = "/posts")]
/// pub struct PostViewSet;
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, prefix = "/other/posts")]
/// pub struct OtherPosts;
///
/// let mut embedders = Embedders::default();
/// embedders.register(Embedder::of::<PostViewSet>());
/// embedders.register(Embedder::of::<OtherPosts>());
/// assert_eq!(embedders.for_table("posts").unwrap().viewset, "PostViewSet"); // the first one serves the table
/// ```
#[derive(Debug, Clone, Default)]
pub struct Embedders {
    embedders: Vec<Embedder>,
}

impl Embedders {
    /// Adds `embedder` unless its table already has one.
    pub fn register(&mut self, embedder: Embedder) {
        if self.for_table(embedder.table).is_none() {
            self.embedders.push(embedder);
        }
    }

    /// The ViewSet serving `table`.
    pub fn for_table(&self, table: &str) -> Option<&Embedder> {
        self.embedders.iter().find(|e| e.table == table)
    }
}
