//! `GET <prefix>/stream` with real SSE clients, on SQLite and PostgreSQL: frame format and order, filtering per
//! principal and tenant, hidden fields, `Last-Event-ID` resume, the disabled route, and delivery between two
//! processes on PostgreSQL.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;
use viewset_core::ServiceState;
use viewset_core::events::EventBus;
use viewset_tests::every_database::require_postgres;
use viewset_tests::harness::{Backend, QUIET, SseClient, Statements, TestApp, TestDb, WAIT, recording};
use viewset_tests::identities::blog::{ALICE, BOB};
use viewset_tests::identities::tenants as tenant;
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog =>
    frames_in_order_with_ready_first,
    resume_with_last_event_id,
    disabled_stream_route_is_absent,
);

on_every_database!(TestApp::tenants =>
    subscribers_see_only_their_tenant,
    project_updates_reach_the_tenant,
    subscribers_with_one_identity_share_a_view_and_others_keep_theirs,
);

on_every_database!(TestApp::seeded_query_app => update_out_of_scope_arrives_as_deleted);

on_every_database!(recorded_tenants => equal_streams_share_one_visibility_read);

/// The tenants example over a connection that records every statement.
async fn recorded_tenants(backend: Backend) -> (TestApp, Statements) {
    let database = TestDb::create(backend).await;
    let db = tenants::connect_and_migrate(&database.url).await.expect("migrate the tenants example");
    let (recorded, statements) = recording(&db);
    (TestApp::serve(tenants::app(recorded), db, database).await, statements)
}

async fn frames_in_order_with_ready_first(app: TestApp) {
    let mut stream = SseClient::connect(&app, "/api/posts/stream", None, None).await;
    let ready = stream.next(WAIT).await.expect("ready");
    assert_eq!((ready.event.as_str(), ready.data.clone()), ("ready", json!({"model": "Post", "table": "posts"})));
    let (_, created) =
        app.send(Method::POST, "/api/posts/", BOB, Some(r#"{"title": "Live", "body": "b", "author_id": 1}"#)).await;
    let id = created["id"].clone();
    let mut seqs = Vec::new();
    // The record is loaded when the event is delivered, so each write waits for its frame.
    for (expected, views) in [("created", Some(0)), ("updated", Some(5)), ("deleted", None)] {
        match expected {
            "updated" => drop(app.send(Method::PATCH, &format!("/api/posts/{id}"), BOB, Some(r#"{"views": 5}"#)).await),
            "deleted" => drop(app.send(Method::DELETE, &format!("/api/posts/{id}"), BOB, None).await),
            _ => {}
        }
        let frame = stream.next(WAIT).await.unwrap_or_else(|| panic!("no {expected} frame"));
        assert_eq!(frame.event, expected);
        assert_eq!(
            (frame.data["action"].as_str(), frame.data["model"].as_str(), frame.data["table"].as_str()),
            (Some(expected), Some("Post"), Some("posts"))
        );
        assert_eq!(frame.data["pk"], id);
        assert_eq!(frame.data["record"]["views"].as_i64(), views, "{frame:?}");
        assert_eq!(frame.data.get("record").is_none(), expected == "deleted");
        let frame_id = frame.id.expect("id");
        seqs.push(frame_id.rsplit_once('-').unwrap().1.parse::<u64>().unwrap());
    }
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "monotonic ids: {seqs:?}");
    // A rejected write publishes nothing.
    app.send(Method::POST, "/api/posts/", BOB, Some(r#"{"title": "x"}"#)).await;
    assert_eq!(stream.next(QUIET).await, None);
}

async fn resume_with_last_event_id(app: TestApp) {
    let mut stream = SseClient::connect(&app, "/api/posts/stream", None, None).await;
    stream.next(WAIT).await.expect("ready");
    app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"views": 1}"#)).await;
    let first = stream.next(WAIT).await.expect("first");
    drop(stream);
    app.send(Method::PATCH, "/api/posts/1", BOB, Some(r#"{"title": "Renamed"}"#)).await;
    app.send(Method::PATCH, "/api/posts/2", BOB, Some(r#"{"views": 3}"#)).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut resumed = SseClient::connect(&app, "/api/posts/stream", None, first.id.as_deref()).await;
    assert_eq!(resumed.next(WAIT).await.expect("ready").event, "ready");
    let missed: Vec<_> = [resumed.next(WAIT).await.expect("missed 1"), resumed.next(WAIT).await.expect("missed 2")]
        .iter()
        .map(|f| (f.event.clone(), f.data["pk"].as_i64().unwrap()))
        .collect();
    assert_eq!(missed, vec![("updated".to_string(), 1), ("updated".to_string(), 2)]);
    let mut foreign = SseClient::connect(&app, "/api/posts/stream", None, Some("0123456789ab-1")).await;
    assert_eq!(foreign.next(WAIT).await.expect("ready").event, "ready");
    let reset = foreign.next(WAIT).await.expect("reset");
    assert_eq!((reset.event.as_str(), reset.data["reason"].as_str()), ("reset", Some("resume_unavailable")));
}

async fn disabled_stream_route_is_absent(app: TestApp) {
    // AuthorViewSet has `stream_enabled = false`: `/authors/stream` is just a detail path with a bad id.
    let (status, body) = app.send(Method::GET, "/authors/stream", BOB, None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_id")));
    assert!(!blog::api().routes().iter().any(|r| r.path == "/authors/stream"));
    assert!(blog::api().routes().iter().any(|r| r.path == "/api/posts/stream"));
}

async fn subscribers_see_only_their_tenant(app: TestApp) {
    let (status, _) = app.send(Method::GET, "/api/projects/stream", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "permissions run at connect (anonymous behind a bearer layer: 401)");
    let (status, _) = app.send(Method::GET, "/api/projects/stream", tenant::DAVE, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a principal without a tenant is denied at connect");
    let mut bob = SseClient::connect(&app, "/api/projects/stream", tenant::BOB, None).await;
    let mut carol = SseClient::connect(&app, "/api/projects/stream", tenant::CAROL, None).await;
    bob.next(WAIT).await.expect("ready");
    carol.next(WAIT).await.expect("ready");
    let (_, anvil) = app.send(Method::POST, "/api/projects/", tenant::CAROL, Some(r#"{"name": "Anvil"}"#)).await;
    assert_eq!(carol.next(WAIT).await.expect("carol created").data["pk"], anvil["id"]);
    let (_, rocket) = app.send(Method::POST, "/api/projects/", tenant::ALICE, Some(r#"{"name": "Rocket"}"#)).await;
    app.send(Method::DELETE, &format!("/api/projects/{}", anvil["id"]), tenant::CAROL, None).await;
    let seen = bob.next(WAIT).await.expect("bob's event");
    assert_eq!(
        (seen.event.as_str(), seen.data["pk"].clone(), seen.data["record"]["tenant_id"].clone()),
        ("created", rocket["id"].clone(), json!("acme"))
    );
    assert_eq!(bob.next(QUIET).await, None, "bob sees nothing of globex, deletes included");
    let deleted = carol.next(WAIT).await.expect("carol deleted");
    assert_eq!((deleted.event.as_str(), deleted.data["pk"].clone()), ("deleted", anvil["id"].clone()));
    assert_eq!(carol.next(QUIET).await, None, "carol sees nothing of acme");
}

async fn project_updates_reach_the_tenant(app: TestApp) {
    let mut alice = SseClient::connect(&app, "/api/projects/stream", tenant::ALICE, None).await;
    alice.next(WAIT).await.expect("ready");
    let (_, project) = app.send(Method::POST, "/api/projects/", tenant::BOB, Some(r#"{"name": "Rocket"}"#)).await;
    assert_eq!(alice.next(WAIT).await.expect("created").data["pk"], project["id"]);
    app.send(Method::PATCH, &format!("/api/projects/{}", project["id"]), tenant::BOB, Some(r#"{"archived": true}"#))
        .await;
    let updated = alice.next(WAIT).await.expect("updated");
    assert_eq!((updated.event.as_str(), updated.data["record"]["archived"].clone()), ("updated", json!(true)));
}

/// Subscribers with equal requests share each event's visibility check; the sharing must never cross identities:
/// two streams of one acme user, one of another acme user and one of globex, over creates, an update and a delete
/// in both tenants, each receive exactly their tenant's frames.
async fn subscribers_with_one_identity_share_a_view_and_others_keep_theirs(app: TestApp) {
    let mut streams = Vec::new();
    for token in [tenant::BOB, tenant::BOB, tenant::ALICE, tenant::CAROL] {
        let mut stream = SseClient::connect(&app, "/api/projects/stream", token, None).await;
        stream.next(WAIT).await.expect("ready");
        streams.push((token, stream));
    }
    // A frame's record is loaded when it is delivered, so each write waits for the frames it causes before the
    // next write changes the record; what is left is drained at the end (a frame of the other tenant would show).
    let acme = |token: Option<&str>| token.is_some_and(|t| t.starts_with("acme"));
    let mut frames: Vec<Vec<_>> = vec![Vec::new(); streams.len()];
    let (_, rocket) = app.send(Method::POST, "/api/projects/", tenant::ALICE, Some(r#"{"name": "Rocket"}"#)).await;
    read_frames(&mut streams, &mut frames, acme).await;
    let (_, anvil) = app.send(Method::POST, "/api/projects/", tenant::CAROL, Some(r#"{"name": "Anvil"}"#)).await;
    read_frames(&mut streams, &mut frames, |t| !acme(t)).await;
    let rocket_path = format!("/api/projects/{}", rocket["id"]);
    app.send(Method::PATCH, &rocket_path, tenant::ALICE, Some(r#"{"archived": true}"#)).await;
    read_frames(&mut streams, &mut frames, acme).await;
    app.send(Method::DELETE, &format!("/api/projects/{}", anvil["id"]), tenant::CAROL, None).await;
    read_frames(&mut streams, &mut frames, |t| !acme(t)).await;
    for ((token, stream), frames) in streams.iter_mut().zip(&mut frames) {
        while let Some(frame) = stream.next(QUIET).await {
            frames.push((frame.event.clone(), frame.data["pk"].clone(), frame.data["record"]["archived"].clone()));
        }
        let expected = if token.is_some_and(|t| t.starts_with("acme")) {
            vec![
                ("created".to_string(), rocket["id"].clone(), json!(false)),
                ("updated".to_string(), rocket["id"].clone(), json!(true)),
            ]
        } else {
            vec![
                ("created".to_string(), anvil["id"].clone(), json!(false)),
                ("deleted".to_string(), anvil["id"].clone(), serde_json::Value::Null),
            ]
        };
        assert_eq!(*frames, expected, "{token:?}");
    }
}

/// One frame (waiting up to [`WAIT`]) from each stream whose token `expects` one.
async fn read_frames(
    streams: &mut [(Option<&str>, SseClient)],
    frames: &mut [Vec<(String, serde_json::Value, serde_json::Value)>],
    expects: impl Fn(Option<&str>) -> bool,
) {
    for ((token, stream), frames) in streams.iter_mut().zip(frames.iter_mut()) {
        if expects(*token) {
            let frame = stream.next(WAIT).await.unwrap_or_else(|| panic!("no frame for {token:?}"));
            frames.push((frame.event.clone(), frame.data["pk"].clone(), frame.data["record"]["archived"].clone()));
        }
    }
}

/// Streams with equal requests share each event's visibility read, though every request carries its own
/// `x-request-id` (the limits layer sets one): three streams of one user, one read of the created project.
async fn equal_streams_share_one_visibility_read((app, statements): (TestApp, Statements)) {
    let mut streams = Vec::new();
    for _ in 0..3 {
        let mut stream = SseClient::connect(&app, "/api/projects/stream", tenant::BOB, None).await;
        stream.next(WAIT).await.expect("ready");
        streams.push(stream);
    }
    statements.lock().unwrap().clear();
    let (status, project) =
        app.send(Method::POST, "/api/projects/", tenant::ALICE, Some(r#"{"name": "Rocket"}"#)).await;
    assert_eq!(status, StatusCode::CREATED, "{project}");
    for stream in &mut streams {
        assert_eq!(stream.next(WAIT).await.expect("created").data["pk"], project["id"]);
    }
    // The create itself is one `INSERT … RETURNING` (MariaDB too); every `SELECT` of a project is a visibility read.
    let statements = statements.lock().unwrap();
    let reads = statements.iter().filter(|s| s.starts_with("SELECT") && s.contains("projects")).count();
    assert_eq!(reads, 1, "{statements:#?}");
}

/// A post unpublished by an update leaves the anonymous view: an anonymous subscriber that saw it is told it is
/// gone (`deleted`, reason `out_of_scope`); one that never saw it hears nothing.
async fn update_out_of_scope_arrives_as_deleted(app: TestApp) {
    let mut anonymous = SseClient::connect(&app, "/published/posts/stream", None, None).await;
    anonymous.next(WAIT).await.expect("ready");
    app.send(Method::PATCH, "/published/posts/1", BOB, Some(r#"{"views": 1}"#)).await;
    assert_eq!(anonymous.next(WAIT).await.expect("updated").event, "updated");
    app.send(Method::PATCH, "/published/posts/1", BOB, Some(r#"{"published": false}"#)).await;
    let gone = anonymous.next(WAIT).await.expect("left the view");
    assert_eq!(
        (gone.event.as_str(), gone.data["reason"].as_str(), gone.data.get("record")),
        ("deleted", Some("out_of_scope"), None)
    );
    app.send(Method::PATCH, "/published/posts/3", BOB, Some(r#"{"views": 9}"#)).await;
    assert_eq!(anonymous.next(QUIET).await, None, "a draft it never saw stays invisible");
}

#[tokio::test]
async fn hidden_fields_are_absent_from_events() {
    let app = TestApp::query_app(Backend::Sqlite).await;
    let mut bob = SseClient::connect(&app, "/stream/authors/stream", BOB, None).await;
    let mut alice = SseClient::connect(&app, "/stream/authors/stream", ALICE, None).await;
    bob.next(WAIT).await.expect("ready");
    alice.next(WAIT).await.expect("ready");
    let (status, _) =
        app.send(Method::POST, "/stream/authors/", ALICE, Some(r#"{"name": "Grace", "email": "g@example.com"}"#)).await;
    assert_eq!(status, StatusCode::CREATED);
    let for_bob = bob.next(WAIT).await.expect("bob");
    assert_eq!(for_bob.data["record"], json!({"id": 1, "name": "Grace"}));
    let for_alice = alice.next(WAIT).await.expect("alice");
    assert_eq!(for_alice.data["record"]["email"], "g@example.com");
}

/// Two processes' worth of app (own pools, own event buses and listeners) on one PostgreSQL database: a write on
/// A reaches a subscriber of B.
#[tokio::test]
async fn postgres_write_on_one_instance_reaches_subscribers_of_another() {
    if require_postgres().is_none() {
        return;
    }
    let (database, db_a) = TestDb::seeded_blog(Backend::Postgres).await;
    let db_b = blog::connect_and_migrate(&database.url).await.expect("connect b");
    let bus_a = EventBus::postgres(db_a.get_postgres_connection_pool().clone()).await.expect("listen a");
    let bus_b = EventBus::postgres(db_b.get_postgres_connection_pool().clone()).await.expect("listen b");
    assert_ne!(bus_a.instance(), bus_b.instance());
    let a = TestApp::serve(blog::app_with_state(ServiceState::with_events(db_a.clone(), bus_a)), db_a, database).await;
    let scratch = TestDb::create(Backend::Sqlite).await;
    let b = TestApp::serve(blog::app_with_state(ServiceState::with_events(db_b.clone(), bus_b)), db_b, scratch).await;
    let mut on_b = SseClient::connect(&b, "/api/posts/stream", None, None).await;
    on_b.next(WAIT).await.expect("ready");
    let (status, created) =
        a.send(Method::POST, "/api/posts/", BOB, Some(r#"{"title": "From A", "body": "b", "author_id": 1}"#)).await;
    assert_eq!(status, StatusCode::CREATED);
    let frame = on_b.next(WAIT).await.expect("event on instance B");
    assert_eq!((frame.event.as_str(), frame.data["pk"].clone()), ("created", created["id"].clone()));
    assert_eq!(frame.data["record"]["title"], "From A", "B loaded the record itself");
    assert!(frame.id.is_some());
}

/// A subscriber that falls far behind is told `reset` (reason `lagged`) and keeps receiving afterwards; publishing
/// never waits for it.
#[tokio::test]
async fn a_lagging_subscriber_is_told_to_reset() {
    let (database, db) = TestDb::seeded_blog(Backend::Sqlite).await;
    let state = ServiceState::new(db.clone());
    let bus = state.events.clone();
    let app = TestApp::serve(blog::app_with_state(state), db, database).await;
    let mut slow = SseClient::connect(&app, "/api/posts/stream", None, None).await;
    slow.next(WAIT).await.expect("ready");
    for _ in 0..20_000 {
        bus.publish(viewset_core::events::ChangeEvent {
            table: "posts".into(),
            action: viewset_core::events::Action::Updated,
            pk: json!(1),
            snapshot: None,
        });
    }
    let mut reset = None;
    for _ in 0..25_000 {
        let frame = slow.next(WAIT).await.expect("the stream goes on");
        if frame.event == "reset" {
            reset = Some(frame);
            break;
        }
    }
    let reset = reset.expect("a reset frame");
    assert_eq!(reset.data["reason"], "lagged");
    app.send(Method::PATCH, "/api/posts/2", BOB, Some(r#"{"views": 77}"#)).await;
    let mut after = None;
    for _ in 0..25_000 {
        let frame = slow.next(WAIT).await.expect("events after the reset");
        if frame.data["pk"] == 2 {
            after = Some(frame);
            break;
        }
    }
    assert_eq!(after.expect("the write after the reset").data["record"]["views"], 77);
}
