//! Who may do what, and to which rows: the one access path of every surface.
//!
//! REST routes, custom actions, the event stream and every surface still to come (MCP tools, `/ai` queries, Studio
//! panels, embedded relations) decide access by calling these functions and nothing else:
//!
//! | step | function |
//! |---|---|
//! | a route's first step: [`admit`], then the caller's rate limits ([`crate::throttle`]) | [`enter`] |
//! | permissions for an operation, then what the caller may see and query | [`admit`] (or [`admit_with`] for an action's own list) |
//! | the rows a caller may touch: `get_queryset` and the required row policies | [`scoped_query`] |
//! | the rows of a list: `get_queryset`, the filter backends, then the row policies again | [`scoped_list`] |
//! | one record as the caller may see it, after object permissions | [`fetch_visible`] (by `{pk}`, or [`fetch_visible_with`] an action's list) or [`fetch_where`] |
//! | the same, locked for a conditional write inside a transaction | [`begin_locking`], then [`fetch_visible_locked`] |
//! | many records by key, locked, for a bulk delete or an upsert (404 naming a key the caller may not see) | [`begin_locking`], then [`fetch_visible_many_locked`] (or [`fetch_visible_many_locked_by`] another unique field) |
//! | a PATCH in one `UPDATE … RETURNING` through the same scope, when the ViewSet's [`Plan`] allows it | [`update_in_scope`] |
//! | the fields a caller may see and write | set by [`admit`]: [`RequestContext::hidden_fields`], [`RequestContext::restricted_fields`] |
//!
//! The building blocks live in this module too: the [`Principal`] the application attaches, [`Permission`]s and
//! their composition, [`RowPolicy`]s and field visibility. This module decides who and which rows; the
//! [`store`](crate::store) runs the statements.
//!
//! ```
//! # mod post { use sea_orm::entity::prelude::*;
//! #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
//! #   #[sea_orm(table_name = "posts")]
//! #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
//! #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
//! #   impl ActiveModelBehavior for ActiveModel {} }
//! use viewset_core::access::{self, Lookup};
//! use viewset_core::prelude::*;
//!
//! #[derive(ModelViewSet)]
//! #[viewset(model = post::Entity, permission_classes = [IsAuthenticated])]
//! pub struct PostViewSet;
//!
//! /// A hand-written surface reading one post exactly as `GET /posts/{pk}` would.
//! async fn read(mut request: RequestContext, raw_pk: &str) -> Result<post::Model, ApiError> {
//!     access::admit::<PostViewSet>(&mut request, Operation::Retrieve)?;
//!     access::fetch_visible::<PostViewSet>(&request, &Lookup::parse::<PostViewSet>(raw_pk)?).await
//! }
//! ```

pub(crate) mod fields;
pub(crate) mod many;
pub(crate) mod required;
pub(crate) mod throttled;
pub(crate) mod write;

use sea_orm::{Condition, DatabaseTransaction, QueryFilter, QuerySelect, Select, Statement};

pub use crate::contract::composition::{And, Not, Or, PermissionExt};
pub use crate::contract::lookup::Lookup;
#[doc(hidden)]
pub use crate::contract::lookup::parse_lookup;
pub use crate::contract::permission::{
    AllowAny, HasScope, IsAdminUser, IsAuthenticated, IsAuthenticatedOrReadOnly, OperationPermission, Permission,
};
pub use crate::contract::policy::RowPolicy;
pub use crate::types::operation::Operation;
pub use crate::types::principal::Principal;
pub use fields::{Items, sparse_fields, visible};
pub use many::{fetch_visible_many_locked, fetch_visible_many_locked_by};
pub use required::{required_condition, stamp_tenant};
pub use throttled::check_throttles;
pub use write::update_in_scope;

use crate::contract::hooks::Hooks;
use crate::contract::viewset::ModelOf;
use crate::error::ApiError;
use crate::query::filter::apply_exact_filters_except;
use crate::request::{Reader, RequestContext};
use crate::store::plan::Plan;
use crate::store::read::Find;
use crate::throttle::Pass;
use crate::throttle::declared::Throttles;
use crate::types::list_query::ListQuery;
use crate::types::params::Filters;

/// A list of permissions, visited in order: what `permission_classes` compiles to (a ViewSet's
/// [`ViewSet::permission_classes`](crate::ViewSet::permission_classes), or an action's own list).
pub type PermissionList = fn(&mut dyn FnMut(&dyn Permission) -> Result<(), ApiError>) -> Result<(), ApiError>;

/// Admits `request` for `operation` under `V`'s `permission_classes` (403 on the first denial), then works out
/// what this caller may see ([`RequestContext::hidden_fields`]) and may write, filter, search or order by
/// ([`RequestContext::restricted_fields`]). Every generated route calls it first.
pub fn admit<V: Hooks>(request: &mut RequestContext, operation: Operation) -> Result<(), ApiError> {
    admit_with::<V>(request, operation, V::permission_classes)
}

/// [`admit`], then [`check_throttles`]: what every generated route and the stream run first, so a request over
/// a rate is refused (429) after its permissions and before any statement. The [`Pass`] carries the `RateLimit`
/// headers to the answer.
pub fn enter<V: Hooks>(
    request: &mut RequestContext,
    operation: Operation,
) -> impl Future<Output = Result<Pass, ApiError>> + Send + '_ {
    enter_with(request, operation, admit::<V>, throttled::throttles_of::<V>())
}

/// [`enter`] given a ViewSet's admission and its throttles (with its basename): the future is the same type for
/// every ViewSet. The generated routes call it through their ViewSet's table of operations. Both run in a `DEBUG`
/// span `admission` on the target `viewset::admission`.
pub(crate) fn enter_with<'a>(
    request: &'a mut RequestContext,
    operation: Operation,
    admit: fn(&mut RequestContext, Operation) -> Result<(), ApiError>,
    throttles: (&'static Throttles, &'static str),
) -> impl Future<Output = Result<Pass, ApiError>> + Send + 'a {
    let span = tracing::debug_span!(target: "viewset::admission", "admission", operation = operation.name());
    let admitted = span.in_scope(|| admit(request, operation));
    tracing::Instrument::instrument(throttled::entered(request, admitted, throttles), span)
}

/// `request` as a list request of `R`'s own, for records of `R` reached from another ViewSet (an embedded relation,
/// a related-field filter): no query parameters of its own, `R`'s permissions for `list` and `R`'s hidden fields.
/// `None` when `R` does not admit the caller.
pub(crate) fn admit_related<R: Hooks>(request: &RequestContext) -> Option<RequestContext> {
    let mut own = request.clone();
    own.query = crate::query::QueryParams::default();
    admit::<R>(&mut own, Operation::List).ok().map(|()| own)
}

/// Whether `V`'s `permission_classes` admit an anonymous caller to `operation`, at the request level (no row is
/// read, no object permission asked). The OpenAPI document's security and Studio's schema health ask it here.
///
/// ```
/// use viewset_core::access::admits_anonymous;
/// use viewset_core::{Hooks, Operation};
///
/// fn writes_need_a_login<V: Hooks>() -> bool {
///     [Operation::Create, Operation::Update, Operation::Delete].into_iter().all(|op| !admits_anonymous::<V>(op))
/// }
/// ```
pub fn admits_anonymous<V: Hooks>(operation: Operation) -> bool {
    let mut request = RequestContext::new(sea_orm::DatabaseConnection::default(), operation);
    request.principal = Principal::anonymous();
    admit::<V>(&mut request, operation).is_ok()
}

/// [`admit`] under an explicit permission list (a custom action's effective `permission_classes`).
pub fn admit_with<V: Hooks>(
    request: &mut RequestContext,
    operation: Operation,
    permissions: PermissionList,
) -> Result<(), ApiError> {
    request.operation = operation;
    permissions(&mut |p| crate::contract::permission::check(p, request))?;
    request.hidden_fields = V::hidden_fields(request);
    request.restricted_fields = fields::restricted_fields::<V>(&request.hidden_fields);
    request.omitted_fields = match operation {
        Operation::List | Operation::Retrieve | Operation::Stream => fields::sparse_fields::<V>(request)?,
        _ => Vec::new(),
    };
    if matches!(operation, Operation::List | Operation::Retrieve) {
        request.expand = crate::request::embedders::Expand::parse::<V>(request)?;
    }
    Ok(())
}

/// The rows `request` may touch: `get_queryset` (with the router's exact-match `filters`), then every required
/// row policy. Detail routes, actions, the stream and every other surface build on it.
pub fn scoped_query<V: Hooks>(request: &RequestContext, filters: &Filters) -> Result<Select<V::Entity>, ApiError> {
    let select = V::get_queryset(request, filters)?;
    with_required::<V>(select, request)
}

/// The list query of `request`: `get_queryset`, the filter backends, then the required row policies again (so
/// no query parameter and no backend can drop them). A parameter shaped like a filter that nothing read is a 422
/// `unknown_filter` (a filter is never silently ignored). Ordering terms are in the returned [`ListQuery`].
pub fn scoped_list<V: Hooks>(request: &RequestContext, filters: &Filters) -> Result<ListQuery<V::Entity>, ApiError> {
    let backend = request.db.get_database_backend();
    let base = if Plan::of::<V>(backend).default_scope {
        // The default `get_queryset`, from the entity's select with its column list rendered once. A parameter both
        // allowlists name is one condition, not two: `ServiceFilterBackend` reads it as the same exact match.
        let by_backend: &[&str] = if V::CONFIG.filters_with_lookups() { V::CONFIG.filterable_fields } else { &[] };
        apply_exact_filters_except(crate::store::prototype::<V::Entity>(backend), filters, backend, by_backend)?
    } else {
        V::get_queryset(request, filters)?
    };
    let mut query = V::filter_queryset(ListQuery::new(base), request)?;
    crate::query::unread::refuse_unread::<V>(request)?;
    query.select = with_required::<V>(query.select, request)?;
    Ok(query)
}

/// The rows `request`'s view holds: for a stream subscriber, the list's query of its parameters (the router's
/// exact-match filters, the filter backends: lookups, `or=` groups, related fields, search) with the required row
/// policies; for every other surface, [`scoped_query`]. What the stream and the surfaces after it (a delivery, a
/// record's visibility) decide per record.
pub(crate) fn view_scope<V: Hooks>(request: &RequestContext) -> Result<Select<V::Entity>, ApiError> {
    if request.operation != Operation::Stream {
        return scoped_query::<V>(request, &Filters::new());
    }
    let paginator = <V::Pagination as crate::contract::paginator::Paginator>::PARAMETERS;
    let filters = crate::query::router_filters(request, &V::get_filter_fields(), paginator)?;
    Ok(scoped_list::<V>(request, &filters)?.select)
}

fn with_required<V: Hooks>(select: Select<V::Entity>, request: &RequestContext) -> Result<Select<V::Entity>, ApiError> {
    Ok(narrowed::<V>(select, required_condition::<V>(request)?))
}

fn narrowed<V: Hooks>(select: Select<V::Entity>, required: Option<Condition>) -> Select<V::Entity> {
    match required {
        Some(required) => select.filter(required),
        None => select,
    }
}

/// The record at `pk` as the caller may see it: through [`scoped_query`] (404 outside it), then `V`'s object
/// permissions (403).
pub fn fetch_visible<'a, V: Hooks>(
    request: &'a RequestContext,
    pk: &'a Lookup,
) -> impl Future<Output = Result<ModelOf<V>, ApiError>> + Send + 'a {
    fetch_visible_with::<V>(request, pk, V::permission_classes)
}

/// [`fetch_visible`] under an explicit permission list (a detail action's effective `permission_classes`). The
/// statement is decided before the read and the row decoded after it: the read is a future of one type for every
/// ViewSet, awaited here, so a retrieve runs one future of its ViewSet's own between the route and the row.
pub async fn fetch_visible_with<V: Hooks>(
    request: &RequestContext,
    pk: &Lookup,
    permissions: PermissionList,
) -> Result<ModelOf<V>, ApiError> {
    let (reader, statement) = lookup_statement::<V>(request, pk)?;
    let model = crate::store::decoded::<V>(crate::store::lookup_row(reader, statement).await)?;
    let model = model.ok_or(ApiError::NotFound)?;
    permissions(&mut |p| crate::contract::permission::check_object(p, request, &model))?;
    Ok(model)
}

/// The record at `pk` through [`scoped_query`] (404 outside it), without object permissions.
pub async fn fetch_scoped<V: Hooks>(request: &RequestContext, pk: &Lookup) -> Result<ModelOf<V>, ApiError> {
    let (reader, statement) = lookup_statement::<V>(request, pk)?;
    crate::store::decoded::<V>(crate::store::lookup_row(reader, statement).await)?.ok_or(ApiError::NotFound)
}

/// Where and how to read the record at `pk` through [`scoped_query`]: in the default scope with no required row
/// policy for this caller, the lookup alone (a statement the store builds once per ViewSet).
fn lookup_statement<'a, V: Hooks>(
    request: &'a RequestContext,
    pk: &Lookup,
) -> Result<(Reader<'a>, Statement), ApiError> {
    let what = if Plan::of::<V>(request.db.get_database_backend()).default_scope {
        match required_condition::<V>(request)? {
            None => Find::Lookup(pk.value.clone()),
            // `scoped_query` with the condition already worked out.
            Some(required) => Find::First(
                narrowed::<V>(V::get_queryset(request, &Filters::new())?, Some(required))
                    .filter(lookup_condition::<V>(pk)?),
            ),
        }
    } else {
        Find::First(scoped_query::<V>(request, &Filters::new())?.filter(lookup_condition::<V>(pk)?))
    };
    let reader = request.reader();
    Ok((reader, crate::store::read::statement::<V>(reader.backend(), what)?))
}

/// The one record meeting `condition` through [`scoped_query`] (404 outside it), after the object permissions of
/// `permissions` (403): how an action, the stream or a tool loads a record.
pub async fn fetch_where<V: Hooks>(
    request: &RequestContext,
    condition: Condition,
    permissions: PermissionList,
) -> Result<ModelOf<V>, ApiError> {
    let model = find_scoped::<V>(request, condition).await?.ok_or(ApiError::NotFound)?;
    admit_object(request, &model, permissions)?;
    Ok(model)
}

/// The object permissions of `permissions` for `model`, a record already read through the caller's
/// [`scoped_query`] (403 on the first denial): what [`fetch_where`] runs after its read, for a surface that read the
/// record some other way (the stream, one statement for many views).
pub(crate) fn admit_object(
    request: &RequestContext,
    model: &dyn std::any::Any,
    permissions: PermissionList,
) -> Result<(), ApiError> {
    permissions(&mut |p| crate::contract::permission::check_object(p, request, model))
}

/// A transaction for a conditional write (`If-Match`): on SQLite it is begun `IMMEDIATE`, so it holds the
/// database's write lock from its first statement; on PostgreSQL [`fetch_visible_locked`] locks the row. Either
/// way a second writer of the same record waits until this one commits, then reads what it wrote.
pub fn begin_locking<V: Hooks>(
    request: &RequestContext,
) -> impl Future<Output = Result<DatabaseTransaction, ApiError>> + Send + '_ {
    crate::store::begin_immediate::<V>(&request.db)
}

/// [`fetch_visible`] inside `txn` (from [`begin_locking`]), the row locked until the transaction ends
/// (`SELECT … FOR UPDATE` on PostgreSQL): a compare-then-write such as `If-Match` compares the version it writes.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use viewset_core::access::{self, Lookup};
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity)]
/// pub struct PostViewSet;
///
/// /// Read a post, decide, write: no other writer can change it in between.
/// async fn guarded(request: RequestContext, pk: Lookup) -> Result<post::Model, ApiError> {
///     let txn = access::begin_locking::<PostViewSet>(&request).await?;
///     let post = access::fetch_visible_locked::<PostViewSet>(&request, &pk, &txn).await?;
///     // … compare and write through `&txn` …
///     txn.commit().await.map_err(|e| ApiError::from_db(e, "posts"))?;
///     Ok(post)
/// }
/// ```
pub async fn fetch_visible_locked<V: Hooks>(
    request: &RequestContext,
    pk: &Lookup,
    txn: &DatabaseTransaction,
) -> Result<ModelOf<V>, ApiError> {
    let select = scoped_query::<V>(request, &Filters::new())?.filter(lookup_condition::<V>(pk)?).lock_exclusive();
    let model = crate::store::find::<V>(txn, Find::First(select)).await?.ok_or(ApiError::NotFound)?;
    V::permission_classes(&mut |p| crate::contract::permission::check_object(p, request, &model))?;
    Ok(model)
}

async fn find_scoped<V: Hooks>(request: &RequestContext, condition: Condition) -> Result<Option<ModelOf<V>>, ApiError> {
    let select = view_scope::<V>(request)?.filter(condition);
    crate::store::find::<V>(request.reader(), Find::First(select)).await
}

fn lookup_condition<V: Hooks>(pk: &Lookup) -> Result<Condition, ApiError> {
    crate::store::lookup_condition::<V>(pk.value.clone())
}
