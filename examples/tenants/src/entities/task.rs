//! `tasks`: belong to a project; reached through the nested route `/api/projects/{project_id}/tasks`.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

/// A task of a project.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize, viewset_core::ModelSchema)]
#[sea_orm(table_name = "tasks")]
pub struct Model {
    /// Primary key.
    #[sea_orm(primary_key)]
    pub id: i32,
    /// The project.
    pub project_id: i32,
    /// Title.
    pub title: String,
}

/// Relations of a task.
#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    /// Its project.
    #[sea_orm(belongs_to = "super::project::Entity", from = "Column::ProjectId", to = "super::project::Column::Id")]
    Project,
}

impl Related<super::project::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Project.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
