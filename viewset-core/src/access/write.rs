//! A PATCH in one statement: `UPDATE … WHERE <lookup> AND <required row policies> RETURNING *`, when nothing
//! between the read and the write of the usual path could look at the old row.

use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, Iterable, PrimaryKeyToColumn, QueryFilter};

use super::{Lookup, fetch_scoped, lookup_condition, permission::Permission, required_condition};
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::schema::{UpdateSchema, check_storable_body};
use crate::viewset::handlers::db_err;
use crate::viewset::{Hooks, ModelOf};

/// Whether a PATCH of `V` without `If-Match` may be written by [`update_in_scope`]: the scope is the default
/// `get_queryset` plus the required row policies (no `custom_hooks`), no permission of `V` checks objects
/// ([`Permission::checks_objects`]), the model's `ActiveModelBehavior` need not run (no `save_hooks`), the lookup
/// field is the single-column primary key (so at most one row matches) and the database has `RETURNING`.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use viewset_core::prelude::*;
/// use viewset_core::access::updates_in_one_statement;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, permission_classes = [IsAuthenticated])]
/// pub struct Posts;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, save_hooks)]
/// pub struct HookedPosts;
///
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let db = sea_orm::Database::connect("sqlite::memory:").await?;
/// assert!(updates_in_one_statement::<Posts>(&db));
/// assert!(!updates_in_one_statement::<HookedPosts>(&db));
/// # Ok(()) }
/// ```
pub fn updates_in_one_statement<V: Hooks>(db: &impl ConnectionTrait) -> bool {
    let mut checks_objects = false;
    let _ = V::permission_classes(&mut |p: &dyn Permission| {
        checks_objects |= p.checks_objects();
        Ok(())
    });
    let mut keys = <V::Entity as EntityTrait>::PrimaryKey::iter();
    let lookup_is_key = match (keys.next(), keys.next()) {
        (Some(key), None) => {
            crate::query::columns::field_name::<V::Entity>(key.into_column()) == V::CONFIG.lookup_field
        }
        _ => false,
    };
    !V::CONFIG.custom_hooks && !V::CONFIG.save_hooks && !checks_objects && lookup_is_key && db.support_returning()
}

/// Writes the sent fields of `data` to the record at `pk` in one `UPDATE … RETURNING`, its `WHERE` the lookup and
/// every required row policy: a record outside the caller's scope is not written and is a 404, as
/// [`super::fetch_visible`] would answer. `data` is validated first; an invalid body for a record outside the scope
/// is still a 404 (the record is looked up before the validation error is returned, as on the usual path). Call it
/// only when [`updates_in_one_statement`] holds and `data` is not empty.
pub async fn update_in_scope<V: Hooks>(
    request: &RequestContext,
    pk: &Lookup,
    data: V::Update,
) -> Result<ModelOf<V>, ApiError> {
    let active = match sendable::<V>(data) {
        Ok(active) => active,
        Err(invalid) => {
            fetch_scoped::<V>(request, pk).await?;
            return Err(invalid);
        }
    };
    let mut update = V::Entity::update_many().set(active).filter(lookup_condition::<V>(pk)?);
    if let Some(required) = required_condition::<V>(request)? {
        update = update.filter(required);
    }
    let written = Box::pin(update.exec_with_returning(&request.db)).await.map_err(db_err::<V>)?;
    written.into_iter().next().ok_or(ApiError::NotFound)
}

/// The `ActiveModel` of a validated, storable body: only the sent columns are set.
fn sendable<V: Hooks>(data: V::Update) -> Result<<V::Entity as EntityTrait>::ActiveModel, ApiError> {
    data.validate()?;
    let mut active = <<V::Entity as EntityTrait>::ActiveModel as ActiveModelTrait>::default();
    data.apply(&mut active);
    check_storable_body(&active)?;
    Ok(active)
}
