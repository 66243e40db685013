//! Which ViewSet serves embedded records of a table: the first registered for it.

use futures_util::future::BoxFuture;
use sea_orm::sea_query::{DynIden, TableRef};
use sea_orm::{Identity, RelationDef, RelationType};

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

/// `R`'s scoped query for a related path, as the caller may run it (`None`: not admitted to its list).
type ScopeFn = for<'a> fn(
    &crate::RequestContext,
    &crate::query::related::Ask<'a>,
) -> Result<Option<sea_orm::sea_query::SelectStatement>, ApiError>;

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
            scope: crate::query::related::scope::<V>,
        }
    }
}

/// A relation followed from its model: its two tables and single columns, and the ViewSet serving the related table.
/// Shared by `?expand=` and related-field filters, each wording its own 422s.
pub(crate) struct Hop {
    pub from_table: DynIden,
    pub from_col: DynIden,
    pub to_table: DynIden,
    pub to_col: DynIden,
    /// Has-many (the related side holds the key).
    pub many: bool,
    pub target: Embedder,
}

/// Why a relation cannot be followed here.
pub(crate) enum HopError {
    /// No registered ViewSet serves this table.
    Unserved(String),
    /// A relation over several columns.
    Composite,
}

impl Hop {
    /// `def` as followed through `embedders`.
    pub(crate) fn of(def: &RelationDef, embedders: Option<&Embedders>) -> Result<Hop, HopError> {
        let table = |t: &TableRef| match t {
            TableRef::Table(name, _) => Some(name.1.clone()),
            _ => None,
        };
        let single = |i: &Identity| match i {
            Identity::Unary(column) => Some(column.clone()),
            _ => None,
        };
        let to_table = table(&def.to_tbl);
        let name = to_table.as_ref().map(ToString::to_string).unwrap_or_default();
        let target = *embedders.and_then(|e| e.for_table(&name)).ok_or(HopError::Unserved(name))?;
        match (table(&def.from_tbl), to_table, single(&def.from_col), single(&def.to_col)) {
            (Some(from_table), Some(to_table), Some(from_col), Some(to_col)) => {
                Ok(Hop { from_table, from_col, to_table, to_col, many: def.rel_type == RelationType::HasMany, target })
            }
            _ => Err(HopError::Composite),
        }
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
