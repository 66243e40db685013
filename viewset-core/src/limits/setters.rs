//! The setters of [`Limits`]: it is `#[non_exhaustive]` (a limit added later is no breaking change), so an
//! application starts from [`Limits::default`] and sets what it changes.

use std::time::Duration;

use super::Limits;

impl Limits {
    /// These limits with [`Limits::max_body_bytes`] set (413 above it).
    ///
    /// ```
    /// use std::time::Duration;
    /// use viewset_core::limits::Limits;
    /// let limits = Limits::default()
    ///     .with_max_body_bytes(64 * 1024)
    ///     .with_max_uri_bytes(4 * 1024)
    ///     .with_max_header_bytes(8 * 1024)
    ///     .with_request_timeout(Duration::from_secs(10))
    ///     .with_max_in_flight(Some(256))
    ///     .with_max_streams(None);
    /// assert_eq!((limits.max_body_bytes, limits.max_in_flight, limits.max_streams), (65_536, Some(256), None));
    /// ```
    pub const fn with_max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// These limits with [`Limits::max_uri_bytes`] set (414 above it).
    pub const fn with_max_uri_bytes(mut self, bytes: usize) -> Self {
        self.max_uri_bytes = bytes;
        self
    }

    /// These limits with [`Limits::max_header_bytes`] set (431 above it).
    pub const fn with_max_header_bytes(mut self, bytes: usize) -> Self {
        self.max_header_bytes = bytes;
        self
    }

    /// These limits with [`Limits::request_timeout`] set (503 `request_timeout` past it).
    pub const fn with_request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// These limits with [`Limits::max_in_flight`] set (`None`: no bound).
    pub const fn with_max_in_flight(mut self, requests: Option<usize>) -> Self {
        self.max_in_flight = requests;
        self
    }

    /// These limits with [`Limits::max_streams`] set (`None`: no bound).
    pub const fn with_max_streams(mut self, streams: Option<usize>) -> Self {
        self.max_streams = streams;
        self
    }
}
