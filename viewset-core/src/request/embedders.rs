//! What a request can reach beyond its own ViewSet: the registered ViewSets by table ([`Embedders`]) and the
//! relations `?expand=` embeds ([`Expand`]). They live with the [`RequestContext`] that carries them, because an
//! embedder is a function of the request. [`crate::embed`] parses `?expand=` and loads the records; the related
//! filters of [`crate::query`] ask the same embedders for their scoped queries.

use serde_json::Value as Json;

use super::RequestContext;
use crate::boxed::SendFuture;
use crate::error::ApiError;
use crate::types::lookups::FilterLookup;
use crate::types::options::Expandable;
use crate::types::query_limits::QueryLimits;

/// Loads the records of one table whose `column` is one of `keys`, as the caller may see them: `(key, record)`
/// pairs, the key being the JSON text of the record's `column` value.
type LoadFn =
    for<'a> fn(&'a RequestContext, Batch<'a>) -> SendFuture<'a, Result<Vec<(String, serde_json::Value)>, ApiError>>;

/// `R`'s scoped query for a related path, as the caller may run it (`None`: not admitted to its list).
type ScopeFn = for<'a> fn(&RequestContext, &Ask<'a>) -> Result<Option<sea_orm::sea_query::SelectStatement>, ApiError>;

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
    /// Its scoped query for a related-field filter or ordering term ([`crate::query::RelatedField`]).
    pub(crate) scope: ScopeFn,
    /// The ViewSet as the writer of rows a nested create names (set by [`crate::Api`]; `None`: not writable).
    pub(crate) writer: Option<&'static crate::request::nested::Writer>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").field("viewset", &self.viewset).field("table", &self.table).finish_non_exhaustive()
    }
}

/// The ViewSets of an [`crate::Api`] by table, for `?expand=`. [`crate::Api::into_router`] hands it to the
/// generated routes (and to action routes as a request extension); [`crate::RequestContext::embedders`] carries it
/// to the handlers.
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

/// The [`Embedders`] of one [`crate::Api`], shared with its generated routes as they are registered and filled when
/// the `Api` becomes a router (later registrations still serve the earlier ones' `?expand=`). A route holds it
/// instead of reading a request extension: an extension layer is one more boxed service level, cloned on every
/// request under every level above it.
#[derive(Clone, Default)]
pub(crate) struct SharedEmbedders(std::sync::Arc<std::sync::OnceLock<std::sync::Arc<Embedders>>>);

impl SharedEmbedders {
    /// Fills the cell (once; an `Api` becomes a router once).
    pub(crate) fn fill(&self, embedders: std::sync::Arc<Embedders>) {
        let _ = self.0.set(embedders);
    }

    /// The embedders, once filled.
    pub(crate) fn get(&self) -> Option<&std::sync::Arc<Embedders>> {
        self.0.get()
    }
}

/// What one relation asks of the ViewSet serving its table.
pub(crate) struct Batch<'a> {
    /// The column (database name) the keys are values of.
    pub column: &'a str,
    /// Distinct keys, as the embedding rows serialize them.
    pub keys: Vec<Json>,
    /// Relations to embed in the loaded records.
    pub nested: &'a Expand,
    /// Through a join table: the keys are values of its `parent` column, and each record is loaded once per row of
    /// it (a record linked to two embedding records is embedded in both).
    pub junction: Option<&'a crate::request::registry::Junction>,
}

/// The relations one request embeds, each with those embedded in its records in turn.
#[derive(Debug, Clone, Default)]
pub struct Expand {
    pub(crate) items: Vec<Item>,
}

/// One embedded relation, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// The `expandable` name: the key in each record.
    pub name: &'static str,
    /// Has-many: an array; otherwise one record or `null`.
    pub many: bool,
    /// The column of the embedding model holding the key.
    pub from: String,
    /// The column of the embedded model it matches.
    pub to: String,
    /// Who serves the embedded records.
    pub target: Embedder,
    /// A many-to-many relation's join table: `from` is then the embedding model's key, `to` the embedded model's.
    pub junction: Option<crate::request::registry::Junction>,
    /// What is embedded in those.
    pub nested: Expand,
}

impl Expand {
    /// Whether nothing is embedded.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// What a related path asks of the ViewSet serving the related table.
pub(crate) struct Ask<'a> {
    /// The related model's field the client named.
    pub field: &'a str,
    /// The database column the subquery selects when `filter` is given (the relation's `to` column).
    pub key: &'a str,
    /// The condition on `field` (a filter), or none (an ordering term: the subquery selects `field`).
    pub filter: Option<(FilterLookup, &'a str)>,
    /// The query parameter, for error locations.
    pub param: &'a str,
    /// The bounds of the original request.
    pub limits: QueryLimits,
}
