//! `books`.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};
use viewset_core::ModelSchema;

/// A book.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
#[sea_orm(table_name = "books")]
pub struct Model {
    /// Primary key.
    #[sea_orm(primary_key)]
    pub id: i32,
    /// Title.
    pub title: String,
    /// Author's name.
    pub author: String,
}

/// No relations.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
