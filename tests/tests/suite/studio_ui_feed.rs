//! The Runtime Panel's live feed in headless Chromium, on the tenants example (two tenants whose users see
//! different rows): the feed runs as the "Act as" identity and shows exactly the events that identity's own REST
//! stream shows (same ids), switches with the identity, shows a denied stream as denied without retrying it; after
//! a dropped connection it reconnects with `Last-Event-ID` (the missed event arrives once) and shows the server's
//! `reset` when the id no longer resumes; and its event-stream parser (`sse.js`) reads the format as `EventSource`
//! does. Needs `chromium` and `chromedriver` (a failure, not a skip, with `VIEWSET_REQUIRE_BROWSER=1`).

use std::time::{Duration, Instant};

use fantoccini::Client;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_tests::ai_client::tenants_with_studio;
use viewset_tests::harness::{Backend, QUIET, SseClient, TestApp, WAIT};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{CuttableProxy, ui_settings};

use crate::support::browser;

use browser::{act_as, find, js, text};

on_every_database!(tenants_with_ui => feed_runs_as_the_chosen_identity);

async fn tenants_with_ui(backend: Backend) -> TestApp {
    tenants_with_studio(backend, ui_settings()).await
}

/// One event as (kind, ViewSet, id, pk).
type Seen = (String, String, String, String);

/// Signs in to Studio at `base` and opens the Runtime Panel.
async fn sign_in(client: &Client, base: &str) {
    browser::sign_in(client, &format!("{base}/studio/ui")).await;
    browser::open(client, "Runtime Panel", "runtime-panel").await;
}

/// Waits until the feed runs as `token` and each of `states` ([(ViewSet, state)]) holds.
async fn feed_as(client: &Client, token: &str, states: &[(&str, &str)]) {
    find(client, &format!("p[data-feed-identity={}]", json!(token))).await;
    for (viewset, state) in states {
        find(client, &format!("[data-stream={viewset}][data-state={state}]")).await;
    }
}

/// The current feed's events, oldest first.
async fn feed_events(client: &Client) -> Vec<Seen> {
    let script = "return [...document.querySelectorAll('ul[data-feed=current] li[data-event]')].reverse()
        .map(li => [li.dataset.event, li.dataset.viewset, li.dataset.id ?? '', li.dataset.pk]);";
    serde_json::from_value(js(client, script).await).unwrap()
}

/// Waits until the current feed holds `count` events, then a quiet moment more (no further event may come).
async fn settled_feed(client: &Client, count: usize) -> Vec<Seen> {
    let deadline = Instant::now() + WAIT * 3;
    while feed_events(client).await.len() < count && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(QUIET).await;
    feed_events(client).await
}

/// What a REST subscriber of `viewset` received until the stream went quiet (the `ready` frame is read first).
async fn rest_events(stream: &mut SseClient, viewset: &str) -> Vec<Seen> {
    let mut seen = Vec::new();
    while let Some(frame) = stream.next(QUIET).await {
        let pk = frame.data["pk"].to_string();
        seen.push((frame.event, viewset.to_string(), frame.id.unwrap_or_default(), pk));
    }
    seen
}

/// REST streams of projects and notes as `token`, past their `ready` frames.
async fn rest_streams(app: &TestApp, token: &str) -> (SseClient, SseClient) {
    let mut projects = SseClient::connect(app, "/api/projects/stream", Some(token), None).await;
    let mut notes = SseClient::connect(app, "/api/notes/stream", Some(token), None).await;
    assert_eq!(projects.next(WAIT).await.unwrap().event, "ready");
    assert_eq!(notes.next(WAIT).await.unwrap().event, "ready");
    (projects, notes)
}

/// A write over REST as `token`; the answer's JSON (a 2xx is required).
async fn write(app: &TestApp, method: Method, path: &str, token: &str, body: Option<Value>) -> Value {
    let body = body.map(|b| b.to_string());
    let (status, answer) = app.send(method, path, Some(token), body.as_deref()).await;
    assert!(status.is_success(), "{path} as {token}: {status} {answer}");
    answer
}

async fn create(app: &TestApp, path: &str, token: &str, body: Value) -> i64 {
    write(app, Method::POST, path, token, Some(body)).await["id"].as_i64().unwrap()
}

/// Sorted by id, so the browser's and REST's orders compare (two streams interleave differently).
fn by_id(mut events: Vec<Seen>) -> Vec<Seen> {
    events.sort_by(|a, b| (&a.2, &a.1).cmp(&(&b.2, &b.1)));
    events
}

async fn feed_runs_as_the_chosen_identity(app: TestApp) {
    let Some((driver_path, chromium)) = browser::require() else { return };
    let driver = browser::Driver::start(&driver_path).await;
    let client = driver.session(&chromium).await;
    sign_in(&client, &app.base).await;
    let feed = "section[aria-label='Live events']";

    // Anonymous ("Act as" empty): both ViewSets need an identity, so both streams are denied, with the reason.
    assert_eq!(app.client().get(format!("{}/api/projects/stream", app.base)).send().await.unwrap().status(), 401);
    feed_as(&client, "", &[("ProjectViewSet", "denied"), ("NoteViewSet", "denied")]).await;
    text(&client, feed, "As anonymous (no Authorization").await;
    text(&client, "[data-stream=ProjectViewSet]", "401 Authentication credentials were not provided.").await;

    // As acme-bob: his tenant's projects and his own notes, exactly as his REST streams see them.
    act_as(&client, "acme-bob").await;
    feed_as(&client, "acme-bob", &[("ProjectViewSet", "open"), ("NoteViewSet", "open")]).await;
    text(&client, feed, "As acme-bob (the \"Act as\" token, sent as Authorization: Bearer)").await;
    let (mut projects, mut notes) = rest_streams(&app, "acme-bob").await;
    let roadmap = create(&app, "/api/projects/", "acme-bob", json!({"name": "Acme roadmap"})).await;
    let globex = create(&app, "/api/projects/", "globex-carol", json!({"name": "Globex plan"})).await;
    let budget = create(&app, "/api/projects/", "acme-alice", json!({"name": "Acme budget"})).await;
    // A stream checks a record's visibility when it delivers the event; a record deleted before that is gone from
    // the subscriber's view, so its `created` would be skipped. Delete only once the feed has shown it.
    text(&client, feed, "Acme budget").await;
    write(&app, Method::PATCH, &format!("/api/projects/{roadmap}"), "acme-bob", Some(json!({"name": "Roadmap 2"})))
        .await;
    write(&app, Method::DELETE, &format!("/api/projects/{budget}"), "acme-alice", None).await;
    create(&app, "/api/notes/", "globex-carol", json!({"text": "carol's note"})).await;
    create(&app, "/api/notes/", "acme-bob", json!({"text": "bob's note"})).await;
    let mut rest = rest_events(&mut projects, "ProjectViewSet").await;
    rest.extend(rest_events(&mut notes, "NoteViewSet").await);
    let kinds: Vec<&str> = rest.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(kinds, ["created", "created", "updated", "deleted", "created"], "bob's REST streams: {rest:?}");
    assert_eq!(by_id(settled_feed(&client, rest.len()).await), by_id(rest), "the feed as acme-bob");
    let shown = text(&client, feed, "Roadmap 2").await;
    assert!(!shown.contains("Globex plan") && !shown.contains("carol's note"), "{shown}");

    // As globex-carol: the feed starts over as her; bob's feed is kept below, labelled and closed.
    act_as(&client, "globex-carol").await;
    feed_as(&client, "globex-carol", &[("ProjectViewSet", "open"), ("NoteViewSet", "open")]).await;
    text(&client, &format!("{feed} h4"), "Earlier, as acme-bob").await;
    find(&client, "ul[data-feed=earlier][data-feed-identity=acme-bob] li[data-event=deleted]").await;
    let (mut projects, mut notes) = rest_streams(&app, "globex-carol").await;
    write(&app, Method::PATCH, &format!("/api/projects/{globex}"), "globex-carol", Some(json!({"name": "Plan B"})))
        .await;
    create(&app, "/api/projects/", "acme-bob", json!({"name": "Acme second"})).await;
    create(&app, "/api/notes/", "acme-bob", json!({"text": "bob again"})).await;
    create(&app, "/api/notes/", "globex-carol", json!({"text": "carol again"})).await;
    create(&app, "/api/projects/", "globex-carol", json!({"name": "Globex hiring"})).await;
    let mut rest = rest_events(&mut projects, "ProjectViewSet").await;
    rest.extend(rest_events(&mut notes, "NoteViewSet").await);
    let kinds: Vec<&str> = rest.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(kinds, ["updated", "created", "created"], "carol's REST streams: {rest:?}");
    assert_eq!(by_id(settled_feed(&client, rest.len()).await), by_id(rest), "the feed as globex-carol");
    let current = text(&client, "ul[data-feed=current]", "Plan B").await;
    assert!(!current.contains("Acme second") && !current.contains("bob again"), "{current}");

    // As nobody-dave (no tenant): projects are refused (403, as over REST) and not asked again; notes stay open.
    let refused = app.client().get(format!("{}/api/projects/stream", app.base)).bearer_auth("nobody-dave");
    assert_eq!(refused.send().await.unwrap().status(), StatusCode::FORBIDDEN);
    act_as(&client, "nobody-dave").await;
    feed_as(&client, "nobody-dave", &[("ProjectViewSet", "denied"), ("NoteViewSet", "open")]).await;
    text(&client, "[data-stream=ProjectViewSet]", "403 This resource requires a tenant.").await;
    tokio::time::sleep(Duration::from_millis(3000)).await; // longer than the first reconnection delay
    let tries = find(&client, "[data-stream=ProjectViewSet]").await.attr("data-connections").await.unwrap();
    assert_eq!(tries.as_deref(), Some("1"), "a denied stream is not retried");
    js(&client, "document.querySelector(\"section[aria-label='Live events']\").scrollIntoView();").await;
    browser::screenshot(&client, "6b-runtime-panel-feed-as-identity").await;
    client.close().await.unwrap();
}

/// Waits up to `wait` until the text of `css` contains `needle` (longer than the helpers' wait: reconnection
/// backs off while a connection stays cut).
async fn eventually(client: &Client, css: &str, needle: &str, wait: Duration) -> String {
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        let shown = js(client, &format!("return document.querySelector({})?.textContent ?? '';", json!(css))).await;
        if shown.as_str().unwrap_or_default().contains(needle) {
            return shown.as_str().unwrap_or_default().to_string();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    browser::fail(client, &format!("`{needle}` never appeared in {css}")).await
}

#[tokio::test]
async fn feed_resumes_after_a_drop_and_shows_a_reset() {
    let Some((driver_path, chromium)) = browser::require() else { return };
    let app = tenants_with_ui(Backend::Sqlite).await;
    // The page talks to the app through a proxy that can cut every connection (REST writes go around it).
    let proxy = CuttableProxy::start(app.base.trim_start_matches("http://").to_string()).await;
    let driver = browser::Driver::start(&driver_path).await;
    let client = driver.session(&chromium).await;
    sign_in(&client, &format!("http://127.0.0.1:{}", proxy.port)).await;
    act_as(&client, "acme-bob").await;
    feed_as(&client, "acme-bob", &[("ProjectViewSet", "open"), ("NoteViewSet", "open")]).await;
    let before = create(&app, "/api/projects/", "acme-bob", json!({"name": "Before the drop"})).await;
    let seen = settled_feed(&client, 1).await;
    let last_id = seen[0].2.clone();

    // Dropped: the stream reconnects with Last-Event-ID, and the event written meanwhile arrives, once.
    proxy.cut();
    find(&client, "[data-stream=ProjectViewSet][data-state=reconnecting]").await;
    let during = create(&app, "/api/projects/", "acme-bob", json!({"name": "During the drop"})).await;
    proxy.restore();
    let stream = "[data-stream=ProjectViewSet][data-state=open]";
    eventually(&client, stream, &format!("resumed after {last_id}"), WAIT * 3).await;
    let pks: Vec<(String, String)> = settled_feed(&client, 2).await.into_iter().map(|e| (e.0, e.3)).collect();
    let created = |pk: i64| ("created".to_string(), pk.to_string());
    assert_eq!(pks, [created(before), created(during)], "each event once, the missed one replayed");

    // Dropped while more events pass than the server buffers: its `reset` is shown (events are missing there),
    // the id is forgotten, and the feed goes on.
    proxy.cut();
    find(&client, "[data-stream=ProjectViewSet][data-state=reconnecting]").await;
    for i in 0..1030 {
        create(&app, "/api/projects/", "globex-carol", json!({"name": format!("flood {i}")})).await;
    }
    create(&app, "/api/projects/", "acme-bob", json!({"name": "Missed"})).await;
    proxy.restore();
    let reset = "ul[data-feed=current] li[data-event=reset]";
    eventually(&client, reset, "resume_unavailable: events may be missing here", WAIT * 4).await;
    text(&client, "[data-stream=ProjectViewSet][data-state=open]", "reset (resume_unavailable)").await;
    create(&app, "/api/projects/", "acme-bob", json!({"name": "After the reset"})).await;
    let current = text(&client, "ul[data-feed=current]", "After the reset").await;
    assert!(!current.contains("Missed"), "{current}");
    js(&client, "document.querySelector(\"section[aria-label='Live events']\").scrollIntoView();").await;
    browser::screenshot(&client, "6c-runtime-panel-feed-reset").await;

    // The parser, on the cases EventSource's parsing defines.
    let script = r#"const done = arguments[arguments.length - 1];
import('/studio/ui/assets/sse.js').then(({ EventStreamParser }) => {
  const run = (chunks, start = '') => {
    const out = { events: [], retries: [], comments: [] };
    const parser = new EventStreamParser(start, {
      event: (e) => out.events.push([e.type, e.data, e.lastEventId]),
      retry: (ms) => out.retries.push(ms), comment: (c) => out.comments.push(c),
    });
    for (const c of chunks) typeof c === 'string' ? parser.push(c) : parser.pushBytes(new Uint8Array(c));
    out.lastEventId = parser.lastEventId;
    return out;
  };
  done({
    crlf_split: run(['event: created\r', '\nid: a-1\r\ndata: {"x"', ':1}\r\n\r\n']),
    multiline: run(['data: one\ndata:two\ndata\n\n']),
    comment: run([': keep-alive\n\n', 'data\n\n']),
    ids: run(['id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: x\0y\ndata: d\n\n'], 'start'),
    retry: run(['retry: 2500\nretry: 25a\nretry\n\n']),
    cr_only: run(['data: c\r\rdata:  spaced\r', '\r']),
    unfinished: run(['data: partial\n', 'event: x']),
    no_data: run(['event: ready\nid: 9\n\n']),
    utf8: run([[100, 97, 116, 97, 58, 32, 0xC3], [0xA9, 10, 10]]),
    bom: run([[0xEF, 0xBB, 0xBF, 100, 97, 116, 97, 58, 32, 120, 10, 10]]),
    unknown: run(['foo: bar\ndata: y\n\n']),
  });
}).catch((e) => done(String(e)));"#;
    let parsed = client.execute_async(script, vec![]).await.unwrap();
    let one = |events: Value, last: &str| json!({"events": events, "retries": [], "comments": [], "lastEventId": last});
    assert_eq!(parsed["crlf_split"], one(json!([["created", "{\"x\":1}", "a-1"]]), "a-1"));
    assert_eq!(parsed["multiline"], one(json!([["message", "one\ntwo\n", ""]]), ""));
    assert_eq!(parsed["comment"]["events"], json!([["message", "", ""]]));
    assert_eq!(parsed["comment"]["comments"], json!([" keep-alive"]));
    let ids = json!([["message", "a", "7"], ["message", "b", "7"], ["message", "c", ""], ["message", "d", ""]]);
    assert_eq!(parsed["ids"], one(ids, ""));
    assert_eq!(parsed["retry"]["retries"], json!([2500]));
    assert_eq!(parsed["retry"]["events"], json!([]));
    assert_eq!(parsed["cr_only"], one(json!([["message", "c", ""], ["message", " spaced", ""]]), ""));
    assert_eq!(parsed["unfinished"], one(json!([]), ""));
    assert_eq!(parsed["no_data"], one(json!([]), "9"));
    assert_eq!(parsed["utf8"], one(json!([["message", "é", ""]]), ""));
    assert_eq!(parsed["bom"], one(json!([["message", "x", ""]]), ""));
    assert_eq!(parsed["unknown"], one(json!([["message", "y", ""]]), ""));
    client.close().await.unwrap();
}
