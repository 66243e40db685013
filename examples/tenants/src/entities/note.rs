//! `notes`: private to their owner. The ViewSet narrows `get_queryset` to the owner's rows, and because detail
//! routes go through the same query, a guessed id of someone else's note is a 404.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};
use viewset_core::ModelSchema;

/// A private note.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
#[sea_orm(table_name = "notes")]
pub struct Model {
    /// Primary key.
    #[sea_orm(primary_key)]
    pub id: i32,
    /// Owner's user id (set by the server).
    #[viewset(read_only)]
    pub owner: String,
    /// Text.
    pub text: String,
}

/// No relations.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
