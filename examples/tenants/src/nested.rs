//! A nested route written by hand: `/api/projects/{project_id}/tasks`. A parent id in a path scopes nothing by
//! itself, so the handler checks the parent explicitly through the one access path (`viewset_core::access`): it
//! admits the request under `ProjectViewSet`'s permissions and fetches the project through its tenant policy (another tenant's project is a 404) before touching any task.

use axum::Json;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, Set};
use serde::Deserialize;
use viewset_core::access::{self, Lookup};
use viewset_core::actions::JsonBody;
use viewset_core::{ApiError, Operation, RequestContext};

use crate::entities::{project, task};
use crate::viewsets::ProjectViewSet;

/// The parent project, as the caller may see it.
async fn parent(
    request: &mut RequestContext,
    project_id: &str,
    operation: Operation,
) -> Result<project::Model, ApiError> {
    access::admit::<ProjectViewSet>(request, operation)?;
    access::fetch_visible::<ProjectViewSet>(request, &Lookup::parse::<ProjectViewSet>(project_id)?).await
}

/// `GET /api/projects/{project_id}/tasks`.
pub async fn list_tasks(mut request: RequestContext, Path(project_id): Path<String>) -> Response {
    let result = async {
        let project = parent(&mut request, &project_id, Operation::Retrieve).await?;
        let tasks = task::Entity::find()
            .filter(task::Column::ProjectId.eq(project.id))
            .order_by_asc(task::Column::Id)
            .all(&request.db)
            .await?;
        Ok::<_, ApiError>(Json(tasks).into_response())
    };
    result.await.unwrap_or_else(IntoResponse::into_response)
}

/// Body of a new task.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewTask {
    /// Title.
    pub title: String,
}

/// `POST /api/projects/{project_id}/tasks`: the project must be visible and changeable by the caller.
pub async fn create_task(
    mut request: RequestContext,
    Path(project_id): Path<String>,
    JsonBody(body): JsonBody<NewTask>,
) -> Response {
    let result = async {
        let project = parent(&mut request, &project_id, Operation::Update).await?;
        let created = task::ActiveModel { project_id: Set(project.id), title: Set(body.title), ..Default::default() }
            .insert(&request.db)
            .await?;
        Ok::<_, ApiError>((StatusCode::CREATED, Json(created)).into_response())
    };
    result.await.unwrap_or_else(IntoResponse::into_response)
}
