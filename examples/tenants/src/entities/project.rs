//! `projects`: tenant-scoped; the tenant and the owner are set by the server.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};
use viewset_core::ModelSchema;

/// A project of one tenant.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
#[sea_orm(table_name = "projects")]
pub struct Model {
    /// Primary key.
    #[sea_orm(primary_key)]
    pub id: i32,
    /// The tenant (stamped from the principal; clients never send it).
    #[viewset(read_only)]
    pub tenant_id: String,
    /// The creator (stamped by the `before_save` hook of the ViewSet's create).
    #[viewset(read_only)]
    #[sea_orm(default_value = "")]
    pub owner: String,
    /// Name.
    #[viewset(max_length = 100)]
    pub name: String,
    /// Archived flag.
    #[sea_orm(default_value = false)]
    pub archived: bool,
    /// An optional code, unique across tenants (the upsert key: `POST /api/projects/?on_conflict=code`).
    #[viewset(max_length = 40)]
    #[sea_orm(unique)]
    pub code: Option<String>,
}

/// Relations of a project.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    /// Its tasks.
    #[sea_orm(has_many = "super::task::Entity")]
    Tasks,
}

impl Related<super::task::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Tasks.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
