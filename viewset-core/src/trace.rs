//! OpenTelemetry traces (feature `otel`): the spans the framework opens, exported over OTLP by a
//! [`tracing_subscriber`] layer the application installs beside its log layer.
//!
//! [`Traces::from_env`] reads the standard variables: `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL such as
//! `http://collector:4318`, `/v1/traces` appended; or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, used as it is),
//! `OTEL_SERVICE_NAME` (and `OTEL_RESOURCE_ATTRIBUTES`), `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`,
//! and the batch processor's `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`.
//! `OTEL_SDK_DISABLED=true` turns it off. The protocol is OTLP over HTTP with protobuf bodies
//! (`OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`, the default); with the `otel-grpc` feature also `grpc`.
//!
//! What is exported: the `request` span of every request (its `request_id` and, once a generated route serves it,
//! its `operation` id), its parent read from the request's W3C `traceparent` and `tracestate`; inside it
//! `admission` (permissions and throttles), one `statement` span per SQL statement (`db.system`, `db.statement`
//! with placeholders where the values were, `db.operation`, `rows`) and `publish` (the events of a write); and the
//! application's own spans at `INFO` and above. Events become span events from `WARN` up. The `sql` field of
//! the statement spans, which has the values written in for the logs, is removed before export.

use std::time::Duration;

use axum::http::HeaderMap;
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry::trace::{TraceContextExt, TracerProvider as _};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{BatchSpanProcessor, SdkTracerProvider, SpanData, SpanProcessor};
use tracing::{Level, Metadata, Subscriber};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::registry::LookupSpan;

/// The base URL of the OTLP receiver: when neither it nor [`TRACES_ENDPOINT_VAR`] is set, [`Traces::from_env`]
/// exports nothing.
///
/// ```
/// assert_eq!(viewset_core::trace::ENDPOINT_VAR, "OTEL_EXPORTER_OTLP_ENDPOINT");
/// ```
pub const ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// The full URL traces are posted to (`…/v1/traces`), instead of [`ENDPOINT_VAR`]'s base.
///
/// ```
/// assert_eq!(viewset_core::trace::TRACES_ENDPOINT_VAR, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
/// ```
pub const TRACES_ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";

/// Span fields never exported: `sql`, a statement with its values written in (`db.statement` has it without).
const REDACTED: &[&str] = &["sql"];

/// The framework's `DEBUG` spans that are exported: statements, admission, event publication.
const FRAMEWORK_SPANS: &[&str] = &["viewset::sql", "viewset::admission", "viewset::events"];

/// Why traces could not be set up or flushed.
///
/// ```
/// let err = viewset_core::trace::TraceError::from("no exporter");
/// assert_eq!(err.to_string(), "OpenTelemetry traces: no exporter");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError(String);

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OpenTelemetry traces: {}", self.0)
    }
}

impl std::error::Error for TraceError {}

impl From<&str> for TraceError {
    fn from(text: &str) -> Self {
        TraceError(text.to_string())
    }
}

/// The OTLP transport a [`Traces`] exports over.
///
/// ```
/// assert_eq!(viewset_core::trace::Protocol::from_env(), Ok(viewset_core::trace::Protocol::HttpProtobuf));
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// OTLP/HTTP with protobuf bodies (`http/protobuf`), posted to `…/v1/traces`.
    #[default]
    HttpProtobuf,
    /// OTLP/gRPC (`grpc`, feature `otel-grpc`); its exporter needs a Tokio runtime when it is built.
    #[cfg(feature = "otel-grpc")]
    Grpc,
}

impl Protocol {
    /// The protocol `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or `OTEL_EXPORTER_OTLP_PROTOCOL` names (unset:
    /// `http/protobuf`); one this build cannot speak is an error that names the choices.
    ///
    /// ```
    /// # use viewset_core::trace::Protocol;
    /// assert_eq!(Protocol::from_env().unwrap(), Protocol::HttpProtobuf); // neither variable set here
    /// ```
    pub fn from_env() -> Result<Protocol, TraceError> {
        let named = ["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"]
            .into_iter()
            .find_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()));
        match named.as_deref() {
            None | Some("http/protobuf") => Ok(Protocol::HttpProtobuf),
            #[cfg(feature = "otel-grpc")]
            Some("grpc") => Ok(Protocol::Grpc),
            Some(other) => Err(TraceError(format!(
                "OTEL_EXPORTER_OTLP_PROTOCOL={other}: expected `http/protobuf`{}",
                if cfg!(feature = "otel-grpc") { " or `grpc`" } else { " (`grpc` needs the `otel-grpc` feature)" }
            ))),
        }
    }
}

/// The exporter of the process's traces: [`Traces::layer`] sends the spans to it, [`Traces::shutdown`] sends what
/// is still queued before the process ends. Clones share one exporter.
///
/// ```no_run
/// use tracing_subscriber::layer::SubscriberExt;
/// use tracing_subscriber::util::SubscriberInitExt;
///
/// let traces = viewset_core::trace::Traces::from_env().expect("a valid OTLP configuration");
/// tracing_subscriber::registry()
///     .with(traces.as_ref().map(|traces| traces.layer()))
///     .with(tracing_subscriber::fmt::layer())
///     .init();
/// // … serve until the shutdown signal, then:
/// if let Some(traces) = traces {
///     traces.shutdown().expect("the last spans sent");
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Traces {
    provider: SdkTracerProvider,
}

impl Traces {
    /// The exporter the `OTEL_*` variables describe (see the [module](self)), or `None` when no endpoint is set
    /// or `OTEL_SDK_DISABLED` is `true`.
    ///
    /// ```
    /// // Neither OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set here.
    /// assert!(viewset_core::trace::Traces::from_env().unwrap().is_none());
    /// ```
    pub fn from_env() -> Result<Option<Traces>, TraceError> {
        let set = |name: &str| std::env::var(name).is_ok_and(|value| !value.trim().is_empty());
        let disabled = std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"));
        if disabled || !(set(ENDPOINT_VAR) || set(TRACES_ENDPOINT_VAR)) {
            return Ok(None);
        }
        Traces::new(Protocol::from_env()?).map(Some)
    }

    /// An exporter over `protocol`, its endpoint, headers and batching from the `OTEL_*` variables (their
    /// defaults when unset: `http://localhost:4318/v1/traces` over HTTP, `http://localhost:4317` over gRPC).
    ///
    /// ```no_run
    /// let traces = viewset_core::trace::Traces::new(viewset_core::trace::Protocol::HttpProtobuf).unwrap();
    /// # let _ = traces;
    /// ```
    pub fn new(protocol: Protocol) -> Result<Traces, TraceError> {
        let exporter = opentelemetry_otlp::SpanExporter::builder();
        let exporter = match protocol {
            Protocol::HttpProtobuf => exporter.with_http().build(),
            #[cfg(feature = "otel-grpc")]
            Protocol::Grpc => exporter.with_tonic().build(),
        };
        let exporter = exporter.map_err(|err| TraceError(err.to_string()))?;
        let batch = BatchSpanProcessor::builder(exporter).build();
        let provider = SdkTracerProvider::builder()
            .with_span_processor(Redact(batch))
            .with_resource(opentelemetry_sdk::Resource::builder().build())
            .build();
        Ok(Traces { provider })
    }

    /// The layer that turns the process's spans into OpenTelemetry spans sent to this exporter, with its own
    /// filter: spans at `INFO` and above, the framework's `DEBUG` spans (`viewset::sql`, `viewset::admission`,
    /// `viewset::events`), events at `WARN` and above; whatever filter the log layer beside it has.
    ///
    /// ```no_run
    /// use tracing_subscriber::layer::SubscriberExt;
    /// let traces = viewset_core::trace::Traces::new(viewset_core::trace::Protocol::HttpProtobuf).unwrap();
    /// let subscriber = tracing_subscriber::registry().with(traces.layer());
    /// # let _ = subscriber;
    /// ```
    pub fn layer<S>(&self) -> impl Layer<S> + Send + Sync + 'static
    where
        S: Subscriber + for<'span> LookupSpan<'span> + Send + Sync + 'static,
    {
        let tracer = self.provider.tracer("viewset");
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_threads(false)
            .with_filter(tracing_subscriber::filter::filter_fn(exported))
    }

    /// Sends the spans ended so far and waits until the receiver answered.
    ///
    /// ```no_run
    /// let traces = viewset_core::trace::Traces::new(viewset_core::trace::Protocol::HttpProtobuf).unwrap();
    /// traces.flush().expect("sent");
    /// ```
    pub fn flush(&self) -> Result<(), TraceError> {
        self.provider.force_flush().map_err(|err| TraceError(err.to_string()))
    }

    /// Sends what is still queued (waiting at most 5 seconds) and stops the exporter: what ends afterwards is not
    /// exported. Blocks the calling thread; call it once serving has ended.
    ///
    /// ```no_run
    /// let traces = viewset_core::trace::Traces::new(viewset_core::trace::Protocol::HttpProtobuf).unwrap();
    /// traces.shutdown().expect("the last spans sent");
    /// ```
    pub fn shutdown(&self) -> Result<(), TraceError> {
        self.provider.shutdown_with_timeout(Duration::from_secs(5)).map_err(|err| TraceError(err.to_string()))
    }
}

/// Whether the export layer takes a span or an event of `metadata` (see [`Traces::layer`]).
fn exported(metadata: &Metadata<'_>) -> bool {
    let level = *metadata.level();
    if metadata.is_event() {
        return level <= Level::WARN;
    }
    level <= Level::INFO || (level == Level::DEBUG && FRAMEWORK_SPANS.contains(&metadata.target()))
}

/// A processor (the batch processor), given each ended span without its [`REDACTED`] attributes.
#[derive(Debug)]
struct Redact<P>(P);

impl<P: SpanProcessor> SpanProcessor for Redact<P> {
    fn on_start(&self, span: &mut opentelemetry_sdk::trace::Span, cx: &opentelemetry::Context) {
        self.0.on_start(span, cx);
    }

    fn on_end(&self, mut span: SpanData) {
        span.attributes.retain(|kv| !REDACTED.contains(&kv.key.as_str()));
        self.0.on_end(span);
    }

    fn force_flush(&self) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> opentelemetry_sdk::error::OTelSdkResult {
        self.0.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.0.set_resource(resource);
    }
}

/// The headers of a request as the propagator reads them.
struct Headers<'a>(&'a HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|name| name.as_str()).collect()
    }
}

/// Makes the trace the request's W3C `traceparent` (and `tracestate`) names the parent of `span` (nothing when it
/// has none or no export layer sees the span); answers the span's trace id when `want_id` (the access log's line).
pub(crate) fn adopt(span: &tracing::Span, headers: &HeaderMap, want_id: bool) -> Option<String> {
    if headers.contains_key("traceparent") {
        let parent = TraceContextPropagator::new().extract(&Headers(headers));
        let _ = span.set_parent(parent);
    }
    want_id.then(|| trace_id_of(span)).flatten()
}

/// The id of the trace the current span belongs to, when an export layer records it.
pub(crate) fn current_trace_id() -> Option<String> {
    trace_id_of(&tracing::Span::current())
}

/// The id of the trace `span` belongs to, when an export layer records it.
pub(crate) fn trace_id_of(span: &tracing::Span) -> Option<String> {
    if span.is_none() {
        return None;
    }
    let context = span.context();
    let span_context = context.span().span_context().clone();
    span_context.is_valid().then(|| span_context.trace_id().to_string())
}

/// `body` (an error's JSON object) with `"trace_id"` when the request is traced.
pub(crate) fn stamped(mut body: serde_json::Value) -> serde_json::Value {
    if let (Some(object), Some(trace_id)) = (body.as_object_mut(), current_trace_id()) {
        object.insert("trace_id".into(), serde_json::Value::String(trace_id));
    }
    body
}

#[cfg(test)]
mod tests;
