//! Stream correctness (issue 14, item 11): a malformed `Last-Event-ID` gets `event: reset` like an unknown one,
//! and a PostgreSQL listener that lost its connection tells every subscriber `reset` (`reconnected`) once back.

use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, Statement};
use viewset_core::ServiceState;
use viewset_core::events::EventBus;
use viewset_tests::every_database::require_postgres;
use viewset_tests::harness::{Backend, QUIET, SseClient, TestApp, TestDb, WAIT};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog => malformed_last_event_ids_get_a_reset);

async fn malformed_last_event_ids_get_a_reset(app: TestApp) {
    // A real id first, to build ids of this instance.
    let mut stream = SseClient::connect(&app, "/api/posts/stream", None, None).await;
    stream.next(WAIT).await.expect("ready");
    app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 1}"#)).await;
    let id = stream.next(WAIT).await.expect("an event").id.expect("id");
    let (instance, _) = id.rsplit_once('-').expect("<instance>-<seq>");
    drop(stream);

    let future = format!("{instance}-999999");
    let not_a_number = format!("{instance}-x");
    for (last_event_id, reason) in [
        ("garbage", "malformed_last_event_id"),
        ("-", "malformed_last_event_id"),
        (not_a_number.as_str(), "malformed_last_event_id"),
        ("0123456789ab-99999999999999999999999", "malformed_last_event_id"),
        (future.as_str(), "resume_unavailable"),
    ] {
        let mut resumed = SseClient::connect(&app, "/api/posts/stream", None, Some(last_event_id)).await;
        assert_eq!(resumed.next(WAIT).await.expect("ready").event, "ready");
        let reset = resumed.next(WAIT).await.unwrap_or_else(|| panic!("no reset for {last_event_id:?}"));
        assert_eq!((reset.event.as_str(), reset.data["reason"].as_str()), ("reset", Some(reason)), "{last_event_id}");
        // The stream goes on from now.
        app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 2}"#)).await;
        let next = resumed.next(WAIT).await.expect("events after the reset");
        assert_eq!((next.event.as_str(), next.data["pk"].as_i64()), ("updated", Some(1)));
    }
    // A valid id of this instance still resumes without a reset.
    let mut resumed = SseClient::connect(&app, "/api/posts/stream", None, Some(&id)).await;
    resumed.next(WAIT).await.expect("ready");
    let replayed = resumed.next(WAIT).await.expect("replayed");
    assert_eq!(replayed.event, "updated");
}

/// Kills this test database's listening connection (the one whose last statement was `LISTEN`) from another
/// connection; returns how many were terminated. Other databases on the shared server are never touched.
async fn terminate_listeners(db: &sea_orm::DatabaseConnection) -> i64 {
    let sql = "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity \
               WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN %'";
    let row = db
        .query_one_raw(Statement::from_string(db.get_database_backend(), sql))
        .await
        .expect("terminate the listener")
        .expect("a row");
    row.try_get::<i64>("", "n").expect("count")
}

/// Events notified while the listener is disconnected are lost: once it is back every subscriber is told
/// `reset` with `"reason": "reconnected"`, delivery goes on, and ids from before the gap no longer resume.
#[tokio::test]
async fn a_reconnected_listener_tells_subscribers_to_reset() {
    if require_postgres().is_none() {
        return;
    }
    let (database, db) = TestDb::seeded_blog(Backend::Postgres).await;
    let bus = EventBus::postgres(db.get_postgres_connection_pool().clone()).await.expect("listen");
    let app = TestApp::serve(blog::app_with_state(ServiceState::with_events(db.clone(), bus)), db, database).await;
    let mut stream = SseClient::connect(&app, "/api/posts/stream", None, None).await;
    stream.next(WAIT).await.expect("ready");
    let (status, _) = app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 1}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let before = stream.next(WAIT).await.expect("an event before the outage").id.expect("id");

    assert_eq!(terminate_listeners(&app.db).await, 1, "exactly this database's listener");
    let reset = stream.next(WAIT).await.expect("a reset after the listener reconnected");
    assert_eq!((reset.event.as_str(), reset.data["reason"].as_str()), ("reset", Some("reconnected")));

    let (status, _) = app.send(Method::PATCH, "/api/posts/2", BOB, Some(r#"{"views": 5}"#)).await;
    assert_eq!(status, StatusCode::OK);
    let after = stream.next(WAIT).await.expect("delivery goes on after the reconnect");
    assert_eq!((after.event.as_str(), after.data["pk"].as_i64()), ("updated", Some(2)));
    assert_eq!(stream.next(QUIET).await, None, "one reset, no repeats");

    let mut resumed = SseClient::connect(&app, "/api/posts/stream", None, Some(&before)).await;
    resumed.next(WAIT).await.expect("ready");
    let reset = resumed.next(WAIT).await.expect("no resume across the gap");
    assert_eq!((reset.event.as_str(), reset.data["reason"].as_str()), ("reset", Some("resume_unavailable")));
}
