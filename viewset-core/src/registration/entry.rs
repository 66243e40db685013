//! The handler of every generated route: one type, [`Entry`], for each route of each ViewSet, holding the plain
//! function that runs the route for its ViewSet.
//!
//! A closure handler per route and ViewSet made axum compile its handler machinery (the extractors' future, the
//! handler service, the boxed route, the future's `map`) once per route of every ViewSet, some 7,000 lines of LLVM
//! IR per ViewSet (bench/notes/build-time-rounds.md). With one handler type that machinery is compiled once
//! per application state; what is left per ViewSet is the route's own `async` block. A request costs what it cost
//! with a closure handler: axum boxed the handler's future, and [`Entry`] boxes the route's.
//!
//! The request is read as the generated routes read it: the [`RequestContext`] first (taking the headers and URI,
//! with the route's embedders: [`RequestContext::of_route`]), then the `{pk}` segment, then the body ([`path`],
//! [`bytes`]).

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{FromRef, FromRequest, FromRequestParts, Path, Request};
use axum::handler::Handler;
use axum::http::request::Parts;
use axum::response::Response;
use axum::routing::{MethodRouter, get, post};

use super::ops::Ops;
use crate::boxed::SendFuture;
use crate::request::embedders::SharedEmbedders;
use crate::request::{RequestContext, ServiceState};

/// A route's answer to one request, boxed ([`crate::boxed::send`]).
pub(crate) type RouteFuture = SendFuture<'static, Response>;

/// What a route does with a request, given its ViewSet's [`Ops`], the request's context and what the route's other
/// extractors read (the parts, the `{pk}` in their extensions, and the body): a plain function, one per route for
/// every ViewSet (one per ViewSet for the bulk routes and the stream).
pub(crate) type Run = fn(&'static Ops, RequestContext, Parts, Body) -> RouteFuture;

/// The `{pk}` segment of a detail route, or why it did not extract.
pub(crate) type PathPk = Result<Path<String>, PathRejection>;

/// A route's raw body, or why it could not be read.
pub(crate) type BodyBytes = Result<Bytes, BytesRejection>;

/// A generated route as an axum handler: its [`Run`], its ViewSet's [`Ops`] and the embedders of the [`crate::Api`]
/// it belongs to.
#[derive(Clone)]
pub(crate) struct Entry {
    run: Run,
    ops: &'static Ops,
    embedders: SharedEmbedders,
    route: crate::measure::Route,
}

impl Entry {
    /// The handler that runs `run` for the ViewSet of `ops` with `embedders`, named `operation` (its
    /// `operationId`) in the metrics and the access log.
    pub(crate) fn new(run: Run, ops: &'static Ops, embedders: &SharedEmbedders, operation: String) -> Self {
        Entry { run, ops, embedders: embedders.clone(), route: crate::measure::Route::named(operation) }
    }
}

impl<S> Handler<Entry, S> for Entry
where
    S: Clone + Send + Sync + 'static,
    ServiceState: FromRef<S>,
{
    type Future = RouteFuture;

    fn call(self, request: Request, state: S) -> RouteFuture {
        crate::limits::name_route(self.route);
        let (mut parts, body) = request.into_parts();
        let context = RequestContext::of_route(&mut parts, service_state(state), &self.embedders);
        (self.run)(self.ops, context, parts, body)
    }
}

/// The [`ServiceState`] of a router's `state`: the state itself when it is one (axum hands each request its own
/// clone), instead of a second clone and the drop of the first. Each clone and drop of a state is an atomic count
/// on each of its shared parts (the pool's, the bus's, the throttle's), cache lines every worker thread writes.
fn service_state<S: 'static>(state: S) -> ServiceState
where
    ServiceState: FromRef<S>,
{
    let mut state = Some(state);
    match (&mut state as &mut dyn std::any::Any).downcast_mut::<Option<ServiceState>>() {
        Some(own) => own.take().expect("the state, not yet taken"),
        None => ServiceState::from_ref(state.as_ref().expect("the state, not yet taken")),
    }
}

/// The routes of one ViewSet, as handlers of one type: registered by a function compiled once per state type.
pub(crate) struct Table {
    pub(crate) list: Entry,
    pub(crate) create: Entry,
    pub(crate) retrieve: Entry,
    pub(crate) update: Entry,
    pub(crate) delete: Entry,
    pub(crate) bulk_create: Option<Entry>,
    pub(crate) bulk_delete: Option<Entry>,
    pub(crate) bulk_update: Option<Entry>,
    pub(crate) upsert: Option<Entry>,
    pub(crate) stream: Option<Entry>,
    pub(crate) aggregate: Option<Entry>,
}

impl Table {
    /// The routes on `router` under `base` (the prefix without its trailing slash).
    pub(crate) fn register<S>(self, router: Router<S>, base: &str) -> Router<S>
    where
        S: Clone + Send + Sync + 'static,
        ServiceState: FromRef<S>,
    {
        let collection: MethodRouter<S> =
            get(self.list).post(self.create).fallback(crate::registration::routes::method_not_allowed);
        // `<base>/bulk`: each bulk write a method of its own path, so each is one typed operation.
        let mut bulk: Option<MethodRouter<S>> = None;
        let method_not_allowed = || MethodRouter::new().fallback(crate::registration::routes::method_not_allowed);
        if let Some(create) = self.bulk_create {
            bulk = Some(bulk.unwrap_or_else(method_not_allowed).post(create));
        }
        if let Some(update) = self.bulk_update {
            bulk = Some(bulk.unwrap_or_else(method_not_allowed).patch(update));
        }
        if let Some(delete) = self.bulk_delete {
            bulk = Some(bulk.unwrap_or_else(method_not_allowed).delete(delete));
        }
        let detail: MethodRouter<S> = get(self.retrieve)
            .patch(self.update)
            .delete(self.delete)
            .fallback(crate::registration::routes::method_not_allowed);
        // The stream first, then the `{pk}` routes (axum prefers static segments anyway).
        let router = match self.stream {
            Some(stream) => router.route(
                &crate::contract::paths::stream(base),
                get(stream).fallback(crate::registration::routes::method_not_allowed),
            ),
            None => router,
        };
        let router = match self.aggregate {
            Some(aggregate) => router.route(
                &crate::contract::paths::aggregate(base),
                get(aggregate).fallback(crate::registration::routes::method_not_allowed),
            ),
            None => router,
        };
        let router = match bulk {
            Some(bulk) => router.route(&crate::contract::paths::bulk(base), bulk),
            None => router,
        };
        let router = match self.upsert {
            Some(upsert) => router.route(
                &crate::contract::paths::upsert(base),
                post(upsert).fallback(crate::registration::routes::method_not_allowed),
            ),
            None => router,
        };
        router
            .route(&crate::contract::paths::collection(base), collection)
            .route(&crate::contract::paths::detail(base), detail)
    }
}

/// The `{pk}` segment of a detail route.
pub(crate) async fn path(parts: &mut Parts) -> PathPk {
    Path::<String>::from_request_parts(parts, &()).await
}

/// The body, within the request's body limit (`DefaultBodyLimit`, read from the parts' extensions).
pub(crate) async fn bytes(parts: Parts, body: Body) -> BodyBytes {
    Bytes::from_request(Request::from_parts(parts, body), &()).await
}

/// The `{pk}` segment, then the body.
pub(crate) async fn path_and_bytes(mut parts: Parts, body: Body) -> (PathPk, BodyBytes) {
    let path = path(&mut parts).await;
    (path, bytes(parts, body).await)
}
