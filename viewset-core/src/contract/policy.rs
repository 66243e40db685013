//! Required row policies: conditions every query of a ViewSet carries, whatever the client sends and whatever
//! `get_queryset` an application writes. Two kinds:
//!
//! - `tenant_field = "tenant_id"`: rows are those of the principal's tenant; created rows are stamped with it;
//!   clients can neither send the field nor filter, search or order by it. A principal without a tenant is denied.
//! - `policy = [OwnRows]`: any [`RowPolicy`], e.g. "only rows the caller owns".
//!
//! They apply to list (after the filter backends, so query parameters cannot replace them), retrieve, update,
//! delete and custom actions; a row outside them is a 404 on detail routes.

use sea_orm::Condition;

use crate::error::ApiError;
use crate::request::RequestContext;

/// A required condition on the rows a request may touch.
///
/// ```
/// use sea_orm::{ColumnTrait, Condition};
/// use viewset_core::{ApiError, RequestContext, RowPolicy};
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel)] #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub owner: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// /// Callers see only their own posts; anonymous callers are denied.
/// struct OwnPosts;
/// impl RowPolicy for OwnPosts {
///     fn condition(&self, request: &RequestContext) -> Result<Option<Condition>, ApiError> {
///         let user = request.principal.user_id.clone().ok_or_else(|| ApiError::PermissionDenied("Sign in first.".into()))?;
///         Ok(Some(Condition::all().add(post::Column::Owner.eq(user))))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a row policy",
    label = "not a row policy",
    note = "policy takes values implementing `viewset_core::RowPolicy`; for tenant scoping use `tenant_field = \"...\"`"
)]
pub trait RowPolicy: Send + Sync {
    /// The condition rows must meet for this request (`None`: no restriction), or an error to deny it.
    fn condition(&self, request: &RequestContext) -> Result<Option<Condition>, ApiError>;
}
