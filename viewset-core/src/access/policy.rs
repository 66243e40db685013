//! Required row policies: conditions every query of a ViewSet carries, whatever the client sends and whatever
//! `get_queryset` an application writes. Two kinds:
//!
//! - `tenant_field = "tenant_id"`: rows are those of the principal's tenant; created rows are stamped with it;
//!   clients can neither send the field nor filter, search or order by it. A principal without a tenant is denied.
//! - `policy = [OwnRows]`: any [`RowPolicy`], e.g. "only rows the caller owns".
//!
//! They apply to list (after the filter backends, so query parameters cannot replace them), retrieve, update,
//! delete and custom actions; a row outside them is a 404 on detail routes.

use sea_orm::{ActiveModelTrait, ColumnTrait, Condition};

use crate::error::ApiError;
use crate::query::columns::column;
use crate::query::value::parse_value;
use crate::request::RequestContext;
use crate::viewset::ViewSet;

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

fn tenant_required() -> ApiError {
    ApiError::PermissionDenied("This resource requires a tenant.".into())
}

/// The principal's tenant as a value of the tenant column's type.
fn tenant_value<V: ViewSet>(
    request: &RequestContext,
    field: &str,
) -> Result<(<V::Entity as sea_orm::EntityTrait>::Column, sea_orm::Value), ApiError> {
    let col = column::<V::Entity>(field).ok_or_else(tenant_required)?;
    let tenant = request.principal.tenant_id.as_deref().ok_or_else(tenant_required)?;
    let value = parse_value(col.def().get_column_type(), tenant).map_err(|_| tenant_required())?;
    Ok((col, value))
}

/// Every required condition of `V` for this request, combined.
pub fn required_condition<V: ViewSet>(request: &RequestContext) -> Result<Option<Condition>, ApiError> {
    let mut all = Condition::all();
    let mut any_rule = false;
    if let Some(field) = V::CONFIG.tenant_field {
        let (col, value) = tenant_value::<V>(request, field)?;
        all = all.add(col.eq(value));
        any_rule = true;
    }
    V::row_policies(&mut |policy| {
        if let Some(condition) = policy.condition(request)? {
            all = std::mem::replace(&mut all, Condition::all()).add(condition);
            any_rule = true;
        }
        Ok(())
    })?;
    Ok(any_rule.then_some(all))
}

/// Stamps the principal's tenant on a row about to be inserted.
pub fn stamp_tenant<V: ViewSet>(
    request: &RequestContext,
    model: &mut <V::Entity as sea_orm::EntityTrait>::ActiveModel,
) -> Result<(), ApiError> {
    if let Some(field) = V::CONFIG.tenant_field {
        let (col, value) = tenant_value::<V>(request, field)?;
        model.try_set(col, value).map_err(|_| tenant_required())?;
    }
    Ok(())
}
