//! Writes through the driver connection: a PATCH in one statement (`UPDATE … WHERE <lookup> AND <required row
//! policies> RETURNING *`) when nothing between the read and the write of the usual path could look at the old row,
//! and a create as one `INSERT … RETURNING *` with the model's save hooks.

use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, Iterable, PrimaryKeyToColumn, QueryFilter, QueryTrait,
    Statement,
};

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
    let backend = request.db.get_database_backend();
    let required = required_condition::<V>(request)?;
    // sea-orm's `exec_with_returning` statement, read through the driver connection.
    let build = |active: <V::Entity as EntityTrait>::ActiveModel, required| -> Result<Statement, ApiError> {
        let mut update = V::Entity::update_many().set(active).filter(lookup_condition::<V>(pk)?);
        if let Some(required) = required {
            update = update.filter(required);
        }
        let mut query = update.into_query();
        query.returning(every_column::<V::Entity>(backend));
        Ok(backend.build(&query))
    };
    let statement = match required {
        None => super::cached::update_statement::<V>(backend, &active, pk, || build(active.clone(), None))?,
        Some(required) => build(active, Some(required))?,
    };
    let written =
        crate::database::query_one_decoded(&request.db, statement, V::decode_rows).await.map_err(db_err::<V>)?;
    written.ok_or(ApiError::NotFound)
}

/// The `ActiveModel` of a validated, storable body: only the sent columns are set.
fn sendable<V: Hooks>(data: V::Update) -> Result<<V::Entity as EntityTrait>::ActiveModel, ApiError> {
    data.validate()?;
    let mut active = <<V::Entity as EntityTrait>::ActiveModel as ActiveModelTrait>::default();
    data.apply(&mut active);
    check_storable_body(&active)?;
    Ok(active)
}

/// Inserts `active` as `ActiveModelTrait::insert` does — `before_save`, one `INSERT … RETURNING <every column>`,
/// `after_save` — with the statement built once per set of columns and read through the driver connection
/// ([`crate::database::query_one`]). A database without `RETURNING` takes sea-orm's own path (insert, then read the
/// key back).
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// # #[derive(Clone, Debug, PartialEq, DeriveEntityModel)] #[sea_orm(table_name = "posts")]
/// # pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// # #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// # impl ActiveModelBehavior for ActiveModel {} }
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::{ActiveValue::Set, ConnectionTrait};
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// db.execute_unprepared("CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT NOT NULL)").await?;
/// let active = post::ActiveModel { title: Set("hello".into()), ..Default::default() };
/// let stored = viewset_core::access::insert_returning(&db, active).await?;
/// assert_eq!((stored.id, stored.title.as_str()), (1, "hello"));
/// # Ok(()) }
/// ```
pub async fn insert_returning<A>(
    db: &sea_orm::DatabaseConnection,
    active: A,
) -> Result<<A::Entity as EntityTrait>::Model, sea_orm::DbErr>
where
    A: ActiveModelTrait + sea_orm::ActiveModelBehavior + Send,
    <A::Entity as EntityTrait>::Model: sea_orm::IntoActiveModel<A>,
{
    insert_decoded(db, active, crate::schema::rows::decode_by_name).await
}

/// [`insert_returning`] with the stored row decoded by `decode` (a ViewSet's [`crate::ViewSet::decode_rows`]).
pub(crate) async fn insert_decoded<A>(
    db: &sea_orm::DatabaseConnection,
    active: A,
    decode: crate::database::Decode<<A::Entity as EntityTrait>::Model>,
) -> Result<<A::Entity as EntityTrait>::Model, sea_orm::DbErr>
where
    A: ActiveModelTrait + sea_orm::ActiveModelBehavior + Send,
    <A::Entity as EntityTrait>::Model: sea_orm::IntoActiveModel<A>,
{
    if !db.support_returning() {
        return crate::database::boxed(|| active.insert(db)).await;
    }
    let active = Box::pin(A::before_save(active, db, true)).await?;
    let backend = db.get_database_backend();
    let statement = super::cached::insert_statement(backend, &active, || {
        let mut query = <A::Entity as EntityTrait>::insert(active.clone()).into_query();
        query.returning(every_column::<A::Entity>(backend));
        Ok::<_, sea_orm::DbErr>(backend.build(&query))
    })?;
    let stored = crate::database::query_one_decoded(db, statement, decode).await?;
    let stored = stored.ok_or_else(|| sea_orm::DbErr::RecordNotFound("Failed to find inserted item".into()))?;
    Box::pin(A::after_save(stored, db, true)).await
}

/// `RETURNING` every column of `E`, each as sea-orm's own `exec_with_returning` selects it (so the row decodes as the
/// model).
fn every_column<E: EntityTrait>(backend: sea_orm::DbBackend) -> sea_orm::sea_query::ReturningClause {
    let columns = E::Column::iter().map(|c| c.select_as(c.into_returning_expr(backend)));
    sea_orm::sea_query::Query::returning().exprs(columns)
}
