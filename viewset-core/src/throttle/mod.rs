//! Rate limits per caller, decided after authentication and permissions, on every surface that goes through the
//! routes (REST, actions, the stream, MCP tools and `/ai` queries): a GCRA per caller and policy, in this process
//! (governor) or in Redis, shared by every instance.
//!
//! | where | what |
//! |---|---|
//! | `#[viewset(throttle(anon = "20/minute", user = "1000/day", staff = "…", create = "10/minute"))]` | a ViewSet's own rates ([`Throttles`]), checked at compile time |
//! | `#[action(throttle = "5/minute")]` | an action's own rate |
//! | [`Throttle`] in [`ServiceState::with_throttle`](crate::ServiceState::with_throttle) | the application's defaults per scope, the store, trusted proxies, what to do when Redis is down |
//!
//! A caller is `staff` (a staff principal), `user` (signed in) or `anon` (counted by client address, see
//! [`Throttle::trusted_proxies`]). Its scope's rate is the ViewSet's, else the application's default (counted
//! across the whole API); an operation's or action's rate applies on top, to every caller. Over a rate:
//! `429` `{"detail", "code": "throttled", "scope", "retry_after"}` with `Retry-After` and the IETF `RateLimit` and
//! `RateLimit-Policy` headers (on every answer too with [`Throttle::headers_on_every_answer`]).
//!
//! ```
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use viewset_core::throttle::Throttle;
//! let db = sea_orm::Database::connect("sqlite::memory:").await?;
//! let throttle = Throttle::new().anon("100/minute".parse()?).user("1000/minute".parse()?);
//! let state = viewset_core::ServiceState::new(db).with_throttle(throttle);
//! # let _ = state; Ok(()) }
//! ```

pub(crate) mod bucket;
pub(crate) mod client;
pub(crate) mod declared;
pub(crate) mod headers;
mod memory;
pub(crate) mod rate;
#[cfg(feature = "redis")]
mod redis;
mod settings;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock};

use ipnet::IpNet;

pub use declared::Throttles;
pub use headers::Pass;
pub use rate::{Period, Rate, RateError};

use bucket::Buckets;

/// What to do with a request when the store (Redis) cannot be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnStoreError {
    /// Admit it (logged, and counted in [`Throttle::store_errors`]): an outage of Redis does not become one of
    /// the API.
    #[default]
    FailOpen,
    /// Refuse it: `503` `throttle_unavailable` with `Retry-After`.
    FailClosed,
}

/// An application's throttling: default rates per scope, where the buckets live, which proxies may name the
/// client, and what a failing store means. Cloning shares it (buckets included).
///
/// ```
/// use viewset_core::throttle::{OnStoreError, Throttle};
/// let throttle = Throttle::new()
///     .anon("60/minute".parse().unwrap())
///     .trusted_proxies(["10.0.0.0/8", "127.0.0.1"]).unwrap()
///     .on_store_error(OnStoreError::FailClosed)
///     .headers_on_every_answer();
/// assert_eq!(throttle.defaults().anon.unwrap().to_string(), "60/minute");
/// ```
#[derive(Debug, Clone)]
pub struct Throttle(pub(crate) Arc<Inner>);

#[derive(Debug, Clone)]
pub(crate) struct Inner {
    pub(crate) defaults: Throttles,
    pub(crate) buckets: Buckets,
    pub(crate) trusted: Vec<IpNet>,
    pub(crate) on_store_error: OnStoreError,
    pub(crate) every_answer: bool,
    pub(crate) store_errors: Arc<AtomicU64>,
    /// What every bucket key starts with (several applications, or tests, sharing one Redis).
    pub(crate) namespace: String,
}

/// The throttle of a [`ServiceState`](crate::ServiceState) that was given none: no defaults, buckets in this
/// process (shared by every such state, so the rates a ViewSet declares hold without configuration).
static PROCESS: LazyLock<Throttle> = LazyLock::new(|| {
    Throttle(Arc::new(Inner {
        defaults: Throttles::NONE,
        buckets: Buckets::Memory(Arc::default()),
        trusted: Vec::new(),
        on_store_error: OnStoreError::FailOpen,
        every_answer: false,
        store_errors: Arc::default(),
        namespace: String::new(),
    }))
});

impl Default for Throttle {
    fn default() -> Self {
        PROCESS.clone()
    }
}

impl Throttle {
    /// No default rate, buckets in this process (new ones, not shared with other `Throttle`s).
    pub fn new() -> Throttle {
        let mut inner = PROCESS.0.as_ref().clone();
        inner.buckets = Buckets::Memory(Arc::default());
        inner.store_errors = Arc::default();
        Throttle(Arc::new(inner))
    }

    fn with(mut self, change: impl FnOnce(&mut Inner)) -> Throttle {
        change(Arc::make_mut(&mut self.0));
        self
    }

    /// The default rate of anonymous callers, by client address, across the API.
    pub fn anon(self, rate: Rate) -> Throttle {
        self.with(|inner| inner.defaults.anon = Some(rate))
    }

    /// The default rate of signed-in callers who are not staff, by user id, across the API.
    pub fn user(self, rate: Rate) -> Throttle {
        self.with(|inner| inner.defaults.user = Some(rate))
    }

    /// The default rate of staff callers (none unless set).
    pub fn staff(self, rate: Rate) -> Throttle {
        self.with(|inner| inner.defaults.staff = Some(rate))
    }

    /// Buckets in Redis at `url` (`redis://127.0.0.1:6379`), shared by every instance using it; each check is one
    /// script on Redis's clock, given at most 500 ms. No connection is made until the first check.
    ///
    /// ```
    /// let throttle = viewset_core::throttle::Throttle::new().redis("redis://127.0.0.1:6379").unwrap();
    /// assert!(viewset_core::throttle::Throttle::new().redis("http://nope").is_err());
    /// # let _ = throttle;
    /// ```
    #[cfg(feature = "redis")]
    pub fn redis(self, url: &str) -> Result<Throttle, String> {
        let buckets = redis::RedisBuckets::new(url, std::time::Duration::from_millis(500))?;
        Ok(self.with(|inner| inner.buckets = Buckets::Redis(Arc::new(buckets))))
    }

    /// A prefix for this application's bucket keys, so that several applications sharing one Redis count apart.
    ///
    /// ```
    /// let throttle = viewset_core::throttle::Throttle::new().namespace("shop");
    /// # let _ = throttle;
    /// ```
    pub fn namespace(self, name: &str) -> Throttle {
        let prefix = format!("{name}:");
        self.with(|inner| inner.namespace = prefix)
    }

    /// The proxies (addresses or CIDR networks) whose `Forwarded` / `X-Forwarded-For` name the client. From any
    /// other peer those headers are ignored.
    pub fn trusted_proxies<I, S>(self, proxies: I) -> Result<Throttle, String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let parsed: Result<Vec<IpNet>, String> = proxies
            .into_iter()
            .map(|text| {
                let text = text.as_ref().trim();
                text.parse::<IpNet>()
                    .or_else(|_| text.parse::<std::net::IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("`{text}` is not an IP address or network (e.g. 10.0.0.0/8)"))
            })
            .collect();
        let parsed = parsed?;
        Ok(self.with(|inner| inner.trusted = parsed))
    }

    /// What a request meets when the store cannot be asked (default [`OnStoreError::FailOpen`]).
    pub fn on_store_error(self, choice: OnStoreError) -> Throttle {
        self.with(|inner| inner.on_store_error = choice)
    }

    /// `RateLimit` and `RateLimit-Policy` on every answer of a throttled route, not only on `429`.
    pub fn headers_on_every_answer(self) -> Throttle {
        self.with(|inner| inner.every_answer = true)
    }

    /// The application's default rates.
    pub fn defaults(&self) -> &Throttles {
        &self.0.defaults
    }

    /// How many checks the store could not answer since start-up (admitted under `FailOpen`, refused under
    /// `FailClosed`).
    pub fn store_errors(&self) -> u64 {
        self.0.store_errors.load(Ordering::Relaxed)
    }
}
