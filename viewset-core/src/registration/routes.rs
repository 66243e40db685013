//! Route registration: the CRUD routes of a ViewSet on an axum `Router`.

use axum::Router;
use axum::body::Body;
use axum::extract::FromRef;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};

use super::entry::{self, BodyBytes, Entry, PathPk, RouteFuture, Run, Table};
use super::ops::Ops;

use crate::access::fields::reject_restricted_keys;
use crate::boxed::boxed;
use crate::boxed::send;
use crate::contract::hooks::Hooks;
use crate::contract::paths::operation_id;
use crate::error::ApiError;
use crate::handlers::prefer::{self, Written, wants_minimal};
use crate::idempotency::key::IDEMPOTENCY_KEY;
use crate::idempotency::once::{once, write};
use crate::pagination::csv::ListFormat;
use crate::pagination::csv::{Formulas, into_csv};
use crate::request::embedders::SharedEmbedders;
use crate::request::{RequestContext, ServiceState};
use crate::schema::body::json_body;
use crate::schema::explain::{BodyShape, explain};
use crate::schema::{CreateSchema, UpdateSchema};
use crate::types::columns::column_names;
use crate::types::operation::Operation;
use crate::types::params::Filters;

/// Registers the routes of `V` on `router` (prefix and tags come from the ViewSet) and returns it.
/// Defining a ViewSet registers nothing; this does, and it neither applies migrations nor authenticates.
///
/// | method | path | handler |
/// |---|---|---|
/// | GET | `<prefix>/` | list |
/// | POST | `<prefix>/` | create one record (201) |
/// | POST | `<prefix>/bulk` | with `bulk` (or `bulk(create)`): a JSON array creates many ([`crate::handlers::bulk`]) |
/// | PATCH | `<prefix>/bulk` | with `bulk` (or `bulk(update)`): a JSON array of partial records updates many |
/// | DELETE | `<prefix>/bulk?<lookup>__in=1,2,3` | with `bulk` (or `bulk(delete)`): delete many |
/// | POST | `<prefix>/upsert` | with `upsert_keys`: create or update by a unique key ([`crate::handlers::upsert`]) |
/// | GET | `<prefix>/{pk}` | retrieve |
/// | PATCH | `<prefix>/{pk}` | update |
/// | DELETE | `<prefix>/{pk}` | delete |
///
/// Other methods on these paths (PUT included) get a JSON 405.
///
/// # Panics
///
/// When a route of `V` is already on `router` (`V` registered twice, or another ViewSet or a hand-written route
/// with the same method and path): axum cannot hold both, and this function cannot return an error without
/// changing its signature. The panic names `V`, its prefix and the route, and points to [`crate::Api`], whose
/// `include` sees earlier registrations and returns a [`crate::registration::RegistrationError`] naming both
/// sides instead. (Built with `panic = "abort"`, axum's own "Overlapping method route" panic aborts first.)
#[track_caller]
pub fn include_viewset<V: Hooks, S>(router: Router<S>) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    ServiceState: FromRef<S>,
{
    include_parts::<V, S>(router, None, &SharedEmbedders::default()).0
}

/// The CRUD routes and the stream of `V` on `router`, its actions on `actions` (on `router` too when `None`): an
/// [`crate::Api`] keeps them apart so that only the actions (whose handlers extract the public [`RequestContext`])
/// need the embedders as a request extension; the generated routes take them from `embedders`.
#[track_caller]
pub(crate) fn include_parts<V: Hooks, S>(
    router: Router<S>,
    actions: Option<Router<S>>,
    embedders: &SharedEmbedders,
) -> (Router<S>, Option<Router<S>>)
where
    S: Clone + Send + Sync + 'static,
    ServiceState: FromRef<S>,
{
    // axum refuses an overlapping route by panicking; there is no fallible form and no way to ask a `Router` which
    // routes it has. Its panic is caught only to be replaced by one that says which ViewSet and what to do (an
    // action's route included: without an `Api`, the actions go on the same router, inside the catch).
    let mut parts = Some((router, actions));
    let mut register = || {
        let (router, actions) = parts.take().expect("registered once");
        let router = register::<V, S>(router, embedders);
        match actions {
            Some(actions) => (router, Some(V::register_actions(actions))),
            None => (V::register_actions(router), None),
        }
    };
    guarded(V::CONFIG.name, V::prefix, &mut register)
}

/// Runs `register`, replacing axum's panic on an overlapping route by one naming the ViewSet `name` (prefix
/// `prefix()`) and what to do. One function for every ViewSet.
#[track_caller]
fn guarded<R>(name: &str, prefix: fn() -> String, register: &mut dyn FnMut() -> R) -> R {
    let payload = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(register)) {
        Ok(registered) => return registered,
        Err(payload) => payload,
    };
    let axum = payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied());
    match axum {
        Some(axum) if axum.starts_with("Overlapping method route") || axum.contains("both have a fallback") => {
            panic!(
                "include_viewset::<{name}>: a route of {name} (prefix `{prefix}`) is already on this Router ({axum}); \
                 {name} is registered twice, or another ViewSet or route has the same method and path. \
                 include_viewset cannot see earlier registrations: register through viewset_core::Api \
                 (`api.include::<{name}>()?`), which returns a RegistrationError naming both sides",
                prefix = prefix(),
            )
        }
        _ => std::panic::resume_unwind(payload),
    }
}

/// The registration itself (axum panics on an overlapping route). Each route is an [`Entry`] holding `embedders`.
fn register<V: Hooks, S>(router: Router<S>, embedders: &SharedEmbedders) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    ServiceState: FromRef<S>,
{
    let bulk_delete: Option<Run> =
        if const { V::CONFIG.bulk.delete } { Some(super::bulk::delete_run::<V>) } else { None };
    let bulk_update: Option<Run> =
        if const { V::CONFIG.bulk.update } { Some(super::bulk::update_run::<V>) } else { None };
    let stream: Option<Run> = if const { V::CONFIG.stream_enabled } { Some(stream_run::<V>) } else { None };
    let table = table(Ops::of::<V>(), embedders, &V::basename(), [bulk_delete, bulk_update, stream]);
    table.register(router, crate::contract::paths::base(&V::prefix()))
}

/// The routes of a ViewSet whose table is `ops`, with its bulk delete, bulk update and stream when it has them.
fn table(
    ops: &'static Ops,
    embedders: &SharedEmbedders,
    basename: &str,
    [bulk_delete, bulk_update, stream]: [Option<Run>; 3],
) -> Table {
    // Each route is named by its `operationId` (the OpenAPI document's), for the metrics and the access log.
    let entry =
        |handler: &'static str| move |run: Run| Entry::new(run, ops, embedders, operation_id(basename, handler, "", 1));
    Table {
        list: entry("list")(list_run),
        create: entry("create")(create_run),
        retrieve: entry("retrieve")(retrieve_run),
        update: entry("update")(update_run),
        delete: entry("delete")(delete_run),
        bulk_create: ops.bulk_create.map(|_| entry("create_many")(super::bulk::create_run)),
        bulk_delete: bulk_delete.map(entry("delete_many")),
        bulk_update: bulk_update.map(entry("update_many")),
        upsert: ops.upsert.map(|_| entry("upsert")(super::upsert::upsert_run)),
        stream: stream.map(entry("stream")),
        aggregate: ops.aggregate.map(|_| entry("aggregate")(aggregate_run)),
    }
}

/// The JSON 405 of every generated path.
pub async fn method_not_allowed() -> Response {
    ApiError::MethodNotAllowed.into_response()
}

/// A handler's result as a response. The routes end with it (`.map(respond)`) rather than being `async fn`s,
/// which keep their arguments twice in their future (rust-lang/rust#62958).
pub fn respond(result: Result<Response, ApiError>) -> Response {
    result.unwrap_or_else(IntoResponse::into_response)
}

/// The router's exact-match filters of `request` ([`crate::query::router_filters`]).
fn router_filters(ops: &Ops, request: &RequestContext) -> Result<Filters, ApiError> {
    crate::query::router_filters(request, &(ops.filter_fields)(), ops.paginator_parameters)
}

/// The typed body, after refusing fields this caller may not write; a body that does not parse is explained with
/// what `shape` knows (every missing, unknown and read-only field at once, in API terms).
pub(super) fn body<T: serde::de::DeserializeOwned>(
    bytes: BodyBytes,
    request: &RequestContext,
    shape: impl FnOnce() -> BodyShape,
) -> Result<T, ApiError> {
    let bytes = bytes.map_err(|e| ApiError::BodyRejected(e.status(), e.body_text()))?;
    crate::schema::require_json(&request.headers, &bytes)?;
    parse_body(&bytes, request, shape)
}

/// [`body`] after the transport: a JSON object (one row of a bulk body too) as the typed body.
pub(super) fn parse_body<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    request: &RequestContext,
    shape: impl FnOnce() -> BodyShape,
) -> Result<T, ApiError> {
    reject_restricted_keys(bytes, &request.restricted_fields)?;
    json_body(bytes, &request.restricted_fields).map_err(|e| explain(e, bytes, &shape(), &request.restricted_fields))
}

/// The create body's shape, for [`explain`].
pub(super) fn create_shape<V: Hooks>() -> BodyShape {
    BodyShape { schema: V::Create::openapi_schema(), model_fields: column_names::<V::Entity>() }
}

/// The PATCH body's shape, for [`explain`].
pub(super) fn update_shape<V: Hooks>() -> BodyShape {
    BodyShape { schema: V::Update::openapi_schema(), model_fields: column_names::<V::Entity>() }
}

/// `GET <prefix>/`.
fn list_run(ops: &'static Ops, mut request: RequestContext, _: Parts, _: Body) -> RouteFuture {
    send(async move {
        let pass = match ops.enter(&mut request, Operation::List).await {
            Ok(pass) => pass,
            Err(refused) => return refused.into_response(),
        };
        respond(pass.answer(list(ops, request).await))
    })
}

/// The list's work after admission. The list's future (the page, its count, the embedded relations) is several
/// KB: built in a heap allocation, the route's own future stays small, and axum does not copy the whole of it twice.
async fn list(ops: &'static Ops, request: RequestContext) -> Result<Response, ApiError> {
    request.query.check()?;
    let format = ListFormat::from_request(&request.query, &request.headers)?;
    let window = (ops.window)(&request.query, ops.config)?;
    let filters = router_filters(ops, &request)?;
    match format {
        ListFormat::Json => (ops.list)(request, window.limit, window.offset, filters).await,
        ListFormat::Csv => {
            // The header of an empty page: the model's fields this response shows.
            let left_out = request.left_out();
            let mut header = (ops.columns)();
            crate::access::fields::leave_out(&mut header, &left_out);
            if (ops.plan)(request.db.get_database_backend()).streams_csv {
                return (ops.stream_csv)(request, filters, header).await;
            }
            let page = (ops.list)(request, window.limit, window.offset, filters).await?;
            into_csv(page, &header, Formulas::of(ops.config), &(ops.decimal_fields)()).await
        }
    }
}

/// `GET <prefix>/{pk}`.
fn retrieve_run(ops: &'static Ops, mut request: RequestContext, mut parts: Parts, _: Body) -> RouteFuture {
    send(async move {
        let path = entry::path(&mut parts).await;
        let pass = match ops.enter(&mut request, Operation::Retrieve).await {
            Ok(pass) => pass,
            Err(refused) => return refused.into_response(),
        };
        let answer = match (ops.lookup)(path) {
            Ok(pk) => {
                let if_none_match = crate::handlers::etag::if_none_match(&request.headers);
                let found = (ops.retrieve)(pk, request).await;
                found.map(|response| crate::handlers::etag::not_modified(if_none_match, response))
            }
            Err(err) => Err(err),
        };
        respond(pass.answer(answer))
    })
}

/// `POST <prefix>/`.
fn create_run(ops: &'static Ops, request: RequestContext, parts: Parts, body: Body) -> RouteFuture {
    collection_write(ops, request, (parts, body), create)
}

/// A `POST` of the collection's paths (the create, the bulk create, the upsert): the body, admission as a create,
/// then `work`, once per `Idempotency-Key` when the request names one. Compiled once per `work`, not per ViewSet.
pub(super) fn collection_write<W, F>(
    ops: &'static Ops,
    mut request: RequestContext,
    (parts, body): (Parts, Body),
    work: W,
) -> RouteFuture
where
    W: Fn(&'static Ops, RequestContext, BodyBytes) -> F + Copy + Send + 'static,
    F: Future<Output = Result<Response, ApiError>> + Send + 'static,
{
    send(async move {
        let bytes = entry::bytes(parts, body).await;
        let pass = match ops.enter(&mut request, Operation::Create).await {
            Ok(pass) => pass,
            Err(refused) => return refused.into_response(),
        };
        // Without a key the write runs in the route's own future; with one, the claim's work is allocated apart.
        let answer = if !request.headers.contains_key(IDEMPOTENCY_KEY) {
            work(ops, request, bytes).await
        } else {
            boxed(|| once(request, bytes, write(move |request, bytes| work(ops, request, bytes)))).await
        };
        respond(pass.answer(answer))
    })
}

/// The create's work after admission: a JSON body of one object (an array or an upsert's `on_conflict` is a 422
/// naming the route that takes it), `V::create`, and the minimal answer when `Prefer` asks for it.
async fn create(ops: &'static Ops, request: RequestContext, bytes: BodyBytes) -> Result<Response, ApiError> {
    if let Ok(bytes) = &bytes {
        // A body that is not JSON is a 415 before its shape is read.
        crate::schema::require_json(&request.headers, bytes)?;
        if super::bulk::is_array(bytes) {
            return Err(super::bulk::not_here(ops.config, &request));
        }
    }
    super::upsert::not_here(ops.config, &request)?;
    let minimal = wants_minimal(&request.headers).then(|| request.uri.path().to_string());
    let response = (ops.create)(request, bytes).await?;
    Ok(match minimal {
        Some(path) => prefer::minimal_by(response, &path, Written::Created, ops.config.lookup_field).await,
        None => response,
    })
}

/// `PATCH <prefix>/{pk}`.
fn update_run(ops: &'static Ops, mut request: RequestContext, parts: Parts, body: Body) -> RouteFuture {
    send(async move {
        let (path, bytes) = entry::path_and_bytes(parts, body).await;
        let pass = match ops.enter(&mut request, Operation::Update).await {
            Ok(pass) => pass,
            Err(refused) => return refused.into_response(),
        };
        let answer = if !request.headers.contains_key(IDEMPOTENCY_KEY) {
            update(ops, request, path, bytes).await
        } else {
            let work = move |request, bytes| update(ops, request, path, bytes);
            boxed(|| once(request, bytes, write(work))).await
        };
        respond(pass.answer(answer))
    })
}

/// Whether this request may go on without `If-Match` (428 when the ViewSet requires it).
fn if_match_required(ops: &Ops, request: &RequestContext) -> Result<(), ApiError> {
    crate::handlers::etag::require_if_match_by((ops.require_if_match)(), request)
}

/// The update's work after admission: `If-Match` when required, the `{pk}`, the body, `V::update`, and the
/// minimal answer when `Prefer` asks for it.
async fn update(
    ops: &'static Ops,
    request: RequestContext,
    path: PathPk,
    bytes: BodyBytes,
) -> Result<Response, ApiError> {
    if_match_required(ops, &request)?;
    let pk = (ops.lookup)(path)?;
    let minimal = wants_minimal(&request.headers).then(|| request.uri.path().to_string());
    let response = (ops.update)(pk, request, bytes).await?;
    Ok(match minimal {
        Some(path) => prefer::minimal_by(response, &path, Written::Updated, ops.config.lookup_field).await,
        None => response,
    })
}

/// `DELETE <prefix>/{pk}`.
fn delete_run(ops: &'static Ops, mut request: RequestContext, mut parts: Parts, _: Body) -> RouteFuture {
    send(async move {
        let path = entry::path(&mut parts).await;
        let pass = match ops.enter(&mut request, Operation::Delete).await {
            Ok(pass) => pass,
            Err(refused) => return refused.into_response(),
        };
        let answer = match if_match_required(ops, &request).and_then(|()| (ops.lookup)(path)) {
            Ok(pk) => (ops.delete)(pk, request).await,
            Err(err) => Err(err),
        };
        respond(pass.answer(answer))
    })
}

/// `GET <prefix>/aggregate` ([`crate::aggregate`]): admitted as [`Operation::Aggregate`], then the aggregate's own
/// parameters split off, so the router's filters and the list's backends read the rest as they read a list's.
fn aggregate_run(ops: &'static Ops, mut request: RequestContext, _: Parts, _: Body) -> RouteFuture {
    send(async move {
        let pass = match ops.enter(&mut request, Operation::Aggregate).await {
            Ok(pass) => pass,
            Err(refused) => return refused.into_response(),
        };
        let answer = match (ops.aggregate, crate::aggregate::split_query(&mut request)) {
            (Some(route), Ok(own)) => match router_filters(ops, &request) {
                Ok(filters) => route(request, own, filters).await,
                Err(refused) => Err(refused),
            },
            (None, _) => Err(ApiError::NotFound),
            (_, Err(refused)) => Err(refused),
        };
        respond(pass.answer(answer))
    })
}

/// `GET <prefix>/stream` ([`crate::events::stream_route`]).
fn stream_run<V: Hooks>(_: &'static Ops, request: RequestContext, _: Parts, _: Body) -> RouteFuture {
    send(crate::events::stream_route::<V>(request))
}
