//! Route registration: the CRUD routes of a ViewSet on an axum `Router`.

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{FromRef, Path};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get};

use crate::body::json_body;
use crate::{ApiError, Filters, Hooks, Lookup, Operation, Paginator, RequestContext, ServiceState};

/// Registers the routes of `V` on `router` (prefix and tags come from the ViewSet) and returns it.
/// Defining a ViewSet registers nothing; this does, and it neither applies migrations nor authenticates.
///
/// | method | path | handler |
/// |---|---|---|
/// | GET | `<prefix>/` | list |
/// | POST | `<prefix>/` | create (201) |
/// | GET | `<prefix>/{pk}` | retrieve |
/// | PATCH | `<prefix>/{pk}` | update |
/// | DELETE | `<prefix>/{pk}` | delete |
///
/// Other methods on these paths (PUT included) get a JSON 405.
pub fn include_viewset<V: Hooks, S>(router: Router<S>) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    ServiceState: FromRef<S>,
{
    let prefix = V::prefix();
    let base = prefix.trim_end_matches('/');
    let collection: MethodRouter<S> = get(list_route::<V>).post(create_route::<V>).fallback(method_not_allowed);
    let detail: MethodRouter<S> =
        get(retrieve_route::<V>).patch(update_route::<V>).delete(delete_route::<V>).fallback(method_not_allowed);
    router.route(&format!("{base}/"), collection).route(&format!("{base}/{{pk}}"), detail)
}

async fn method_not_allowed() -> Response {
    ApiError::MethodNotAllowed.into_response()
}

fn respond(result: Result<Response, ApiError>) -> Response {
    result.unwrap_or_else(IntoResponse::into_response)
}

/// Query parameters named in `get_filter_fields()` become the router's exact-match filters.
fn router_filters<V: Hooks>(request: &RequestContext) -> Filters {
    let allowed = V::get_filter_fields();
    request.query.iter().filter(|(k, _)| allowed.contains(k)).map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn lookup<V: Hooks>(path: Result<Path<String>, PathRejection>) -> Result<Lookup, ApiError> {
    let Path(raw) = path.map_err(|e| ApiError::InvalidId(e.body_text()))?;
    let value = V::lookup_value(&raw)?;
    Ok(Lookup { raw, value })
}

fn body<T: serde::de::DeserializeOwned>(bytes: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = bytes.map_err(|e| ApiError::BodyRejected(e.status(), e.body_text()))?;
    json_body(&bytes)
}

async fn list_route<V: Hooks>(mut request: RequestContext) -> Response {
    request.operation = Operation::List;
    respond(
        async {
            V::check_permissions(&request)?;
            let window = V::Pagination::window(&request.query, &V::CONFIG)?;
            let filters = router_filters::<V>(&request);
            V::list(request, window.limit, window.offset, filters).await
        }
        .await,
    )
}

async fn retrieve_route<V: Hooks>(mut request: RequestContext, path: Result<Path<String>, PathRejection>) -> Response {
    request.operation = Operation::Retrieve;
    respond(
        async {
            V::check_permissions(&request)?;
            V::retrieve(lookup::<V>(path)?, request).await
        }
        .await,
    )
}

async fn create_route<V: Hooks>(mut request: RequestContext, bytes: Result<Bytes, BytesRejection>) -> Response {
    request.operation = Operation::Create;
    respond(
        async {
            V::check_permissions(&request)?;
            V::create(body(bytes)?, request).await
        }
        .await,
    )
}

async fn update_route<V: Hooks>(
    mut request: RequestContext,
    path: Result<Path<String>, PathRejection>,
    bytes: Result<Bytes, BytesRejection>,
) -> Response {
    request.operation = Operation::Update;
    respond(
        async {
            V::check_permissions(&request)?;
            let pk = lookup::<V>(path)?;
            V::update(pk, body(bytes)?, request).await
        }
        .await,
    )
}

async fn delete_route<V: Hooks>(mut request: RequestContext, path: Result<Path<String>, PathRejection>) -> Response {
    request.operation = Operation::Delete;
    respond(
        async {
            V::check_permissions(&request)?;
            V::delete(lookup::<V>(path)?, request).await
        }
        .await,
    )
}
