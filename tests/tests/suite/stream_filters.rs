//! The stream reads the list's query (issue #72, goal 1): its filters are checked at connect as the list checks
//! them, an event is delivered only when its record matches at delivery time, a record an update moves out of the
//! filter arrives as `deleted` with `"reason": "out_of_filter"`, one moved in arrives as `updated`, and a parameter
//! the stream does not read is a 422.

use reqwest::{Method, StatusCode};
use serde_json::json;
use viewset_tests::harness::{Backend, QUIET, SseClient, TestApp, TestDb, WAIT};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

on_every_database!(blog_with_metrics =>
    filtered_stream_delivers_matching_records_only,
);

on_every_database!(TestApp::blog =>
    bad_stream_parameters_are_refused_before_ready,
    related_filter_and_search_on_the_stream,
);

/// The blog with its metrics at `/metrics`: its bus counts the events its subscribers were not sent.
async fn blog_with_metrics(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let state = viewset_core::ServiceState::new(db.clone());
    let router = blog::app_with_state(state.clone()).merge(viewset_core::metrics::router(&state));
    TestApp::serve(router, db, database).await
}

async fn post(app: &TestApp, title: &str, published: bool) -> serde_json::Value {
    let body = json!({"title": title, "body": "b", "author_id": 1, "published": published}).to_string();
    let (status, created) = app.send(Method::POST, "/api/posts/", BOB, Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["id"].clone()
}

async fn patch(app: &TestApp, id: &serde_json::Value, body: &str) {
    let (status, answer) = app.send(Method::PATCH, &format!("/api/posts/{id}"), BOB, Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
}

async fn filtered_stream_delivers_matching_records_only(app: TestApp) {
    let mut stream = SseClient::connect(&app, "/api/posts/stream?published=true&views__lt=1000", None, None).await;
    assert_eq!(stream.next(WAIT).await.expect("ready").event, "ready");
    let draft = post(&app, "Draft", false).await;
    let live = post(&app, "Live", true).await;
    // The draft's `created` is never sent: the first frame is the published post's.
    let frame = stream.next(WAIT).await.expect("created");
    assert_eq!((frame.event.as_str(), &frame.data["pk"]), ("created", &live));
    // Out of the filter (still in the caller's scope): told once, as deleted with its reason.
    patch(&app, &live, r#"{"views": 5000}"#).await;
    let frame = stream.next(WAIT).await.expect("left the filter");
    assert_eq!((frame.event.as_str(), &frame.data["pk"]), ("deleted", &live));
    assert_eq!(frame.data["reason"], "out_of_filter");
    patch(&app, &live, r#"{"views": 6000}"#).await;
    assert_eq!(stream.next(QUIET).await, None, "an update outside the filter is not sent");
    // Into the filter: the draft published arrives as `updated`.
    patch(&app, &draft, r#"{"published": true}"#).await;
    let frame = stream.next(WAIT).await.expect("entered the filter");
    assert_eq!((frame.event.as_str(), &frame.data["pk"]), ("updated", &draft));
    assert_eq!(frame.data["record"]["published"], true);
    // A delete reaches the subscriber that was shown the record; one outside the filter does not.
    app.send(Method::DELETE, &format!("/api/posts/{live}"), BOB, None).await;
    app.send(Method::DELETE, &format!("/api/posts/{draft}"), BOB, None).await;
    let frame = stream.next(WAIT).await.expect("deleted");
    assert_eq!((frame.event.as_str(), &frame.data["pk"]), ("deleted", &draft));
    assert!(frame.data.get("reason").is_none(), "{:?}", frame.data);
    assert_eq!(stream.next(QUIET).await, None);
    // What was not sent is counted, once per event: the draft's `created`, the update at 6000, the delete of a
    // record the subscriber was told had left.
    let text = app.client().get(format!("{}/metrics", app.base)).send().await.expect("scrape");
    let text = text.text().await.expect("the metrics");
    assert!(text.contains("viewset_events_skipped_total{reason=\"hidden\"} 3\n"), "{text}");
    assert!(text.contains("viewset_events_skipped_total{reason=\"check_failed\"} 0\n"), "{text}");
    assert!(text.contains("viewset_events_resets_total{reason=\"lagged\"} 0\n"), "{text}");
}

async fn bad_stream_parameters_are_refused_before_ready(app: TestApp) {
    for (query, loc, kind) in [
        ("published=true&nosuch=1", "nosuch", "unknown_parameter"),
        ("veiws__gte=1", "veiws__gte", "unknown_filter"),
        ("category__name=Tools", "category__name", "unknown_filter"),
        ("published=maybe", "published", "value_error"),
        ("views__gt=many", "views__gt", "value_error"),
        ("limit=5", "limit", "unknown_parameter"),
        ("expand=author", "expand", "unknown_parameter"),
        ("published=true&published=false", "published", "duplicate_parameter"),
    ] {
        let (status, body) = app.get(&format!("/api/posts/stream?{query}")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["query", loc]), "{query}: {body}");
        assert_eq!(body["detail"][0]["type"], kind, "{query}: {body}");
    }
}

async fn related_filter_and_search_on_the_stream(app: TestApp) {
    // Author 2 is Alan Turing (authors are listed by signed-in callers only); `search` is the list's substring search.
    let mut by_author = SseClient::connect(&app, "/api/posts/stream?author__name=Alan%20Turing", BOB, None).await;
    let mut searched = SseClient::connect(&app, "/api/posts/stream?search=zebra", None, None).await;
    by_author.next(WAIT).await.expect("ready");
    searched.next(WAIT).await.expect("ready");
    post(&app, "By Ada about zebras", true).await;
    let body = json!({"title": "By Alan", "body": "b", "author_id": 2, "published": true}).to_string();
    let (_, alan) = app.send(Method::POST, "/api/posts/", BOB, Some(&body)).await;
    let frame = by_author.next(WAIT).await.expect("Alan's post");
    assert_eq!(frame.data["pk"], alan["id"]);
    assert_eq!(by_author.next(QUIET).await, None);
    let frame = searched.next(WAIT).await.expect("the zebra post");
    assert_eq!(frame.data["record"]["title"], "By Ada about zebras");
    assert_eq!(searched.next(QUIET).await, None);
}
