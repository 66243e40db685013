//! `members`.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};
use viewset_core::ModelSchema;

/// A member.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
#[sea_orm(table_name = "members")]
pub struct Model {
    /// Primary key.
    #[sea_orm(primary_key)]
    pub id: i32,
    /// Name.
    pub name: String,
}

/// No relations.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
