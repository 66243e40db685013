//! An identity provider's keys over HTTP: its JWKS (found through OpenID Connect discovery or given as a URL),
//! cached for as long as its `Cache-Control: max-age` says (within a floor and a ceiling), fetched again when a
//! token names an unknown `kid` (at most once per interval, whatever the number of forged `kid`s), the last good
//! keys kept while the provider cannot be reached. One fetch runs at a time; the requests that need it wait for it.

use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use axum::http::header::{ACCEPT, CACHE_CONTROL};
use axum::http::{HeaderMap, Request, StatusCode};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::Value;

use super::keys::KeySet;
use crate::error::ApiError;

/// The largest discovery or JWKS document read (a real JWKS is a few KiB).
const MAX_DOCUMENT_BYTES: usize = 1 << 20;

/// Where the JWKS is.
#[derive(Debug, Clone)]
pub(super) enum Location {
    /// OpenID Connect discovery: `<issuer>/.well-known/openid-configuration` names `jwks_uri`.
    Discovery(String),
    /// The JWKS's own URL.
    Jwks(String),
}

/// How long keys are kept and how often the provider may be asked.
#[derive(Debug, Clone, Copy)]
pub(super) struct CachePolicy {
    /// The shortest time a fetched set is kept, whatever `Cache-Control` says.
    pub floor: Duration,
    /// The longest.
    pub ceiling: Duration,
    /// When the JWKS answer has no `max-age`.
    pub default_ttl: Duration,
    /// The shortest time between two fetches (an unknown `kid`, a failed fetch, a stale set).
    pub refetch_interval: Duration,
    /// The time one HTTP request (connect, answer and body) may take.
    pub timeout: Duration,
}

impl CachePolicy {
    /// How long keys fetched with `headers` are kept: `max-age` (`no-store` and `no-cache` as 0), else the default,
    /// between the floor and the ceiling.
    pub fn ttl(&self, headers: &HeaderMap) -> Duration {
        let directives = headers.get_all(CACHE_CONTROL).iter().filter_map(|value| value.to_str().ok());
        let mut ttl = None;
        for directive in directives.flat_map(|value| value.split(',')).map(str::trim) {
            let lower = directive.to_ascii_lowercase();
            if lower == "no-store" || lower == "no-cache" {
                ttl = Some(Duration::ZERO);
            } else if let Some(seconds) = lower.strip_prefix("max-age=") {
                ttl = ttl.or(seconds.trim_matches('"').parse().ok().map(Duration::from_secs));
            }
        }
        ttl.unwrap_or(self.default_ttl).clamp(self.floor, self.ceiling.max(self.floor))
    }
}

/// A fetched key set and until when it is fresh.
#[derive(Clone)]
struct Cached {
    keys: Arc<KeySet>,
    expires: Instant,
}

/// The keys of an identity provider.
pub(crate) struct Remote {
    location: Location,
    policy: CachePolicy,
    client: Client<HttpsConnector<HttpConnector>, Empty<Bytes>>,
    current: RwLock<Option<Cached>>,
    last_attempt: Mutex<Option<Instant>>,
    fetching: tokio::sync::Mutex<()>,
    jwks_uri: Mutex<Option<String>>,
}

impl Remote {
    /// A provider's keys at `location`, fetched on first use; an HTTPS client on rustls with `ring` and the system's
    /// roots (plain HTTP is accepted by the caller for loopback addresses only).
    pub fn new(location: Location, policy: CachePolicy) -> Result<Remote, String> {
        // rustls 0.23.48 deprecates ring's provider for its lack of post-quantum key exchange: the keys fetched here
        // are public, and ring keeps aws-lc-rs's C build out (async-nats links ring already).
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_platform_verifier(provider)
            .map_err(|e| format!("TLS setup: {e}"))?
            .https_or_http()
            .enable_http1()
            .build();
        let client = Client::builder(hyper_util::rt::TokioExecutor::new()).build(https);
        Ok(Remote {
            location,
            policy,
            client,
            current: RwLock::new(None),
            last_attempt: Mutex::new(None),
            fetching: tokio::sync::Mutex::new(()),
            jwks_uri: Mutex::new(None),
        })
    }

    /// The keys for a token naming `kid`: the cached set while fresh and knowing `kid`; else a fetch when one is due;
    /// else the last good set (stale, or without `kid`: the caller refuses the token as an unknown key). A 503
    /// while no set was ever fetched.
    pub async fn keys(&self, kid: Option<&str>) -> Result<Arc<KeySet>, ApiError> {
        if let Some(cached) = self.cached()
            && Instant::now() < cached.expires
            && kid.is_none_or(|kid| cached.keys.has(kid))
        {
            return Ok(cached.keys);
        }
        if let Some(fresh) = self.refresh().await {
            return Ok(fresh);
        }
        match self.cached() {
            Some(cached) => Ok(cached.keys),
            None => Err(ApiError::IdentityProviderUnavailable { retry_after: self.retry_after() }),
        }
    }

    fn cached(&self) -> Option<Cached> {
        self.current.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Whether the interval since the last fetch has passed.
    fn due(&self) -> bool {
        let last = *self.last_attempt.lock().unwrap_or_else(PoisonError::into_inner);
        last.is_none_or(|last| last.elapsed() >= self.policy.refetch_interval)
    }

    /// Whole seconds until the next fetch is due, at least 1.
    fn retry_after(&self) -> u64 {
        let last = *self.last_attempt.lock().unwrap_or_else(PoisonError::into_inner);
        let left = last.map_or(Duration::ZERO, |last| self.policy.refetch_interval.saturating_sub(last.elapsed()));
        left.as_secs_f64().ceil().max(1.0) as u64
    }

    /// Fetches the set when a fetch is due, one at a time: the fresh set, or `None` (not due, or failed; a request
    /// that waited for another's fetch reads its result from the cache).
    async fn refresh(&self) -> Option<Arc<KeySet>> {
        if !self.due() {
            return None;
        }
        let _one_at_a_time = self.fetching.lock().await;
        if !self.due() {
            return None;
        }
        let started = Instant::now();
        *self.last_attempt.lock().unwrap_or_else(PoisonError::into_inner) = Some(started);
        match self.fetch().await {
            Ok((keys, ttl)) => {
                let keys = Arc::new(keys);
                let cached = Cached { keys: keys.clone(), expires: started + ttl };
                *self.current.write().unwrap_or_else(PoisonError::into_inner) = Some(cached);
                Some(keys)
            }
            Err(error) => {
                let kept = if self.cached().is_some() { "the last good keys are kept" } else { "no keys yet" };
                tracing::warn!(%error, "the identity provider's keys could not be fetched; {kept}");
                None
            }
        }
    }

    /// The provider's current signing keys and how long to keep them.
    async fn fetch(&self) -> Result<(KeySet, Duration), String> {
        let uri = self.jwks_uri().await?;
        let (body, headers) = self.get(&uri).await?;
        let keys = KeySet::from_json(&body, false).map_err(|e| format!("the JWKS at {uri}: {e}"))?;
        Ok((keys, self.policy.ttl(&headers)))
    }

    /// The JWKS URL: the configured one, or the discovery document's `jwks_uri` (read once, its `issuer` checked).
    async fn jwks_uri(&self) -> Result<String, String> {
        let issuer = match &self.location {
            Location::Jwks(uri) => return Ok(uri.clone()),
            Location::Discovery(issuer) => issuer,
        };
        if let Some(uri) = self.jwks_uri.lock().unwrap_or_else(PoisonError::into_inner).clone() {
            return Ok(uri);
        }
        let url = format!("{}/.well-known/openid-configuration", issuer.trim_end_matches('/'));
        let (body, _) = self.get(&url).await?;
        let document: Value = serde_json::from_slice(&body).map_err(|e| format!("{url}: not JSON: {e}"))?;
        // OpenID Connect Discovery §4.3: the document's issuer is exactly the one it was fetched for.
        if document.get("issuer").and_then(Value::as_str) != Some(issuer) {
            return Err(format!("{url}: its `issuer` is not {issuer}"));
        }
        let uri = document.get("jwks_uri").and_then(Value::as_str).ok_or(format!("{url}: no `jwks_uri`"))?;
        super::jwt::check_url(uri).map_err(|e| format!("{url}: `jwks_uri` {e}"))?;
        *self.jwks_uri.lock().unwrap_or_else(PoisonError::into_inner) = Some(uri.to_string());
        Ok(uri.to_string())
    }

    /// `GET url`'s 200 body (at most [`MAX_DOCUMENT_BYTES`]) and headers, within the timeout.
    async fn get(&self, url: &str) -> Result<(Bytes, HeaderMap), String> {
        let request = Request::get(url).header(ACCEPT, "application/json").body(Empty::new());
        let request = request.map_err(|e| format!("{url}: {e}"))?;
        let exchange = async {
            let response = self.client.request(request).await.map_err(|e| format!("{url}: {e}"))?;
            if response.status() != StatusCode::OK {
                return Err(format!("{url} answered {}", response.status()));
            }
            let headers = response.headers().clone();
            let body = Limited::new(response.into_body(), MAX_DOCUMENT_BYTES).collect().await;
            Ok((body.map_err(|e| format!("{url}: {e}"))?.to_bytes(), headers))
        };
        tokio::time::timeout(self.policy.timeout, exchange).await.map_err(|_| format!("{url}: timed out"))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_age_is_kept_between_the_floor_and_the_ceiling() {
        let policy = CachePolicy {
            floor: Duration::from_secs(60),
            ceiling: Duration::from_secs(3600),
            default_ttl: Duration::from_secs(600),
            refetch_interval: Duration::from_secs(10),
            timeout: Duration::from_secs(5),
        };
        let ttl = |value: Option<&str>| {
            let mut headers = HeaderMap::new();
            if let Some(value) = value {
                headers.insert(CACHE_CONTROL, value.parse().unwrap());
            }
            policy.ttl(&headers).as_secs()
        };
        assert_eq!(ttl(None), 600);
        assert_eq!(ttl(Some("public, max-age=900")), 900);
        assert_eq!(ttl(Some("max-age=5")), 60, "floor");
        assert_eq!(ttl(Some("max-age=999999")), 3600, "ceiling");
        assert_eq!(ttl(Some("no-store")), 60);
        assert_eq!(ttl(Some("no-cache, max-age=900")), 60);
        assert_eq!(ttl(Some("max-age=junk")), 600);
    }
}
