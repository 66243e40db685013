use std::sync::{Arc, Mutex};

use opentelemetry::trace::TracerProvider as _;
use tracing_subscriber::layer::SubscriberExt;

use super::*;

/// A processor keeping the spans it is given.
#[derive(Debug, Default, Clone)]
struct Kept(Arc<Mutex<Vec<SpanData>>>);

impl SpanProcessor for Kept {
    fn on_start(&self, _: &mut opentelemetry_sdk::trace::Span, _: &opentelemetry::Context) {}
    fn on_end(&self, span: SpanData) {
        self.0.lock().unwrap().push(span);
    }
    fn force_flush(&self) -> opentelemetry_sdk::error::OTelSdkResult {
        Ok(())
    }
    fn shutdown_with_timeout(&self, _: Duration) -> opentelemetry_sdk::error::OTelSdkResult {
        Ok(())
    }
}

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

#[test]
fn the_incoming_traceparent_is_the_request_span_parent_and_the_error_body_names_its_trace() {
    let kept = Kept::default();
    let provider = SdkTracerProvider::builder().with_span_processor(Redact(kept.clone())).build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
    let subscriber =
        tracing_subscriber::registry().with(layer.with_filter(tracing_subscriber::filter::filter_fn(exported)));
    let mut headers = HeaderMap::new();
    headers.insert("traceparent", format!("00-{TRACE_ID}-00f067aa0ba902b7-01").parse().unwrap());
    tracing::subscriber::with_default(subscriber, || {
        let span = tracing::info_span!("request");
        adopt(&span, &headers, false);
        span.in_scope(|| {
            let body = stamped(serde_json::json!({"code": "not_found"}));
            assert_eq!(body["trace_id"], TRACE_ID);
            let statement = tracing::debug_span!(target: "viewset::sql", "statement", sql = "SELECT 'secret'");
            statement.in_scope(|| assert_eq!(current_trace_id().as_deref(), Some(TRACE_ID)));
            // A DEBUG span of another target is not exported.
            drop(tracing::debug_span!("chatter").entered());
        });
    });
    let spans = kept.0.lock().unwrap();
    let names: Vec<_> = spans.iter().map(|span| span.name.to_string()).collect();
    assert_eq!(names, ["statement", "request"]);
    let request = &spans[1];
    assert_eq!(request.span_context.trace_id().to_string(), TRACE_ID);
    assert_eq!(request.parent_span_id.to_string(), "00f067aa0ba902b7");
    assert_eq!(spans[0].parent_span_id, request.span_context.span_id());
    assert!(!spans[0].attributes.iter().any(|kv| kv.key.as_str() == "sql"), "{:?}", spans[0].attributes);
}

#[test]
fn without_an_export_layer_there_is_no_trace_id() {
    let subscriber = tracing_subscriber::registry();
    tracing::subscriber::with_default(subscriber, || {
        let span = tracing::info_span!("request");
        let mut headers = HeaderMap::new();
        headers.insert("traceparent", format!("00-{TRACE_ID}-00f067aa0ba902b7-01").parse().unwrap());
        adopt(&span, &headers, false);
        span.in_scope(|| assert!(stamped(serde_json::json!({})).get("trace_id").is_none()));
    });
    assert!(current_trace_id().is_none());
}
