//! The required row conditions of a ViewSet for one request (its tenant and its row policies, combined), and
//! the tenant stamped on the rows it creates. See [`crate::contract::policy`] for what they mean.

use sea_orm::{ActiveModelTrait, ColumnTrait, Condition};

use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::types::columns::column;
use crate::types::value::parse_value;

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
