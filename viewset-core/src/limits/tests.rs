//! The request id and the body limit of `Limits::apply`, through a real router.

use std::sync::Arc;

use axum::routing::get as get_route;
use tower::Service;

use super::*;

async fn send(app: &mut Router, request: Request) -> Response {
    app.call(request).await.expect("a router never fails")
}

fn get(uri: &str) -> Request {
    Request::builder().uri(uri).body(Body::empty()).expect("request")
}

fn id(response: &Response) -> String {
    response.headers()[REQUEST_ID].to_str().expect("an ASCII request id").to_string()
}

#[tokio::test]
async fn every_answer_carries_a_request_id() {
    let own = || async { ([("x-request-id", "set-by-handler")], "own") };
    let routes =
        Router::new().route("/ok", axum::routing::get(|| async { "ok" })).route("/own", axum::routing::get(own));
    let mut app = Limits { max_uri_bytes: 64, ..Limits::default() }.apply(routes);
    let (first, second) = (send(&mut app, get("/ok")).await, send(&mut app, get("/ok")).await);
    assert_eq!(first.status(), StatusCode::OK);
    assert_ne!(id(&first), id(&second));
    for generated in [id(&first), id(&second)] {
        let uuid = uuid::Uuid::parse_str(&generated).expect("a UUID");
        assert_eq!((uuid.get_version_num(), generated.len()), (4, 36), "{generated}");
    }
    // Refused before the router runs: still answered with an id, the client's own when it sent one.
    let long = format!("/ok?{}", "a".repeat(100));
    let refused = send(&mut app, get(&long)).await;
    assert_eq!((refused.status(), id(&refused).len()), (StatusCode::URI_TOO_LONG, 36));
    let mut mine = get(&long);
    mine.headers_mut().insert(REQUEST_ID, header::HeaderValue::from_static("trace-7"));
    assert_eq!(id(&send(&mut app, mine).await), "trace-7");
    // A handler that sets the header itself keeps its value.
    assert_eq!(id(&send(&mut app, get("/own")).await), "set-by-handler");
}

/// A body of `len` bytes sent in one chunk without a `Content-Length`, or announcing its length when `announce`.
fn post(len: usize, announce: bool) -> Request {
    let chunk = Ok::<_, Infallible>(axum::body::Bytes::from(vec![b'x'; len]));
    let mut request = Request::builder().method("POST").uri("/read");
    if announce {
        request = request.header(header::CONTENT_LENGTH, len);
    }
    request.body(Body::from_stream(futures_util::stream::iter([chunk]))).expect("request")
}

#[tokio::test]
async fn bodies_are_cut_at_the_limit_announced_or_not() {
    let read = || async { "read" };
    let reads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = reads.clone();
    let handler = move |body: axum::body::Bytes| async move {
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        body.len().to_string()
    };
    let routes = || Router::new().route("/read", axum::routing::post(handler.clone())).route("/", get_route(read));
    let mut app = Limits { max_body_bytes: 1000, ..Limits::default() }.apply(routes());
    for announce in [true, false] {
        let refused = send(&mut app, post(1001, announce)).await;
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE, "announced: {announce}");
        let body = axum::body::to_bytes(refused.into_body(), 4096).await.expect("body");
        let body: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(body["limit"], "max_body_bytes", "{body}");
        assert_eq!(send(&mut app, post(1000, announce)).await.status(), StatusCode::OK);
    }
    // Refused on its announced length before the handler ran; the unannounced one was read up to the limit.
    assert_eq!(reads.load(std::sync::atomic::Ordering::SeqCst), 2);
    // A body whose size is known (not a stream) is held to the limit by that size, announced or not.
    for (len, status) in [(1001, StatusCode::PAYLOAD_TOO_LARGE), (1000, StatusCode::OK), (0, StatusCode::OK)] {
        let request = Request::builder().method("POST").uri("/read").body(Body::from(vec![b'x'; len]));
        assert_eq!(send(&mut app, request.expect("request")).await.status(), status, "{len} bytes");
    }
    // Above axum's own 2 MB, the extractors are told the higher limit.
    let mut app = Limits { max_body_bytes: 3 << 20, ..Limits::default() }.apply(routes());
    let big = send(&mut app, post(5 << 20 >> 1, false)).await;
    assert_eq!(big.status(), StatusCode::OK);
    assert_eq!(&axum::body::to_bytes(big.into_body(), 64).await.expect("body")[..], b"2621440");
}

#[tokio::test]
async fn requests_run_the_same_with_and_without_a_subscriber() {
    let failing = || async { (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(serde_json::json!({"code": "boom"}))) };
    let routes =
        || Router::new().route("/fail", axum::routing::get(failing)).route("/ok", get_route(|| async { "ok" }));
    for subscribed in [false, true] {
        // A subscriber that wants the `request` span (the thread's default while the guard lives).
        let _guard =
            subscribed.then(|| tracing::subscriber::set_default(tracing_subscriber::fmt().with_test_writer().finish()));
        assert_eq!(tracing::info_span!("request").is_disabled(), !subscribed);
        let mut app = Limits::default().apply(routes());
        assert_eq!(send(&mut app, get("/ok")).await.status(), StatusCode::OK);
        let failed = send(&mut app, get("/fail")).await;
        let id = id(&failed);
        let body = axum::body::to_bytes(failed.into_body(), 4096).await.expect("body");
        let body: serde_json::Value = serde_json::from_slice(&body).expect("JSON");
        assert_eq!(
            (body["code"].as_str(), body["request_id"].as_str()),
            (Some("boom"), Some(id.as_str())),
            "{subscribed}"
        );
    }
}

#[tokio::test]
async fn handlers_see_the_uri_limit_in_force() {
    let read = || async { format!("{:?}", UriLimit::current().map(|limit| limit.0)) };
    let mut app = Limits { max_uri_bytes: 300, ..Limits::default() }.apply(Router::new().route("/", get_route(read)));
    let body = axum::body::to_bytes(send(&mut app, get("/")).await.into_body(), 64).await.expect("body");
    assert_eq!(&body[..], b"Some(300)");
    // Outside a request under the layer there is none.
    assert!(UriLimit::current().is_none());
}
