//! What the generated routes need of one ViewSet, as a table of plain functions ([`Ops`]), so that the routes
//! themselves (`routes.rs`: admission, the `{pk}`, the body, `Prefer`, `If-None-Match`, CSV) are compiled once for
//! every ViewSet rather than once per ViewSet. What is left per ViewSet is this table's entries: each reads what
//! depends on the ViewSet's types (its body type, its lookup type, its hooks) and returns a boxed future of one
//! type (build time: bench/notes/build-time-rounds.md).

use std::future::Future;

use axum::body::Bytes;
use axum::response::Response;
use sea_orm::DbBackend;

use super::entry::{BodyBytes, PathPk};
use crate::access::throttled;
use crate::boxed::{SendFuture, send};
use crate::contract::config::Config;
use crate::contract::hooks::Hooks;
use crate::contract::lookup::Lookup;
use crate::contract::paginator::{Paginator, Window};
use crate::error::ApiError;
use crate::handlers::upsert::Resolution;
use crate::pagination::csv::decimal_fields;
use crate::pagination::csv_stream::stream_csv;
use crate::registration::routes::{body, create_shape, update_shape};
use crate::request::RequestContext;
use crate::store::plan::Plan;
use crate::throttle::declared::Throttles;
use crate::throttle::headers::Pass;
use crate::types::columns::column_names;
use crate::types::operation::Operation;
use crate::types::params::{Filters, QueryParams};

/// A route's answer, boxed: one type for every ViewSet ([`send`]: its `Send` proven once, not per ViewSet).
pub(crate) type Answer = SendFuture<'static, Result<Response, ApiError>>;

/// An upsert after admission: the request, the body, the key and the resolution.
pub(crate) type UpsertRoute = fn(RequestContext, Bytes, &'static str, Resolution) -> Answer;

/// The bulk create after admission: the request, the array body, whether `Prefer` asks for a minimal answer.
pub(crate) type BulkCreateRoute = fn(RequestContext, Bytes, bool) -> Answer;

/// The aggregate after admission: the request (its query the list's parameters), the aggregate's own parameters,
/// the router's filters.
pub(crate) type AggregateRoute = fn(RequestContext, QueryParams, Filters) -> Answer;

/// One ViewSet as the generated routes see it: its constants and the functions that depend on its types.
pub(crate) struct Ops {
    /// `#[viewset(...)]` as declared.
    pub(crate) config: &'static Config,
    /// The paginator's query parameters (not filters).
    pub(crate) paginator_parameters: &'static [&'static str],
    /// [`crate::access::admit`] for this ViewSet.
    pub(crate) admit: fn(&mut RequestContext, Operation) -> Result<(), ApiError>,
    /// The ViewSet's throttles and basename ([`throttled::throttles_of`]).
    pub(crate) throttles: fn() -> (&'static Throttles, &'static str),
    /// The `{pk}` segment as this ViewSet's lookup.
    pub(crate) lookup: fn(PathPk) -> Result<Lookup, ApiError>,
    /// [`Hooks::require_if_match`].
    pub(crate) require_if_match: fn() -> bool,
    /// [`Hooks::get_filter_fields`].
    pub(crate) filter_fields: fn() -> Vec<&'static str>,
    /// The paginator's window for a query string.
    pub(crate) window: fn(&QueryParams, &Config) -> Result<Window, ApiError>,
    /// The model's fields, in the entity's order.
    pub(crate) columns: fn() -> Vec<&'static str>,
    /// The model's decimal fields (CSV writes them as text).
    pub(crate) decimal_fields: fn() -> Vec<&'static str>,
    /// Which path each operation takes on a backend.
    pub(crate) plan: fn(DbBackend) -> Plan,
    /// [`Hooks::list`] with its window and filters.
    pub(crate) list: fn(RequestContext, u64, u64, Filters) -> Answer,
    /// The list streamed as CSV, with the header of an empty page.
    pub(crate) stream_csv: fn(RequestContext, Filters, Vec<&'static str>) -> Answer,
    /// [`Hooks::retrieve`].
    pub(crate) retrieve: fn(Lookup, RequestContext) -> Answer,
    /// The create body read, then [`Hooks::create`].
    pub(crate) create: fn(RequestContext, BodyBytes) -> Answer,
    /// The PATCH body read, then [`Hooks::update`].
    pub(crate) update: fn(Lookup, RequestContext, BodyBytes) -> Answer,
    /// [`Hooks::delete`].
    pub(crate) delete: fn(Lookup, RequestContext) -> Answer,
    /// The upsert form of the create, when the ViewSet declares `upsert_keys`.
    pub(crate) upsert: Option<UpsertRoute>,
    /// The bulk form of the create, when the ViewSet declares `bulk(create)`.
    pub(crate) bulk_create: Option<BulkCreateRoute>,
    /// `GET <prefix>/aggregate`, when the ViewSet declares `aggregates(...)`.
    pub(crate) aggregate: Option<AggregateRoute>,
}

impl Ops {
    /// The table of `V`: a constant, built at compile time.
    pub(crate) fn of<V: Hooks>() -> &'static Ops {
        const {
            &Ops {
                config: &V::CONFIG,
                paginator_parameters: V::Pagination::PARAMETERS,
                admit: crate::access::admit::<V>,
                throttles: throttled::throttles_of::<V>,
                lookup: Lookup::from_path::<V>,
                require_if_match: V::require_if_match,
                filter_fields: V::get_filter_fields,
                window: V::Pagination::window,
                columns: column_names::<V::Entity>,
                decimal_fields: decimal_fields::<V::Entity>,
                plan: Plan::of::<V>,
                list: |request, limit, offset, filters| send(V::list(request, limit, offset, filters)),
                stream_csv: |request, filters, header| send(stream_csv::<V>(request, filters, header)),
                retrieve: |pk, request| send(V::retrieve(pk, request)),
                create: create::<V>,
                update: update::<V>,
                delete: |pk, request| send(V::delete(pk, request)),
                upsert: upsert_route::<V>(),
                bulk_create: bulk_create_route::<V>(),
                aggregate: aggregate_route::<V>(),
            }
        }
    }

    /// [`crate::access::enter`] with this table's admission and throttles.
    pub(crate) fn enter<'a>(
        &self,
        request: &'a mut RequestContext,
        operation: Operation,
    ) -> impl Future<Output = Result<Pass, ApiError>> + Send + 'a {
        crate::access::enter_with(request, operation, self.admit, (self.throttles)())
    }
}

/// The create body of `V`, then `V::create`; a body naming a writable relation is the nested create
/// (`nested.rs`).
fn create<V: Hooks>(request: RequestContext, bytes: BodyBytes) -> Answer {
    if let (Some(nested), Ok(raw)) = (const { super::nested::route::<V>() }, &bytes)
        && super::nested::wanted(&V::CONFIG.nested, raw)
    {
        return nested(request, raw.clone());
    }
    match body::<V::Create>(bytes, &request, create_shape::<V>) {
        Ok(data) => send(V::create(data, request)),
        Err(refused) => send(std::future::ready(Err(refused))),
    }
}

/// The PATCH body of `V`, then `V::update`; a body naming a writable relation is the nested update (`nested.rs`).
fn update<V: Hooks>(pk: Lookup, request: RequestContext, bytes: BodyBytes) -> Answer {
    if let (Some(nested), Ok(raw)) = (const { super::nested::update_route::<V>() }, &bytes)
        && super::nested::wanted(&V::CONFIG.nested, raw)
    {
        return nested(pk, request, raw.clone());
    }
    match body::<V::Update>(bytes, &request, update_shape::<V>) {
        Ok(data) => send(V::update(pk, data, request)),
        Err(refused) => send(std::future::ready(Err(refused))),
    }
}

/// The upsert form of the create of `V`, when it declares `upsert_keys`. A branch on a constant: a ViewSet
/// without upsert keys does not carry the upsert's code (build time: BENCHMARKS.md, "Compile cost").
const fn upsert_route<V: Hooks>() -> Option<UpsertRoute> {
    if V::CONFIG.bulk.upsert_keys.is_empty() {
        return None;
    }
    Some(|request, bytes, key, resolution| send(super::upsert::create::<V>(request, bytes, key, resolution)))
}

/// The bulk form of the create of `V` (an array body), when it declares `bulk(create)`; as [`upsert_route`].
const fn bulk_create_route<V: Hooks>() -> Option<BulkCreateRoute> {
    if !V::CONFIG.bulk.create {
        return None;
    }
    Some(|request, bytes, minimal| send(super::bulk::create::<V>(request, bytes, minimal)))
}

/// The aggregate of `V`, when it declares `aggregates(...)`; as [`upsert_route`].
const fn aggregate_route<V: Hooks>() -> Option<AggregateRoute> {
    if V::CONFIG.aggregates.is_none() {
        return None;
    }
    Some(crate::aggregate::aggregate::<V>)
}
