//! One event, many views (issue 47): stream subscribers of one ViewSet in different views (other principals, other
//! request headers) each receive exactly what their own view allows, while the views' visibility queries for the
//! event are asked together (`EXISTS` per view in one statement). On SQLite, PostgreSQL and MariaDB: a row policy
//! that hides drafts from anonymous callers, a tenant's row policy, a `get_queryset` narrowed to the owner, and a
//! field only staff may see.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use viewset_tests::harness::{Backend, QUIET, SseClient, Statements, TestApp, TestDb, WAIT, recording};
use viewset_tests::identities::blog::{ALICE, BOB};
use viewset_tests::identities::tenants as tenant;
use viewset_tests::on_every_database;

on_every_database!(recorded_posts => drafts_reach_only_the_views_that_may_see_them);
on_every_database!(recorded_tenants => tenant_and_owner_scopes_hold_for_every_view);
on_every_database!(TestApp::seeded_query_app => hidden_fields_follow_each_view);

/// Views per scenario; each has two streams, so a view's members share its outcome as well.
const VIEWS: usize = 12;

/// The test fixtures' app (`/published/posts`: drafts are hidden from anonymous callers) over a connection that
/// records every statement.
async fn recorded_posts(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let (recorded, statements) = recording(&db);
    (TestApp::serve(viewset_tests::fixtures::paged::app(recorded), db, database).await, statements)
}

/// The tenants example over a connection that records every statement.
async fn recorded_tenants(backend: Backend) -> (TestApp, Statements) {
    let database = TestDb::create(backend).await;
    let db = tenants::connect_and_migrate(&database.url).await.expect("migrate the tenants example");
    let (recorded, statements) = recording(&db);
    (TestApp::serve(tenants::app(recorded), db, database).await, statements)
}

/// Whether a visibility read of `table` was batched (a statement with an `EXISTS` column per view).
fn batched(statements: &Statements, table: &str) -> bool {
    let statements = statements.lock().unwrap();
    statements.iter().any(|s| s.starts_with("SELECT") && s.contains(table) && s.contains("__admits_0"))
}

/// A stream of `path` as `token`, in the view `view` (its own `x-fanout-client` header), past its `ready` frame.
async fn subscribe(app: &TestApp, path: &str, token: Option<&str>, view: usize) -> SseClient {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("x-fanout-client", view.to_string().parse().expect("header"));
    let client = reqwest::Client::builder().default_headers(headers).build().expect("client");
    let mut stream = SseClient::connect_to(&client, &format!("{}{path}", app.base), token, None).await;
    assert_eq!(stream.next(WAIT).await.expect("ready").event, "ready");
    stream
}

/// Two streams per view of `path`, view i as `tokens[i % tokens.len()]`.
async fn streams<'t>(app: &TestApp, path: &str, tokens: &[Option<&'t str>]) -> Vec<(Option<&'t str>, SseClient)> {
    let mut streams = Vec::new();
    for view in 0..VIEWS {
        let token = tokens[view % tokens.len()];
        for _ in 0..2 {
            streams.push((token, subscribe(app, path, token, view).await));
        }
    }
    streams
}

/// The frame each stream whose token `sees` must receive next: `(event, pk, record[field])`; the others must
/// receive nothing (checked at the end by [`nothing_more`]).
async fn expect_frames(
    streams: &mut [(Option<&str>, SseClient)],
    sees: impl Fn(Option<&str>) -> bool,
    expected: (&str, &Value, Value),
    field: &str,
) {
    for (token, stream) in streams.iter_mut().filter(|(token, _)| sees(*token)) {
        let frame = stream.next(WAIT).await.unwrap_or_else(|| panic!("no {} frame for {token:?}", expected.0));
        let got = (frame.event.as_str(), &frame.data["pk"], frame.data["record"][field].clone());
        assert_eq!(got, expected, "{token:?}: {frame:?}");
    }
}

/// Listens [`QUIET`] once, then checks that no stream received a frame meanwhile (frames already sent are read at
/// once).
async fn nothing_more(streams: &mut [(Option<&str>, SseClient)]) {
    tokio::time::sleep(QUIET).await;
    for (token, stream) in streams.iter_mut() {
        assert_eq!(stream.next(Duration::from_millis(50)).await, None, "{token:?}");
    }
}

/// Anonymous views, bob's and alice's (staff): a draft reaches bob's and alice's views only; once published it
/// reaches every view (anonymous ones as `updated`); a published post reaches every view; a deleted draft only
/// bob's and alice's. The views' reads of each event are batched: fewer reads of `posts` than views.
async fn drafts_reach_only_the_views_that_may_see_them((app, statements): (TestApp, Statements)) {
    let path = "/published/posts/stream";
    let mut streams = streams(&app, path, &[None, BOB, ALICE]).await;
    statements.lock().unwrap().clear();
    let signed_in = |token: Option<&str>| token.is_some();
    let body = r#"{"title": "Draft", "body": "b", "author_id": 1, "published": false}"#;
    let (status, draft) = app.send(Method::POST, "/published/posts/", BOB, Some(body)).await;
    assert_eq!(status, 201, "{draft}");
    expect_frames(&mut streams, signed_in, ("created", &draft["id"], json!(false)), "published").await;
    let draft_path = format!("/published/posts/{}", draft["id"]);
    app.send(Method::PATCH, &draft_path, BOB, Some(r#"{"published": true}"#)).await;
    expect_frames(&mut streams, |_| true, ("updated", &draft["id"], json!(true)), "published").await;
    let body = r#"{"title": "Out", "body": "b", "author_id": 1, "published": true}"#;
    let (_, published) = app.send(Method::POST, "/published/posts/", BOB, Some(body)).await;
    expect_frames(&mut streams, |_| true, ("created", &published["id"], json!("Out")), "title").await;
    // A deleted draft: its last state is checked per view too.
    let body = r#"{"title": "Gone", "body": "b", "author_id": 1, "published": false}"#;
    let (_, gone) = app.send(Method::POST, "/published/posts/", BOB, Some(body)).await;
    expect_frames(&mut streams, signed_in, ("created", &gone["id"], json!("Gone")), "title").await;
    app.send(Method::DELETE, &format!("/published/posts/{}", gone["id"]), BOB, None).await;
    expect_frames(&mut streams, signed_in, ("deleted", &gone["id"], Value::Null), "title").await;
    nothing_more(&mut streams).await;
    assert!(batched(&statements, "posts"));
    let statements = statements.lock().unwrap();
    let read = |s: &&String| (s.starts_with("SELECT") || s.starts_with("WITH")) && s.contains("posts");
    let reads: Vec<_> = statements.iter().filter(read).collect();
    // The delete's batch runs over the row's last state (a one-row common table expression).
    assert!(reads.iter().any(|s| s.starts_with("WITH") && s.contains("__admits_0")), "{reads:#?}");
    // Five events, each read in fewer statements than there are views (one, unless a batch was cut short).
    assert!(reads.len() < 5 * VIEWS, "{reads:#?}");
}

/// Projects (a tenant's row policy, a custom scope) and notes (`get_queryset` narrowed to the owner): views of
/// acme's alice and bob and of globex's carol. A project reaches its tenant's views only, a note its owner's only;
/// both ViewSets' reads are batched.
async fn tenant_and_owner_scopes_hold_for_every_view((app, statements): (TestApp, Statements)) {
    let people = [tenant::ALICE, tenant::BOB, tenant::CAROL];
    let acme = |token: Option<&str>| token.is_some_and(|t| t.starts_with("acme"));
    let mut projects = streams(&app, "/api/projects/stream", &people).await;
    let (_, rocket) = app.send(Method::POST, "/api/projects/", tenant::ALICE, Some(r#"{"name": "Rocket"}"#)).await;
    expect_frames(&mut projects, acme, ("created", &rocket["id"], json!("acme")), "tenant_id").await;
    let (_, anvil) = app.send(Method::POST, "/api/projects/", tenant::CAROL, Some(r#"{"name": "Anvil"}"#)).await;
    expect_frames(&mut projects, |t| !acme(t), ("created", &anvil["id"], json!("globex")), "tenant_id").await;
    let rocket_path = format!("/api/projects/{}", rocket["id"]);
    app.send(Method::PATCH, &rocket_path, tenant::ALICE, Some(r#"{"archived": true}"#)).await;
    expect_frames(&mut projects, acme, ("updated", &rocket["id"], json!(true)), "archived").await;
    nothing_more(&mut projects).await;
    let mut notes = streams(&app, "/api/notes/stream", &people).await;
    let (status, note) = app.send(Method::POST, "/api/notes/", tenant::BOB, Some(r#"{"text": "mine"}"#)).await;
    assert_eq!(status, 201, "{note}");
    let bob = |token: Option<&str>| token == tenant::BOB;
    expect_frames(&mut notes, bob, ("created", &note["id"], json!("bob")), "owner").await;
    nothing_more(&mut notes).await;
    // Both scopes (a row policy; a `get_queryset` of its own) are asked in batches.
    assert!(batched(&statements, "projects") && batched(&statements, "notes"));
}

/// Authors (`email` for staff only): every view receives the author, alice's views (staff) with the email.
async fn hidden_fields_follow_each_view(app: TestApp) {
    let mut authors = streams(&app, "/stream/authors/stream", &[BOB, ALICE]).await;
    let body = r#"{"name": "Grace", "email": "g@example.com"}"#;
    let (status, grace) = app.send(Method::POST, "/stream/authors/", ALICE, Some(body)).await;
    assert_eq!(status, 201, "{grace}");
    let staff = |token: Option<&str>| token == ALICE;
    expect_frames(&mut authors, staff, ("created", &grace["id"], json!("g@example.com")), "email").await;
    expect_frames(&mut authors, |t| !staff(t), ("created", &grace["id"], Value::Null), "email").await;
    nothing_more(&mut authors).await;
}
