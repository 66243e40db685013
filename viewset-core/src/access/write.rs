//! A PATCH in one statement through the caller's scope: the conditions are decided here, the statement is the
//! store's ([`crate::store`]).

use sea_orm::{ActiveModelTrait, EntityTrait};

use super::fetch_scoped;
use crate::access::required::required_condition;
use crate::contract::hooks::Hooks;
use crate::contract::lookup::Lookup;
use crate::contract::viewset::ModelOf;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::schema::UpdateSchema;
use crate::schema::storable::check_storable_body;
use crate::store::run::On;

/// Writes the sent fields of `data` to the record at `pk` in one `UPDATE … RETURNING`, its `WHERE` the lookup and
/// every required row policy: a record outside the caller's scope is not written and is a 404, as
/// [`super::fetch_visible`] would answer. `data` is validated first; an invalid body for a record outside the scope
/// is still a 404 (the record is looked up before the validation error is returned, as on the usual path). Call it
/// only when the ViewSet's [`Plan::update_in_one_statement`](crate::store::Plan::update_in_one_statement) holds and
/// `data` is not empty.
pub async fn update_in_scope<V: Hooks>(
    request: &RequestContext,
    pk: &Lookup,
    data: V::Update,
) -> Result<ModelOf<V>, ApiError> {
    update_in_scope_on::<V>(request, pk, data, On::Pool(&request.db)).await
}

/// [`update_in_scope`] on `on` (a write's transaction, when its events are written with it).
pub(crate) async fn update_in_scope_on<V: Hooks>(
    request: &RequestContext,
    pk: &Lookup,
    data: V::Update,
    on: On<'_>,
) -> Result<ModelOf<V>, ApiError> {
    let active = match sendable::<V>(data) {
        Ok(active) => active,
        Err(invalid) => {
            fetch_scoped::<V>(request, pk).await?;
            return Err(invalid);
        }
    };
    let required = required_condition::<V>(request)?;
    let written = crate::store::update_where::<V>(on, active, pk.value.clone(), required);
    written.await?.ok_or(ApiError::NotFound)
}

/// The `ActiveModel` of a validated, storable body: only the sent columns are set.
fn sendable<V: Hooks>(data: V::Update) -> Result<<V::Entity as EntityTrait>::ActiveModel, ApiError> {
    data.validate()?;
    let mut active = <<V::Entity as EntityTrait>::ActiveModel as ActiveModelTrait>::default();
    data.apply(&mut active);
    check_storable_body(&active)?;
    Ok(active)
}
