//! The throttle step of every route ([`crate::throttle`]): the rules of this request, counted in the store,
//! answered as a pass or 429.

use axum::http::HeaderMap;

use crate::contract::hooks::Hooks;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::throttle::bucket::Outcome;
use crate::throttle::client::client_key;
use crate::throttle::declared::Declared;
use crate::throttle::headers::{Pass, policy_header, remaining_header};
use crate::throttle::rate::Rate;
use crate::throttle::{OnStoreError, Throttles};
use crate::types::operation::Operation;

/// Counts `request` against the throttles of `V` for its operation (and `action`'s own rate, for an action):
/// 429 `throttled` over a rate, 503 `throttle_unavailable` when the store cannot be asked and the throttle fails
/// closed. [`enter`](super::enter) runs it after the permissions; a route that is not throttled pays one branch.
pub fn check_throttles<V: Hooks>(
    request: &RequestContext,
    action: Option<Rate>,
) -> impl Future<Output = Result<Pass, ApiError>> + Send + '_ {
    check(request, throttles_of::<V>(), action)
}

/// The throttles `V` declares and the name its buckets are counted under.
pub(crate) fn throttles_of<V: Hooks>() -> (&'static Throttles, &'static str) {
    // `ViewSet::basename` without its `String`: the table's name is static.
    let basename = match V::CONFIG.basename {
        "" => sea_orm::EntityName::table_name(&V::Entity::default()),
        basename => basename,
    };
    (&V::CONFIG.throttle, basename)
}

/// [`super::enter`] past its generic part: `admitted`, then the throttles of `viewset`.
pub(crate) async fn entered(
    request: &RequestContext,
    admitted: Result<(), ApiError>,
    viewset: (&'static Throttles, &'static str),
) -> Result<Pass, ApiError> {
    admitted?;
    check(request, viewset, None).await
}

/// The own rates of a ViewSet that a nested write creates rows through (`viewset`: [`throttles_of`]), for a request
/// of another route: its scope's rate and its `create` rate, counted once per request as its own `POST` would count
/// them (a 429 naming the scope refuses the whole write). The application's defaults are not counted again: the
/// route counted them.
pub(crate) async fn check_nested(
    request: &RequestContext,
    viewset: (&'static Throttles, &'static str),
) -> Result<(), ApiError> {
    if viewset.0.is_empty() {
        return Ok(());
    }
    check_as(request, viewset, None, Operation::Create, &Throttles::NONE).await.map(drop)
}

/// [`check_throttles`] past its generic part: the ViewSet's throttles and basename. Compiled once, not per
/// ViewSet (build time: BENCHMARKS.md, "Compile cost").
async fn check(
    request: &RequestContext,
    viewset: (&'static Throttles, &'static str),
    action: Option<Rate>,
) -> Result<Pass, ApiError> {
    check_as(request, viewset, action, request.operation, &request.throttle.0.defaults).await
}

/// [`check`] for `operation`, with `defaults` as the application's rates.
async fn check_as(
    request: &RequestContext,
    viewset: (&'static Throttles, &'static str),
    action: Option<Rate>,
    operation: Operation,
    defaults: &Throttles,
) -> Result<Pass, ApiError> {
    if viewset.0.is_empty() && action.is_none() && defaults.is_empty() {
        return Ok(Pass::default());
    }
    let throttle = &request.throttle.0;
    let who = match &request.principal.user_id {
        Some(id) => ["u:", id].concat(),
        None => client_key(request.peer, &request.headers, &throttle.trusted),
    };
    if request.peer.is_none() && request.principal.user_id.is_none() {
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| {
            tracing::warn!(
                "throttling anonymous callers without their address: serve with \
                 `into_make_service_with_connect_info::<SocketAddr>()`, else they share one budget"
            )
        });
    }
    let namespace = &throttle.namespace;
    let declared = Declared { viewset, defaults, action, namespace };
    let rules = declared.rules(&request.principal, operation, &who);
    if rules.is_empty() {
        return Ok(Pass::default());
    }
    let outcomes = match throttle.buckets.check(&rules).await {
        Ok(outcomes) => outcomes,
        Err(reason) => {
            let errors = throttle.store_errors.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            let store = throttle.buckets.kind();
            return match throttle.on_store_error {
                OnStoreError::FailOpen => {
                    tracing::warn!(store, errors, %reason, "throttle store unavailable: request admitted (fail open)");
                    Ok(Pass::default())
                }
                OnStoreError::FailClosed => {
                    tracing::warn!(store, errors, %reason, "throttle store unavailable: request refused (fail closed)");
                    let detail = "Rate limits cannot be checked right now; retry shortly.".to_string();
                    let status = axum::http::StatusCode::SERVICE_UNAVAILABLE;
                    Err(ApiError::Limit { status, limit: "throttle_store", detail })
                }
            };
        }
    };
    // The headers are written only when they are sent: on a refusal, or on every answer when asked for.
    let headers = || {
        let mut headers = HeaderMap::new();
        headers.insert("ratelimit-policy", policy_header(&rules));
        headers
    };
    match outcomes.last() {
        Some(&Outcome::Denied { retry_after }) => {
            let rule = &rules[outcomes.len() - 1];
            let seconds = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
            let seconds = seconds.max(1);
            let mut headers = headers();
            headers.insert("ratelimit", remaining_header(rule.policy, 0, seconds));
            let detail = format!(
                "Request was throttled: {} allows {}. Expected available in {seconds} s.",
                rule.policy, rule.rate
            );
            Err(ApiError::Throttled { scope: rule.policy, retry_after: seconds, detail, headers: Box::new(headers) })
        }
        _ if !throttle.every_answer => Ok(Pass::default()),
        _ => {
            let mut headers = headers();
            let least = rules.iter().zip(&outcomes).filter_map(|(rule, outcome)| match outcome {
                Outcome::Allowed { remaining, reset } => Some((rule.policy, *remaining, reset.as_secs())),
                Outcome::Denied { .. } => None,
            });
            if let Some((policy, remaining, reset)) = least.min_by_key(|(_, remaining, _)| *remaining) {
                headers.insert("ratelimit", remaining_header(policy, remaining, reset));
            }
            Ok(Pass::with(headers))
        }
    }
}
