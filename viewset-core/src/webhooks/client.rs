//! Outbound requests to webhook receivers, made safe for URLs an administrator (or Studio) typed: one timeout for
//! connect, answer and body; no redirect followed (hyper follows none); at most a few KiB of the answer read; and
//! no connection to a loopback, private, link-local (cloud metadata: 169.254.169.254), shared, multicast or
//! unspecified address unless the endpoint allows private addresses. Names are checked **after** resolution, by
//! the resolver the connector uses, so a name that resolves (or rebinds) to such an address is refused too.

use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::http::{Request, Uri, header};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::connect::dns::Name;

use super::WebhookError;

/// The most of a receiver's answer read (it is logged, never used).
const MAX_ANSWER_BYTES: usize = 4096;

/// What one attempt got.
#[derive(Debug, Clone, Default)]
pub(super) struct Reply {
    /// The receiver's status, when it answered.
    pub status: Option<u16>,
    /// Its `Retry-After`, in seconds.
    pub retry_after: Option<Duration>,
    /// Why there was no answer (timeout, refused address, connection error), or the start of a refusal's body.
    pub error: Option<String>,
    /// From the request's start to the end of its answer (or the failure).
    pub latency: Duration,
}

/// A resolver that drops refused addresses (all of them refused: an error naming the name).
#[derive(Clone)]
struct Guarded {
    allow_private: bool,
}

impl tower::Service<Name> for Guarded {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, io::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), io::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = found.iter().copied().filter(|a| allow_private || public(a.ip())).collect();
            if kept.is_empty() && !found.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!("{name} resolves to a private or reserved address ({}), refused", found[0].ip()),
                ));
            }
            Ok(kept.into_iter())
        })
    }
}

/// Whether `ip` is a public unicast address.
pub(super) fn public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || a == 0
                || (a == 100 && (64..128).contains(&b))
                || (a == 198 && (b == 18 || b == 19))
                || a >= 240)
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => public(IpAddr::V4(v4)),
            None => {
                let first = v6.segments()[0];
                !(v6.is_loopback()
                    || v6.is_unspecified()
                    || v6.is_multicast()
                    || (first & 0xfe00) == 0xfc00
                    || (first & 0xffc0) == 0xfe80)
            }
        },
    }
}

/// The HTTP client of one endpoint.
#[derive(Clone)]
pub(super) struct Sender {
    client: Client<HttpsConnector<HttpConnector<Guarded>>, Full<Bytes>>,
    allow_private: bool,
    timeout: Duration,
}

impl Sender {
    /// A client for an endpoint; TLS through rustls with `ring` and the system's roots.
    pub(super) fn new(allow_private: bool, timeout: Duration) -> Result<Sender, WebhookError> {
        let mut http = HttpConnector::new_with_resolver(Guarded { allow_private });
        http.enforce_http(false);
        http.set_connect_timeout(Some(timeout));
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_platform_verifier(provider)
            .map_err(|e| WebhookError::Config(format!("TLS setup: {e}")))?
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        let client = Client::builder(hyper_util::rt::TokioExecutor::new()).build(https);
        Ok(Sender { client, allow_private, timeout })
    }

    /// POSTs `body` with `headers` to `url`, within the timeout.
    pub(super) async fn post(&self, url: &Uri, headers: &[(&'static str, String)], body: Bytes) -> Reply {
        let started = Instant::now();
        let mut reply = match tokio::time::timeout(self.timeout, self.attempt(url, headers, body)).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(error)) => Reply { error: Some(error), ..Reply::default() },
            Err(_) => Reply { error: Some(format!("no answer within {:?}", self.timeout)), ..Reply::default() },
        };
        reply.latency = started.elapsed();
        reply
    }

    async fn attempt(&self, url: &Uri, headers: &[(&'static str, String)], body: Bytes) -> Result<Reply, String> {
        // A literal address never reaches the resolver: it is checked here.
        if let Some(ip) = url.host().and_then(|h| h.trim_matches(['[', ']']).parse::<IpAddr>().ok())
            && !self.allow_private
            && !public(ip)
        {
            return Err(format!("{ip} is a private or reserved address, refused"));
        }
        let mut request = Request::post(url.clone()).header(header::CONTENT_TYPE, "application/json");
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let request = request.body(Full::new(body)).map_err(|e| e.to_string())?;
        let answer = self.client.request(request).await.map_err(|e| error_chain(&e))?;
        let status = answer.status().as_u16();
        let retry_after = answer
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        // At most MAX_ANSWER_BYTES of the answer: a larger one is cut, not read to its end.
        let text = match Limited::new(answer.into_body(), MAX_ANSWER_BYTES).collect().await {
            Ok(collected) => String::from_utf8_lossy(&collected.to_bytes()).into_owned(),
            Err(_) => String::from("(answer larger than 4 KiB, not read)"),
        };
        let error = (!(200..300).contains(&status)).then(|| text.chars().take(500).collect());
        Ok(Reply { status: Some(status), retry_after, error, latency: Duration::ZERO })
    }
}

/// An error and its sources, one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(next) = source {
        text.push_str(": ");
        text.push_str(&next.to_string());
        source = next.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::public;

    #[test]
    fn reserved_addresses_are_not_public() {
        for refused in ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "0.0.0.0", "::1"] {
            assert!(!public(refused.parse().unwrap()), "{refused}");
        }
        for refused in ["fe80::1", "fd00::1", "::ffff:127.0.0.1", "100.64.0.1", "224.0.0.1"] {
            assert!(!public(refused.parse().unwrap()), "{refused}");
        }
        assert!(public("93.184.216.34".parse().unwrap()) && public("2606:4700::1111".parse().unwrap()));
    }
}
