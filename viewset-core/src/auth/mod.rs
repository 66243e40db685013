//! Authentication helpers: from a request's credential (a bearer token or a session cookie) to a [`Principal`],
//! through a verifier the application writes. They install nothing by themselves: the application mounts the
//! [`Authenticate`] layer on its router, where it wants it, and owns how a token or session is checked.
//!
//! `Authenticate::jwt` (feature `jwt`) is a verifier written once for every application: JWT access tokens
//! checked against the keys an identity provider publishes (OpenID Connect discovery, a JWKS URL, or static keys),
//! their claims mapped to the `Principal`; see the module `jwt`.
//!
//! A request without the credential continues anonymous (permissions decide what an anonymous caller may do; one
//! they refuse for lack of an identity is a 401 `not_authenticated` with `WWW-Authenticate: Bearer` behind a bearer
//! layer, so a client knows to get or refresh a token, and the spec's 403 behind a cookie layer or none). A
//! credential the verifier refuses is a 401 `{"detail": "...", "code": "invalid_token"}` with
//! `WWW-Authenticate: Bearer error="invalid_token", error_description="..."` (RFC 6750,
//! [`ApiError::invalid_token`]), unless the layer is made with
//! [`Authenticate::refused_as_anonymous`]. A verified caller's `Principal` is attached as a request extension, where
//! permissions, row policies and field visibility read it.
//!
//! ```
//! use viewset_core::prelude::*;
//!
//! let auth = Authenticate::bearer(|token: String| async move {
//!     // Look the token up in your sessions table, verify a JWT, ...
//!     (token == "alice-token").then(|| Principal::user("alice").staff())
//! });
//! let app: axum::Router = axum::Router::new().route("/", axum::routing::get(|| async { "hi" })).layer(auth);
//! ```

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::HeaderMap;
use axum::http::header::{AUTHORIZATION, COOKIE};
use axum::response::{IntoResponse, Response};
use tower::{Layer, Service};

use crate::error::ApiError;
use crate::types::principal::Principal;

#[cfg(feature = "jwt")]
mod claims;
#[cfg(feature = "jwt")]
pub mod jwt;
#[cfg(feature = "jwt")]
mod jwt_config;
#[cfg(feature = "jwt")]
mod jwt_env;
#[cfg(feature = "jwt")]
mod keys;
#[cfg(feature = "jwt")]
mod remote;
#[cfg(feature = "jwt")]
mod token;

/// Set on every request a bearer [`Authenticate`] layer saw: the route's permission checks answer an anonymous
/// caller they refuse with 401 and `WWW-Authenticate: Bearer` (the authenticator can challenge, as in Django REST
/// framework), where without it the spec's 403 stays.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Challenges;

/// A verifier's answer: the caller's principal, or the error the request answers (a 401 `invalid_token` saying
/// which check failed, a 503 while the identity provider was never reached).
type Verdict = Pin<Box<dyn Future<Output = Result<Principal, ApiError>> + Send>>;
type Verifier = Arc<dyn Fn(String) -> Verdict + Send + Sync>;

/// Where the credential is read from.
#[derive(Clone, Debug)]
enum Source {
    Bearer,
    Cookie(Arc<str>),
}

/// A tower layer that attaches the [`Principal`] of a verified credential; see the [module](self) for the rules.
///
/// ```
/// use viewset_core::auth::Authenticate;
/// use viewset_core::Principal;
///
/// // A session cookie, for a browser front end: the verifier gets the cookie's value.
/// let auth = Authenticate::cookie("session", |session: String| async move {
///     (session == "s3cret").then(|| Principal::user("alice"))
/// });
/// let _app: axum::Router = axum::Router::new().layer(auth);
/// ```
#[derive(Clone)]
pub struct Authenticate {
    source: Source,
    verify: Verifier,
    refused_as_anonymous: bool,
}

impl Authenticate {
    /// Reads `Authorization: Bearer <token>` (the scheme in any case) and asks `verify` for its principal.
    pub fn bearer<F, Fut>(verify: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<Principal>> + Send + 'static,
    {
        Authenticate { source: Source::Bearer, verify: boxed(verify), refused_as_anonymous: false }
    }

    /// Reads the cookie `name` and asks `verify` for the principal of its value.
    pub fn cookie<F, Fut>(name: &str, verify: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<Principal>> + Send + 'static,
    {
        Authenticate { source: Source::Cookie(name.into()), verify: boxed(verify), refused_as_anonymous: false }
    }

    /// A refused credential continues anonymous instead of answering 401 (demo applications, and APIs whose
    /// anonymous callers see the same as callers with a stale token). A 503 of `Authenticate::jwt` (the identity
    /// provider never reached) stays a 503: the token was not refused.
    ///
    /// ```
    /// let auth = viewset_core::auth::Authenticate::bearer(|_t: String| async { None }).refused_as_anonymous();
    /// # let _ = auth;
    /// ```
    pub fn refused_as_anonymous(mut self) -> Self {
        self.refused_as_anonymous = true;
        self
    }

    fn credential(&self, headers: &HeaderMap) -> Option<String> {
        match &self.source {
            Source::Bearer => bearer_token(headers).map(str::to_string),
            Source::Cookie(name) => cookie(headers, name).map(str::to_string),
        }
    }
}

fn boxed<F, Fut>(verify: F) -> Verifier
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Option<Principal>> + Send + 'static,
{
    Arc::new(move |credential| {
        let verdict = verify(credential);
        Box::pin(async move { verdict.await.ok_or_else(refused) })
    })
}

/// The 401 of a credential a closure verifier refused ([`ApiError::invalid_token`]).
fn refused() -> ApiError {
    ApiError::invalid_token("The credential is invalid or expired.")
}

impl<S> Layer<S> for Authenticate {
    type Service = AuthenticateService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        AuthenticateService { auth: self.clone(), inner }
    }
}

/// The service [`Authenticate`] wraps around the routes.
#[derive(Clone)]
pub struct AuthenticateService<S> {
    auth: Authenticate,
    inner: S,
}

impl<S> Service<Request> for AuthenticateService<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        // The clone that was polled ready serves this request; the fresh clone waits for the next one.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let credential = self.auth.credential(request.headers());
        let (verify, anonymous) = (self.auth.verify.clone(), self.auth.refused_as_anonymous);
        if matches!(self.auth.source, Source::Bearer) {
            request.extensions_mut().insert(Challenges);
        }
        Box::pin(async move {
            if let Some(credential) = credential {
                match verify(credential).await {
                    Ok(principal) => {
                        request.extensions_mut().insert(principal);
                    }
                    Err(ApiError::Unauthorized { .. }) if anonymous => {}
                    Err(refused) => return Ok(refused.into_response()),
                }
            }
            inner.call(request).await
        })
    }
}

/// The token of an `Authorization: Bearer <token>` header (scheme in any case, surrounding spaces trimmed); `None`
/// without one or for another scheme. An empty token is `Some("")`, which no verifier should accept.
///
/// ```
/// let mut headers = axum::http::HeaderMap::new();
/// headers.insert("authorization", "bearer  abc ".parse().unwrap());
/// assert_eq!(viewset_core::auth::bearer_token(&headers), Some("abc"));
/// headers.insert("authorization", "Basic YTpi".parse().unwrap());
/// assert_eq!(viewset_core::auth::bearer_token(&headers), None);
/// ```
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The value of cookie `name` in the request's `Cookie` headers.
///
/// ```
/// let mut headers = axum::http::HeaderMap::new();
/// headers.insert("cookie", "theme=dark; session=abc".parse().unwrap());
/// assert_eq!(viewset_core::auth::cookie(&headers, "session"), Some("abc"));
/// assert_eq!(viewset_core::auth::cookie(&headers, "other"), None);
/// ```
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find_map(|(key, value)| (key == name).then(|| value.trim()))
}
