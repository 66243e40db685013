//! Webhooks: a signed POST to an endpoint for every created, updated and deleted record of the ViewSets it names,
//! delivered at least once, in order per ViewSet, by whichever instance holds the feed's lease (feature `webhooks`).
//!
//! An endpoint runs **as a principal** ([`Endpoint::run_as`]): its feed is that principal's subscription to the
//! ViewSet's stream (`GET <prefix>/stream`, read in process through the application's routes), so what it is sent
//! is what the stream would show that principal — permissions, row policies, tenant, hidden fields, the endpoint's
//! filter ([`Endpoint::filter`], the list's query language) — and an event it may not see is not sent.
//!
//! Each message follows the [Standard Webhooks](https://www.standardwebhooks.com) specification: the body is
//! `{"type": "<basename>.<created|updated|deleted>", "timestamp": …, "data": <the stream's event>}`, the headers
//! `webhook-id` (the event's id: on the outbox bus the cluster-wide one, the same from every instance, so a
//! receiver dedupes on it), `webhook-timestamp` and `webhook-signature` (HMAC-SHA256 with the endpoint's
//! [`Secret`]; both signatures while a secret is rotated, [`Endpoint::rotate`]). The official `standardwebhooks`
//! libraries verify it.
//!
//! Delivery reads the durable bus: on the outbox (PostgreSQL) or JetStream, a feed resumes after its last delivered
//! event from any instance, so a killed instance's feed is carried on by another once its lease expires (default
//! 30 s); the in-process bus (SQLite) is not durable: events of a stopped process are not delivered. A 2xx is
//! delivered; 408, 429 (its `Retry-After` honoured), 5xx, a timeout or a connection error is tried again on the
//! endpoint's [`Retry`] schedule (about a day and a half), then dead-lettered ([`WebhookHandle::dead_letters`],
//! [`WebhookHandle::replay`]); any other 4xx is dead-lettered at once. An endpoint that fails for longer than
//! [`Retry::disable_after`] is disabled and reported (`viewset::webhooks` error), until [`WebhookHandle::enable`].
//! Every attempt is logged ([`WebhookHandle::attempts`], kept 7 days). Ordering costs throughput: a feed sends one
//! event at a time, and a failing one holds back those after it until it is delivered or dead-lettered.
//!
//! Outbound safety: a timeout per request (10 s), no redirect followed, at most 4 KiB of an answer read, and no
//! connection to loopback, private, link-local (cloud metadata) or other reserved addresses — checked after name
//! resolution — unless the endpoint [allows private addresses](Endpoint::allow_private_addresses).
//!
//! ```no_run
//! # async fn run(api: viewset_core::registration::Api, db: sea_orm::DatabaseConnection, app: axum::Router)
//! # -> Result<(), viewset_core::webhooks::WebhookError> {
//! use viewset_core::access::Principal;
//! use viewset_core::webhooks::{Endpoint, Webhooks};
//!
//! let search_index = Endpoint::new("search", "https://search.example.com/hooks", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")?
//!     .viewset("posts")
//!     .filter("published=true")
//!     .run_as(Principal::user("indexer"));
//! let webhooks = Webhooks::new(&api, db).endpoint(search_index)?.start(app).await?;
//! # Ok(()) }
//! ```
//! Endpoints can also be kept in the database ([`StoredEndpoint`], [`save_endpoint`], [`Webhooks::with_stored`]):
//! changed without a deploy, read when webhooks start. The tables are created by [`Migration`] in the application's
//! migrator.

mod client;
mod deliver;
mod frames;
mod handle;
mod schedule;
mod sign;
mod status;
mod stored;
mod table;

use std::collections::HashMap;
use std::time::Duration;

use axum::http::Uri;
use sea_orm::DatabaseConnection;

pub use handle::WebhookHandle;
pub use schedule::Retry;
pub use sign::Secret;
pub use status::FeedStatus;
pub use stored::{StoredEndpoint, remove_endpoint, save_endpoint, stored_endpoints};
pub use table::{Attempt, DeadLetter, Migration};

use crate::access::Principal;
use crate::registration::Api;

/// Why webhooks could not be set up or asked.
#[derive(Debug)]
#[non_exhaustive]
pub enum WebhookError {
    /// A configuration mistake: a bad name, URL or secret, an unknown ViewSet, a stream that refuses the endpoint's
    /// principal or filter.
    Config(String),
    /// No such endpoint or dead letter.
    NotFound(String),
    /// The database refused a statement.
    Database(sea_orm::DbErr),
}

impl std::fmt::Display for WebhookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WebhookError::Config(why) => write!(f, "webhooks: {why}"),
            WebhookError::NotFound(what) => write!(f, "webhooks: no {what}"),
            WebhookError::Database(e) => write!(f, "webhooks: {e}"),
        }
    }
}

impl std::error::Error for WebhookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WebhookError::Database(e) => Some(e),
            _ => None,
        }
    }
}

impl From<sea_orm::DbErr> for WebhookError {
    fn from(e: sea_orm::DbErr) -> Self {
        WebhookError::Database(e)
    }
}

/// The events a stream sends, and so an endpoint may ask for.
const EVENTS: [&str; 3] = ["created", "updated", "deleted"];

/// A receiver of webhooks: where, signed with what, for which ViewSets and events, as whom.
///
/// ```
/// use std::time::Duration;
/// use viewset_core::access::Principal;
/// use viewset_core::webhooks::{Endpoint, Retry, Secret};
///
/// let endpoint = Endpoint::new("crm", "https://crm.example.com/in", Secret::generate().as_str())
///     .unwrap()
///     .viewset("posts")
///     .events(["created", "deleted"])
///     .run_as(Principal::user("webhooks").staff())
///     .timeout(Duration::from_secs(5))
///     .retry(Retry::new(vec![Duration::from_secs(1), Duration::from_secs(60)]));
/// assert_eq!(endpoint.name(), "crm");
/// assert!(Endpoint::new("crm", "ftp://x", Secret::generate().as_str()).is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Endpoint {
    name: String,
    url: Uri,
    secrets: Vec<Secret>,
    viewsets: Vec<String>,
    events: Vec<String>,
    principal: Principal,
    filter: String,
    allow_private: bool,
    timeout: Duration,
    retry: Retry,
}

impl Endpoint {
    /// An endpoint named `name` (letters, digits, `-` and `_`; at most 64) posting to `url` (`http` or `https`)
    /// signed with `secret` (`whsec_…`); anonymous, every event, no ViewSet yet.
    pub fn new(name: &str, url: &str, secret: &str) -> Result<Endpoint, WebhookError> {
        let named = !name.is_empty()
            && name.len() <= 64
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !named {
            return Err(WebhookError::Config(format!(
                "`{name}` is not an endpoint name (letters, digits, `-`, `_`; 1 to 64)"
            )));
        }
        let url: Uri = url.parse().map_err(|e| WebhookError::Config(format!("`{url}` is not a URL: {e}")))?;
        if !matches!(url.scheme_str(), Some("http" | "https")) || url.host().is_none() {
            return Err(WebhookError::Config(format!("`{url}` is not an http(s) URL with a host")));
        }
        Ok(Endpoint {
            name: name.to_owned(),
            url,
            secrets: vec![Secret::parse(secret)?],
            viewsets: Vec::new(),
            events: EVENTS.map(str::to_owned).to_vec(),
            principal: Principal::anonymous(),
            filter: String::new(),
            allow_private: false,
            timeout: Duration::from_secs(10),
            retry: Retry::default(),
        })
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Adds a ViewSet (its basename, e.g. `posts`) whose events the endpoint receives.
    pub fn viewset(mut self, basename: &str) -> Endpoint {
        self.viewsets.push(basename.to_owned());
        self
    }

    /// Only these events (`created`, `updated`, `deleted`); all three by default.
    pub fn events<'a>(mut self, events: impl IntoIterator<Item = &'a str>) -> Endpoint {
        self.events = events.into_iter().map(str::to_owned).collect();
        self
    }

    /// The principal deliveries run as: the endpoint is sent what this principal may see.
    pub fn run_as(mut self, principal: Principal) -> Endpoint {
        self.principal = principal;
        self
    }

    /// Only records matching this query (the list's language: `published=true&author__name=ann`), checked by the
    /// stream as the list checks it (a bad filter fails [`Webhooks::start`]).
    pub fn filter(mut self, query: &str) -> Endpoint {
        self.filter = query.trim_start_matches('?').to_owned();
        self
    }

    /// Signs with `secret` too, beside the current one: receivers accept either while they move to the new one;
    /// drop the old one by building the endpoint with the new secret alone.
    pub fn rotate(mut self, secret: &str) -> Result<Endpoint, WebhookError> {
        self.secrets.push(Secret::parse(secret)?);
        Ok(self)
    }

    /// Lets the endpoint reach loopback and private addresses (a receiver inside the network; tests).
    pub fn allow_private_addresses(mut self) -> Endpoint {
        self.allow_private = true;
        self
    }

    /// The time one attempt may take (connect, answer, body); 10 s by default.
    pub fn timeout(mut self, timeout: Duration) -> Endpoint {
        self.timeout = timeout;
        self
    }

    /// The retry schedule.
    pub fn retry(mut self, retry: Retry) -> Endpoint {
        self.retry = retry;
        self
    }

    fn wants(&self, event: &str) -> bool {
        self.events.iter().any(|wanted| wanted == event)
    }
}

/// The webhook endpoints of an application, started once per process ([`Webhooks::start`]).
pub struct Webhooks {
    db: DatabaseConnection,
    /// Each ViewSet's stream path, by basename.
    streams: HashMap<String, String>,
    endpoints: Vec<Endpoint>,
    lease: Duration,
    retention: Duration,
}

impl Webhooks {
    /// Webhooks for the ViewSets of `api`, keeping their state in `db` (the tables of [`Migration`]).
    pub fn new(api: &Api, db: DatabaseConnection) -> Webhooks {
        let streams = api
            .routes()
            .iter()
            .filter(|route| route.handler == "stream")
            .filter_map(|route| {
                // The basename, as in the stream's operation id (`<basename>_stream`).
                let basename = route.operation_id.as_deref()?.strip_suffix("_stream")?;
                Some((basename.to_owned(), route.path.clone()))
            })
            .collect();
        Webhooks {
            db,
            streams,
            endpoints: Vec::new(),
            lease: Duration::from_secs(30),
            retention: Duration::from_secs(7 * 24 * 3600),
        }
    }

    /// Adds an endpoint; refused when its name is taken, it names no ViewSet, a ViewSet without a stream, or an
    /// event streams do not send.
    pub fn endpoint(mut self, endpoint: Endpoint) -> Result<Webhooks, WebhookError> {
        let refuse = |why: String| Err(WebhookError::Config(format!("endpoint `{}`: {why}", endpoint.name)));
        if self.endpoints.iter().any(|e| e.name == endpoint.name) {
            return refuse("the name is taken".to_owned());
        }
        if endpoint.viewsets.is_empty() {
            return refuse("it names no ViewSet (`.viewset(\"posts\")`)".to_owned());
        }
        if let Some(unknown) = endpoint.viewsets.iter().find(|v| !self.streams.contains_key(*v)) {
            let mut known: Vec<&String> = self.streams.keys().collect();
            known.sort();
            return refuse(format!("no ViewSet `{unknown}` with a stream; these have one: {known:?}"));
        }
        if let Some(unknown) = endpoint.events.iter().find(|e| !EVENTS.contains(&e.as_str())) {
            return refuse(format!("`{unknown}` is not an event; events: {EVENTS:?}"));
        }
        self.endpoints.push(endpoint);
        Ok(self)
    }

    /// Adds the enabled endpoints stored in the database ([`save_endpoint`]), as [`endpoint`](Self::endpoint)
    /// adds one written in code.
    pub async fn with_stored(mut self) -> Result<Webhooks, WebhookError> {
        for stored in stored_endpoints(&self.db).await?.into_iter().filter(|stored| stored.enabled) {
            self = self.endpoint(stored.endpoint()?)?;
        }
        Ok(self)
    }

    /// How long a feed's lease lasts without renewal (a killed instance's feeds move on after it); 30 s.
    pub fn lease(mut self, lease: Duration) -> Webhooks {
        self.lease = lease.max(Duration::from_millis(300));
        self
    }

    /// How long the attempts log is kept; 7 days.
    pub fn log_retention(mut self, keep: Duration) -> Webhooks {
        self.retention = keep;
        self
    }

    /// Starts delivery through `app` (the application's routes, with their state, without the layers that
    /// authenticate callers: each feed brings its principal). Each feed's stream is opened once first: a principal
    /// or filter the stream refuses is an error here rather than a failing feed later. It returns once every feed
    /// is delivering (its stream open, or its lease held by another instance; at most the lease's time): a feed's
    /// first start delivers the events committed after that, a later start resumes after its last delivered one.
    pub async fn start(self, app: axum::Router) -> Result<WebhookHandle, WebhookError> {
        handle::start(self, app).await
    }
}
