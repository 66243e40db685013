//! Aggregates: counts, sums, averages, minimums, maximums and distinct counts per group, and time buckets, over the
//! rows the caller may list, in one statement: `GET <prefix>/aggregate`.
//!
//! A ViewSet declares what may be grouped and computed, checked at compile time (every name a field of the model;
//! `sum` and `avg` numeric fields, `min` and `max` fields with an order). Without `aggregates(...)` there is no
//! route.
//!
//! ```
//! # mod post { use sea_orm::entity::prelude::*;
//! #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
//! #   #[sea_orm(table_name = "posts")]
//! #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub author_id: i32, pub published: bool,
//! #     pub views: i32, pub rating: Option<f64>, pub created_at: DateTimeUtc }
//! #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
//! #   impl ActiveModelBehavior for ActiveModel {} }
//! use viewset_core::prelude::*;
//!
//! #[derive(ModelViewSet)]
//! #[viewset(
//!     model = post::Entity,
//!     prefix = "/api/posts",
//!     aggregates(group_by = ["author_id", "published", "created_at"], sum = ["views"], avg = ["rating", "views"],
//!                max = ["created_at"], count_distinct = ["author_id"], max_groups = 500),
//! )]
//! pub struct PostViewSet;
//!
//! let declared = <PostViewSet as ViewSet>::CONFIG.aggregates.unwrap();
//! assert_eq!((declared.sum, declared.max_groups), (&["views"][..], 500));
//! ```
//!
//! `GET /api/posts/aggregate?group_by=author_id,published&count&sum=views&avg=rating&order_by=-sum_views&limit=10`
//! answers
//!
//! ```json
//! {"groups": [{"author_id": 1, "published": true, "count": 3, "sum_views": 10, "avg_rating": 4.2}], "truncated": false}
//! ```
//!
//! | parameter | means |
//! |---|---|
//! | `group_by=a,b` | the group keys (at most [`MAX_GROUP_KEYS`]); a date or time field also by a [`Bucket`]: `created_at__month`. None: one group, the whole set |
//! | `count` | each group's rows, as `count` (also answered when nothing else is asked for) |
//! | `sum=`, `avg=`, `min=`, `max=`, `count_distinct=` | comma-separated declared fields; answered as `sum_views`, `avg_rating`, … |
//! | `order_by=-sum_views,author_id` | group keys and aliases of this request, `-` for descending; then every key ascending. NULLs first ascending, last descending |
//! | `having=count__gte:5,sum_views__lt:100` | conditions on aggregates of this request: `gt`, `gte`, `lt`, `lte`, `exact` |
//! | `limit=10` | at most this many groups (default and maximum: `max_groups`); `"truncated": true` says more existed |
//! | `tz=Europe/Berlin` | the zone time buckets are cut in (UTC by default), daylight-saving changes included, on every database |
//! | anything else | the list's own parameters (filters, `or=`, related filters, `search`, full-text search), narrowing the rows as they narrow the list |
//!
//! **The same rows as the list.** The route admits the caller for [`Operation::Aggregate`](crate::Operation)
//! (`permission_classes`, then the caller's rate limits, with an `aggregate` rate of its own in
//! `throttle(aggregate = "...")`), then reads the rows through [`crate::access::scoped_list`], the list's own
//! path (`get_queryset`, the filter backends, the tenant and every row policy), so an aggregate never counts a row
//! the caller could not list. A field hidden from the caller (`staff_only_fields`, `Hooks::hidden_fields`) is
//! refused as a field that does not exist, and left out of the choices an error lists.
//!
//! An override of [`crate::Hooks::list`] is not run: what narrows a list for every caller belongs in
//! `get_queryset` or a row policy, which the aggregate applies. The statement is bounded as every request is, by
//! the request timeout of [`crate::limits::Limits`], and by the database itself at
//! [`crate::query::QueryLimits::max_aggregate_time`] (20 s; PostgreSQL, MariaDB and MySQL stop the statement and
//! the answer is 503 `statement_timeout`; SQLite has no such bound).
//!
//! **Typed answers.** Group keys and `min`/`max` are typed as their field (a boolean is `true`, a decimal its JSON
//! form), sums of integers are integers, averages are numbers, counts integers, NULL is `null` (NULL keys form a
//! group of their own). Every bad parameter is a 422 at `["query", "<parameter>"]`.

mod answer;
mod bounded;
mod bucket;
mod params;
mod statement;
mod zone;

use axum::Json;
use axum::response::{IntoResponse, Response};
use sea_orm::{EntityName, IdenStatic, QueryTrait};

pub use crate::types::options::Aggregates;
pub use bucket::Bucket;
pub use params::{Function, MAX_GROUP_KEYS, PARAMETERS};

use crate::access;
use crate::boxed::{SendFuture, send};
use crate::contract::hooks::Hooks;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::types::params::{Filters, QueryParams};

/// `request` with its query narrowed to the list's own parameters (the aggregate's, [`PARAMETERS`], taken out), and
/// the aggregate's parameters alone: the list's path never sees `limit`, `count` or `group_by`. A query over
/// `max_query_params` is refused first, as the list refuses it.
pub(crate) fn split_query(request: &mut RequestContext) -> Result<QueryParams, ApiError> {
    request.query.check()?;
    let limits = *request.query.limits();
    let mut own = form_urlencoded::Serializer::new(String::new());
    let mut rest = form_urlencoded::Serializer::new(String::new());
    for (key, value) in request.query.iter() {
        let target = if PARAMETERS.contains(&key) { &mut own } else { &mut rest };
        target.append_pair(key, value);
    }
    request.query = QueryParams::parse_with(Some(&rest.finish()), limits);
    Ok(QueryParams::parse_with(Some(&own.finish()), limits))
}

/// The aggregate of `V` for an admitted `request` whose own parameters are `own` (split off by the route), over the
/// list's rows narrowed by the router's `filters`: the statement is built here, per ViewSet; the read and the answer
/// are one future for every ViewSet.
pub(crate) fn aggregate<V: Hooks>(
    request: RequestContext,
    own: QueryParams,
    filters: Filters,
) -> SendFuture<'static, Result<Response, ApiError>> {
    match prepare::<V>(&request, &own, &filters) {
        Ok((plan, statement)) => send(run(request, plan, statement, V::Entity::default().table_name())),
        Err(refused) => send(std::future::ready(Err(refused))),
    }
}

/// The plan and statement of `V`'s aggregate.
fn prepare<V: Hooks>(
    request: &RequestContext,
    own: &QueryParams,
    filters: &Filters,
) -> Result<(params::Plan, sea_orm::Statement), ApiError> {
    let declared = V::CONFIG.aggregates.ok_or(ApiError::NotFound)?;
    let backend = request.db.get_database_backend();
    let allowed =
        params::Allowed { declared: &declared, may: &|field| request.may_query(field), column: &column::<V::Entity> };
    let plan = params::read(own, &allowed)?;
    let query = access::scoped_list::<V>(request, filters)?;
    let table = V::Entity::default().table_name();
    let statement = statement::build(query.select.into_query(), table, &plan, backend);
    Ok((plan, statement))
}

/// The column of the field `name` of `E`.
fn column<E: sea_orm::EntityTrait>(name: &'static str) -> Option<params::Column> {
    let column = crate::types::columns::column::<E>(name)?;
    let column_type = sea_orm::ColumnTrait::def(&column).get_column_type().clone();
    Some(params::Column { field: name, name: column.as_str(), column_type })
}

/// Runs the statement through the request's reader and answers its groups.
async fn run(
    request: RequestContext,
    plan: params::Plan,
    statement: sea_orm::Statement,
    table: &'static str,
) -> Result<Response, ApiError> {
    // Room for a typical answer up front; a large one grows as it is read.
    let capacity = (plan.limit as usize).saturating_add(1).min(256);
    let limit = request.query.limits().max_aggregate_time;
    let rows = bounded::read(request.reader(), statement, capacity, limit).await;
    let zoned = plan.tz.is_some();
    let rows = rows.map_err(|err| match bucket::unknown_zone(&err, zoned) {
        Some(refused) => refused,
        None if bounded::timed_out(&err) => bounded::stopped(limit),
        // A computed value out of its type's range (PostgreSQL's `avg` of huge doubles): a 422 at the query.
        None => match ApiError::from_db(err, table) {
            ApiError::Validation { detail, .. } => ApiError::input(["query"], detail, "out_of_range"),
            other => other,
        },
    })?;
    Ok(Json(answer::answer(&plan, &rows)).into_response())
}
