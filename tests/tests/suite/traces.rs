//! OpenTelemetry traces (issue 73, feature `otel`): the blog, as a child process with `OTEL_EXPORTER_OTLP_ENDPOINT`
//! set, posts its spans over OTLP/HTTP to a receiver here, which decodes them with the official protobuf
//! definitions (`opentelemetry-proto`). A PATCH sent with a W3C `traceparent` is one tree in that trace: the
//! `request` span (the incoming span its parent, its operation id) → `admission` → the `SELECT` of the row →
//! its `UPDATE` → the event's `publish`, the statements with `db.system` and their text without the values; no
//! attribute holds the bearer token; a 4xx body names the trace.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{TraceService, TraceServiceServer};
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::{Value, json};
use viewset_tests::harness::Backend;
use viewset_tests::identities::blog::ALICE;

use viewset_tests::on_every_database;

use crate::support::observed::{Blog, blog_on};

/// The trace and the caller's span the PATCH arrives in.
const TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN: &str = "b7ad6b7169203331";
/// The trace the refused request arrives in.
const REFUSED_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
/// The title the PATCH writes: a value, so never in a statement's text.
const TITLE: &str = "traced-title-5e0c";

/// The spans the receiver decoded, each with its resource's attributes.
type Received = Arc<Mutex<Vec<(Span, Vec<KeyValue>)>>>;

/// An OTLP/HTTP receiver on a free port: `POST /v1/traces` with a protobuf `ExportTraceServiceRequest`.
async fn receiver() -> (String, Received) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let url = format!("http://{}", listener.local_addr().expect("its address"));
    let received = Received::default();
    let app = axum::Router::new().route("/v1/traces", axum::routing::post(accept)).with_state(received.clone());
    tokio::spawn(axum::serve(listener, app).into_future());
    (url, received)
}

async fn accept(State(received): State<Received>, headers: HeaderMap, body: Bytes) -> (StatusCode, HeaderMap, Vec<u8>) {
    let protobuf = headers.get(header::CONTENT_TYPE).is_some_and(|v| v == "application/x-protobuf");
    let Ok(request) = ExportTraceServiceRequest::decode(body).map_err(|e| eprintln!("undecodable OTLP: {e}")) else {
        return (StatusCode::BAD_REQUEST, HeaderMap::new(), Vec::new());
    };
    if !protobuf {
        return (StatusCode::UNSUPPORTED_MEDIA_TYPE, HeaderMap::new(), Vec::new());
    }
    keep(&received, request);
    let mut answer = HeaderMap::new();
    answer.insert(header::CONTENT_TYPE, "application/x-protobuf".parse().unwrap());
    (StatusCode::OK, answer, ExportTraceServiceResponse::default().encode_to_vec())
}

/// Keeps the spans of `request`, each with its resource's attributes.
fn keep(received: &Received, request: ExportTraceServiceRequest) {
    let mut kept = received.lock().unwrap();
    for resource_spans in request.resource_spans {
        let resource = resource_spans.resource.map(|r| r.attributes).unwrap_or_default();
        for span in resource_spans.scope_spans.into_iter().flat_map(|scope| scope.spans) {
            kept.push((span, resource.clone()));
        }
    }
}

/// An OTLP/gRPC receiver on a free port: the collector's `TraceService`, as the official definitions declare it.
async fn grpc_receiver() -> (String, Received) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let url = format!("http://{}", listener.local_addr().expect("its address"));
    let received = Received::default();
    let service = TraceServiceServer::new(Collector(received.clone()));
    let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
    tokio::spawn(tonic::transport::Server::builder().add_service(service).serve_with_incoming(incoming));
    (url, received)
}

struct Collector(Received);

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        keep(&self.0, request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn value(span: &Span, key: &str) -> Option<any_value::Value> {
    span.attributes.iter().find(|kv| kv.key == key).and_then(|kv| kv.value.clone()?.value)
}

fn text(span: &Span, key: &str) -> Option<String> {
    match value(span, key)? {
        any_value::Value::StringValue(text) => Some(text),
        any_value::Value::IntValue(number) => Some(number.to_string()),
        other => Some(format!("{other:?}")),
    }
}

/// The spans of `trace` received within 10 seconds, once a span of each name in `until` has arrived.
async fn trace_of(received: &Received, trace: &str, until: &[&str]) -> Vec<(Span, Vec<KeyValue>)> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let spans: Vec<_> =
            received.lock().unwrap().iter().filter(|(s, _)| hex(&s.trace_id) == trace).cloned().collect();
        if until.iter().all(|name| spans.iter().any(|(span, _)| span.name == *name)) {
            return spans;
        }
        if Instant::now() > deadline {
            let all = received.lock().unwrap();
            let names: Vec<_> = all.iter().map(|(s, _)| format!("{} ({})", s.name, hex(&s.trace_id))).collect();
            panic!(
                "the OTLP receiver got no {until:?} span of trace {trace} within 10 s; it got {} spans: {names:?}",
                all.len()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

on_every_database!(traced_blog => a_patch_is_one_trace_from_request_to_event);

/// The blog exporting its traces to a receiver of this test, and the `db.system` its statements name.
struct Traced {
    blog: Blog,
    received: Received,
    system: &'static str,
}

async fn traced_blog(backend: Backend) -> Traced {
    let (endpoint, received) = receiver().await;
    let env = [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
        ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ("OTEL_SERVICE_NAME", "blog-traced"),
        // The access log's lines name their trace.
        ("SERVICE_LOG_FORMAT", "json"),
        ("RUST_LOG", "warn,viewset::access=info"),
    ];
    let blog = blog_on(backend, &env, Stdio::piped()).await;
    let system = match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgresql",
        Backend::Mysql => "mysql",
    };
    Traced { blog, received, system }
}

async fn a_patch_is_one_trace_from_request_to_event(traced: Traced) {
    let Traced { blog, received, system } = traced;
    let client = reqwest::Client::new();
    let token = ALICE.expect("Alice's token");
    let post = format!("{}/api/posts/1", blog.base);
    // With `If-Match` the record is read (and its tag checked) before it is written: the SELECT, then the UPDATE.
    let current = client.get(&post).bearer_auth(token).send().await.expect("retrieve");
    assert_eq!(current.status(), StatusCode::OK);
    let etag = current.headers()[header::ETAG].clone();
    let patched = client
        .patch(&post)
        .bearer_auth(token)
        .header("if-match", etag)
        .header("traceparent", format!("00-{TRACE}-{CALLER_SPAN}-01"))
        .header("tracestate", "vendor=opaque")
        .json(&json!({"title": TITLE}))
        .send()
        .await
        .expect("patch");
    assert_eq!(patched.status(), StatusCode::OK, "{:?}", patched.text().await);
    // A refused request's body names its trace beside its code.
    let refused = client
        .get(format!("{}/api/posts/987654", blog.base))
        .header("traceparent", format!("00-{REFUSED_TRACE}-{CALLER_SPAN}-01"))
        .send()
        .await
        .expect("a missing post");
    assert_eq!(refused.status(), StatusCode::NOT_FOUND);
    let body: Value = refused.json().await.expect("a JSON error");

    let spans = trace_of(&received, TRACE, &["request", "publish"]).await;
    assert_eq!((&body["code"], &body["trace_id"]), (&json!("not_found"), &json!(REFUSED_TRACE)), "{body}");
    let by_id: HashMap<String, &Span> = spans.iter().map(|(s, _)| (hex(&s.span_id), s)).collect();
    let tree: Vec<_> = spans.iter().map(|(s, _)| (s.name.clone(), hex(&s.span_id), hex(&s.parent_span_id))).collect();
    let request = spans.iter().map(|(s, _)| s).find(|s| s.name == "request").expect("the request span");
    let request_id = hex(&request.span_id);
    assert_eq!(hex(&request.parent_span_id), CALLER_SPAN, "the caller's span is the request's parent");
    assert_eq!(text(request, "operation").as_deref(), Some("posts_update"), "{:?}", request.attributes);
    // Every other span of the trace descends from the request span.
    let descends = |span: &Span| {
        let mut parent = hex(&span.parent_span_id);
        while let Some(up) = by_id.get(&parent) {
            if parent == request_id {
                return true;
            }
            parent = hex(&up.parent_span_id);
        }
        parent == request_id
    };
    for (span, _) in spans.iter().filter(|(s, _)| s.span_id != request.span_id) {
        assert!(descends(span), "{} is outside the request's tree: {tree:?}", span.name);
    }
    let mut children: Vec<&Span> =
        spans.iter().map(|(s, _)| s).filter(|s| hex(&s.parent_span_id) == request_id).collect();
    children.sort_by_key(|s| s.start_time_unix_nano);
    let position = |what: &dyn Fn(&Span) -> bool, after: usize| {
        (after..children.len()).find(|&i| what(children[i])).unwrap_or_else(|| panic!("not in {tree:?}"))
    };
    let admission = position(&|s| s.name == "admission", 0);
    assert_eq!(text(children[admission], "operation").as_deref(), Some("update"));
    let reads_post = |s: &Span| s.name == "SELECT" && text(s, "db.statement").is_some_and(|sql| sql.contains("posts"));
    let select = position(&reads_post, admission + 1);
    let update = position(&|s| s.name == "UPDATE", select + 1);
    let publish = position(&|s| s.name == "publish", update + 1);
    for (before, after) in [(admission, select), (select, update), (update, publish)] {
        let (before, after) = (children[before], children[after]);
        assert!(before.end_time_unix_nano <= after.start_time_unix_nano, "{} overlaps {}", before.name, after.name);
    }
    assert_eq!(text(children[publish], "events").as_deref(), Some("1"), "{:?}", children[publish].attributes);
    for statement in [children[select], children[update]] {
        let sql = text(statement, "db.statement").expect("db.statement");
        assert_eq!(text(statement, "db.system").as_deref(), Some(system), "{sql}");
        assert!(sql.contains('?') || sql.contains("$1"), "the values are placeholders: {sql}");
        assert!(text(statement, "sql").is_none(), "the statement with its values is not exported");
    }
    if system == "postgresql" {
        assert!(text(children[select], "db.statement").unwrap().contains("FOR UPDATE"));
    }
    assert!(text(children[update], "rows").is_some(), "{:?}", children[update].attributes);
    // Nothing exported holds the token or the value written.
    for (span, resource) in &spans {
        let exported = format!("{span:?} {resource:?}");
        assert!(!exported.contains(token) && !exported.contains(TITLE), "{} exports a secret: {exported}", span.name);
    }
    let service = AnyValue { value: Some(any_value::Value::StringValue("blog-traced".into())) };
    assert!(spans[0].1.iter().any(|kv| kv.key == "service.name" && kv.value.as_ref() == Some(&service)));
    // Each request's access-log line names its trace: the caller's, or a new one.
    let output = blog.output();
    let lines: Vec<Value> = output.lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
    let access = |operation: &str| -> Vec<&Value> {
        lines.iter().filter(|l| l["target"] == "viewset::access" && l["operation"] == operation).collect()
    };
    let (updates, retrieves) = (access("posts_update"), access("posts_retrieve"));
    assert_eq!(updates.len(), 1, "{output}");
    assert_eq!(updates[0]["trace_id"], TRACE, "{output}");
    let traces: Vec<&str> = retrieves.iter().map(|l| l["trace_id"].as_str().unwrap_or("")).collect();
    assert_eq!(traces.len(), 2, "{output}");
    assert!(traces.contains(&REFUSED_TRACE), "{output}");
    let fresh = traces.iter().find(|t| **t != REFUSED_TRACE).expect("the first retrieve's trace");
    assert!(fresh.len() == 32 && fresh.bytes().all(|b| b.is_ascii_hexdigit()) && *fresh != TRACE, "{fresh}");
}

/// `OTEL_EXPORTER_OTLP_PROTOCOL=grpc` (the blog built with `otel-grpc`): the same request span, with its caller's
/// parent and its statements, arrives at a gRPC receiver.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spans_are_exported_over_grpc_too() {
    let (endpoint, received) = grpc_receiver().await;
    let env = [("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()), ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")];
    let env = [&env[..], &[("OTEL_BSP_SCHEDULE_DELAY", "100")]].concat();
    let blog = blog_on(Backend::Sqlite, &env, Stdio::null()).await;
    let listed = reqwest::Client::new()
        .get(format!("{}/api/posts/?limit=1", blog.base))
        .header("traceparent", format!("00-{TRACE}-{CALLER_SPAN}-01"))
        .send()
        .await
        .expect("a list");
    assert_eq!(listed.status(), StatusCode::OK);
    let spans = trace_of(&received, TRACE, &["request", "SELECT"]).await;
    let request = spans.iter().map(|(s, _)| s).find(|s| s.name == "request").expect("the request span");
    assert_eq!(hex(&request.parent_span_id), CALLER_SPAN);
    assert_eq!(text(request, "operation").as_deref(), Some("posts_list"));
    let select = spans.iter().map(|(s, _)| s).find(|s| s.name == "SELECT").expect("a statement");
    assert_eq!(text(select, "db.system").as_deref(), Some("sqlite"));
    assert_eq!(select.parent_span_id, request.span_id, "the list's statement is the request's child");
}
