//! `?expand=author,comments.author`: parsed and resolved against the declared `expandable` relations and the
//! registered ViewSets before any row is read, so a wrong name is a 422 and costs no query.

use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::request::embedders::{Embedders, Expand, Item};
use crate::request::registry::{Hop, HopError};
use crate::types::options::Expandable;

fn invalid(msg: String, code: &str) -> ApiError {
    ApiError::input(["query", "expand"], msg, code)
}

impl Expand {
    /// `?expand=` of `request` for `V`: comma-separated paths of `expandable` names joined by dots. A name that is
    /// not expandable here, a path deeper than [`MAX_EXPAND_DEPTH`], or a relation whose table no registered
    /// ViewSet serves is a 422 at `["query", "expand"]`.
    ///
    /// ```
    /// # mod post { use sea_orm::entity::prelude::*;
    /// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
    /// #   #[sea_orm(table_name = "posts")]
    /// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
    /// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
    /// #   impl ActiveModelBehavior for ActiveModel {} }
    /// # async fn run() -> Result<(), sea_orm::DbErr> {
    /// use viewset_core::embed::Expand;
    /// use viewset_core::prelude::*;
    /// use viewset_core::query::QueryParams;
    ///
    /// #[derive(ModelViewSet)]
    /// #[viewset(model = post::Entity, prefix = "/posts")]
    /// pub struct PostViewSet;
    ///
    /// let db = sea_orm::Database::connect("sqlite::memory:").await?;
    /// let mut request = RequestContext::new(db, Operation::List);
    /// assert!(Expand::parse::<PostViewSet>(&request).unwrap().is_empty());
    /// request.query = QueryParams::parse(Some("expand=author"));
    /// let err = Expand::parse::<PostViewSet>(&request).unwrap_err();
    /// assert!(err.to_string().contains("`author` cannot be expanded"));
    /// # Ok(()) }
    /// ```
    pub fn parse<V: ViewSet>(request: &RequestContext) -> Result<Expand, ApiError> {
        let Some(raw) = request.query.one("expand")? else { return Ok(Expand::default()) };
        let mut expand = Expand::default();
        for path in raw.split(',') {
            let names: Vec<&str> = path.split('.').collect();
            if names.len() > MAX_EXPAND_DEPTH {
                let msg = format!("`{path}` is deeper than {MAX_EXPAND_DEPTH} relations (limit MAX_EXPAND_DEPTH)");
                return Err(invalid(msg, "expand_too_deep"));
            }
            expand.insert(&names, V::CONFIG.expandable, request.embedders.as_deref())?;
        }
        Ok(expand)
    }

    pub(crate) fn insert(
        &mut self,
        names: &[&str],
        declared: &'static [Expandable],
        embedders: Option<&Embedders>,
    ) -> Result<(), ApiError> {
        let Some((first, rest)) = names.split_first() else { return Ok(()) };
        let Some(entry) = declared.iter().find(|e| e.name == *first) else {
            let allowed: Vec<&str> = declared.iter().map(|e| e.name).collect();
            let msg = match allowed.is_empty() {
                true => format!("`{first}` cannot be expanded: nothing is expandable here"),
                false => format!("`{first}` cannot be expanded; expandable: {}", allowed.join(", ")),
            };
            return Err(invalid(msg, "unknown_field"));
        };
        let index = match self.items.iter().position(|item| item.name == entry.name) {
            Some(index) => index,
            None => {
                self.items.push(resolve(entry, embedders)?);
                self.items.len() - 1
            }
        };
        let item = &mut self.items[index];
        item.nested.insert(rest, item.target.expandable, embedders)
    }
}

/// The relation of `entry` with the ViewSet that serves its table.
fn resolve(entry: &Expandable, embedders: Option<&Embedders>) -> Result<Item, ApiError> {
    let hop = Hop::of(&(entry.relation)(), (entry.via)(), embedders).map_err(|error| {
        let msg = match error {
            HopError::Unserved(table) => {
                format!(
                    "`{}` cannot be expanded here: no ViewSet serving `{table}` is registered with this API",
                    entry.name
                )
            }
            HopError::Composite => {
                format!("`{}` cannot be expanded: relations over composite keys are not supported", entry.name)
            }
        };
        invalid(msg, "expand_unavailable")
    })?;
    Ok(Item {
        name: entry.name,
        many: hop.many,
        from: hop.from_col.to_string(),
        to: hop.to_col.to_string(),
        target: hop.target,
        junction: hop.junction,
        nested: Expand::default(),
    })
}

/// The deepest `?expand=` path: `a.b.c`.
pub const MAX_EXPAND_DEPTH: usize = 3;
