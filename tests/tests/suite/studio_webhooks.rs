//! Studio's webhooks (issue 72): `/studio/webhooks` shows the application's running webhooks (`Studio::webhooks`)
//! and acts on them, over real HTTP with a receiver that verifies every delivery with the official
//! `standardwebhooks` library: a refused event is a dead letter that Studio lists and replays (then it is gone), an
//! endpoint disabled for failing is enabled again, bad bodies are 422s naming the field, unknown names 404s, and
//! without the registration the paths say so (409). Then the Runtime Panel's Webhooks card in headless Chromium,
//! over the blog as its own process with `SERVICE_WEBHOOK_URL`: the card lists the dead letter, Replay delivers it.
//! Screenshot: `target/studio-ui-screenshots/9-runtime-panel-webhooks.png`.

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use sea_orm_migration::{MigrationTrait, SchemaManager};
use serde_json::{Value, json};
use viewset_core::ServiceState;
use viewset_core::webhooks::{Endpoint, Retry, Secret, WebhookHandle, Webhooks};
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{TOKEN, UI_SECRET, with_auth};
use viewset_tests::webhook_receiver::Receiver;

use crate::support::browser::{self, click, find, screenshot};
use crate::support::observed::blog_on;

on_every_database!(hooked => dead_letters_are_listed_and_replayed_and_a_disabled_endpoint_enabled);

const WAIT: Duration = Duration::from_secs(15);

/// The blog with Studio (token required) showing webhooks to `receiver`, which it starts.
struct Hooked {
    app: TestApp,
    receiver: Receiver,
    _running: Arc<WebhookHandle>,
}

async fn hooked(backend: Backend) -> Option<Hooked> {
    let secret = Secret::generate();
    let receiver = Receiver::start(&[secret.as_str()]).await?;
    let (database, db) = TestDb::seeded_blog(backend).await;
    viewset_core::webhooks::Migration.up(&SchemaManager::new(&db)).await.expect("the webhook tables");
    let state = ServiceState::new(db.clone());
    let routes = blog::routes_from(blog::api(), state.clone());
    // Two failures in a row, 50 ms apart, disable it: the second scenario needs a disabled endpoint soon.
    let quick = Retry::new(vec![Duration::from_millis(50), Duration::from_millis(50)]).disable_after(Duration::ZERO);
    let endpoint = Endpoint::new("search", &receiver.url, secret.as_str()).expect("endpoint");
    let endpoint = endpoint.viewset("posts").allow_private_addresses().retry(quick);
    let webhooks = Webhooks::new(&blog::api(), db.clone()).endpoint(endpoint).expect("valid");
    let running = Arc::new(webhooks.lease(Duration::from_millis(600)).start(routes).await.expect("started"));
    let studio = blog::studio(with_auth()).webhooks(running.clone());
    let router = studio.mount(blog::app_with_state(state), db.clone()).expect("valid settings");
    Some(Hooked { app: TestApp::serve(router, db, database).await, receiver, _running: running })
}

/// A Studio request with the token.
async fn studio(app: &TestApp, method: Method, path: &str, body: Option<&str>) -> (StatusCode, Value) {
    let mut request = app.client().request(method, format!("{}{path}", app.base)).header("X-Studio-Token", TOKEN);
    if let Some(body) = body {
        request = request.header("content-type", "application/json").body(body.to_owned());
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// `GET /studio/webhooks` until `done` holds of its only endpoint (at most [`WAIT`]).
async fn until(app: &TestApp, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + WAIT;
    loop {
        let (status, body) = studio(app, Method::GET, "/studio/webhooks", None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let endpoint = body["endpoints"][0].clone();
        if done(&endpoint) {
            return endpoint;
        }
        assert!(Instant::now() < deadline, "{what}: {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn post(app: &TestApp, title: &str) -> Value {
    let body = json!({"title": title, "body": "b", "author_id": 1, "published": true}).to_string();
    let (status, created) = app.send(Method::POST, "/api/posts/", BOB, Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created
}

async fn dead_letters_are_listed_and_replayed_and_a_disabled_endpoint_enabled(hooked: Option<Hooked>) {
    let Some(Hooked { app, receiver, .. }) = hooked else { return };
    // A 400 is not retried: the event is a dead letter at once.
    receiver.script(json!([[400, {}, 0]])).await;
    let refused = post(&app, "refused").await;
    // The dead letter is kept, then the feed's cursor moves past it: both, before looking.
    let buried = |e: &Value| {
        e["dead_letters"].as_array().is_some_and(|d| d.len() == 1)
            && e["feeds"][0]["cursor"] == e["dead_letters"][0]["event_id"]
    };
    let endpoint = until(&app, "a dead letter, and the cursor past it", buried).await;
    assert_eq!(endpoint["name"], "search");
    let feed = &endpoint["feeds"][0];
    assert_eq!((feed["feed"].as_str(), feed["viewset"].as_str()), (Some("search/posts"), Some("posts")));
    assert_eq!(feed["target"].as_str(), Some(receiver.url.as_str()));
    let dead = &endpoint["dead_letters"][0];
    assert_eq!(
        (&feed["cursor"], feed["leased_here"].as_bool(), feed["disabled"].as_bool()),
        (&dead["event_id"], Some(true), Some(false))
    );
    assert!(dead["payload"].as_str().is_some_and(|p| p.contains("\"refused\"")), "{dead}");
    assert_eq!(
        (endpoint["attempts"][0]["status"].as_i64(), &endpoint["attempts"][0]["event_id"]),
        (Some(400), &dead["event_id"])
    );

    // Bad asks: the field named, or what was not found.
    let replay = |body: &'static str| studio(&app, Method::POST, "/studio/webhooks/replay", Some(body));
    let (status, body) = replay("{not json").await;
    assert_eq!((status, &body["detail"][0]["loc"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!(["body"])));
    let (status, body) = replay(r#"{"endpoint": "search"}"#).await;
    assert_eq!((status, &body["detail"][0]["loc"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!(["body", "event_id"])));
    let (status, body) = replay(r#"{"endpoint": "search", "event_id": "nosuch"}"#).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{body}");
    let (status, _) = studio(&app, Method::GET, "/studio/webhooks/replay", None).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    let anonymous = app.client().get(format!("{}/studio/webhooks", app.base)).send().await.expect("request");
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);

    // The replay is taken: signed again (the receiver verifies), with the same webhook-id; the dead letter is gone.
    let ask = json!({"endpoint": "search", "event_id": dead["event_id"]}).to_string();
    let (status, body) = studio(&app, Method::POST, "/studio/webhooks/replay", Some(&ask)).await;
    assert_eq!((status, body["attempt"]["status"].as_i64()), (StatusCode::OK, Some(200)), "{body}");
    let received = receiver.wait_for(2, WAIT).await;
    let last = received.last().expect("the replay");
    assert_eq!((&last["id"], last["verified"].as_bool()), (&dead["event_id"], Some(true)), "{received:?}");
    assert_eq!(last["payload"]["data"]["pk"], refused["id"]);
    let endpoint = until(&app, "no dead letter", |e| e["dead_letters"].as_array().is_some_and(Vec::is_empty)).await;
    assert!(endpoint["feeds"][0]["failing_since"].is_i64(), "failing since the refusal: {endpoint}");
    // The next event is taken: the endpoint answers again.
    let taken = post(&app, "taken").await;
    until(&app, "not failing", |e| {
        e["feeds"][0]["failing_since"].is_null() && e["feeds"][0]["cursor"] != dead["event_id"]
    })
    .await;
    let received = receiver.received().await;
    assert!(received.iter().any(|d| d["payload"]["data"]["pk"] == taken["id"] && d["status"] == 200), "{received:?}");

    // Two 500s in a row disable the endpoint (it fails for longer than `disable_after`); Studio enables it.
    receiver.script(json!([[500, {}, 0], [500, {}, 0]])).await;
    post(&app, "failing").await;
    until(&app, "disabled", |e| e["feeds"][0]["disabled"] == true).await;
    let (status, body) = studio(&app, Method::POST, "/studio/webhooks/enable", Some(r#"{"endpoint": "nosuch"}"#)).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")), "{body}");
    let (status, body) = studio(&app, Method::POST, "/studio/webhooks/enable", Some(r#"{"endpoint": "search"}"#)).await;
    assert_eq!((status, body["enabled"].as_str()), (StatusCode::OK, Some("search")), "{body}");
    // Enabled, it delivers again: the next event is taken.
    let next = post(&app, "after enable").await;
    let received = receiver
        .wait_until(WAIT, |r| r.iter().any(|d| d["payload"]["data"]["pk"] == next["id"] && d["status"] == 200))
        .await;
    assert!(received.iter().any(|d| d["payload"]["data"]["pk"] == next["id"]), "{received:?}");
    let endpoint = until(&app, "enabled", |e| e["feeds"][0]["disabled"] == false).await;
    assert!(endpoint["feeds"][0]["failing_since"].is_null(), "{endpoint}");
}

#[tokio::test]
async fn without_registration_the_paths_say_what_to_do() {
    let (database, db) = TestDb::seeded_blog(Backend::Sqlite).await;
    let router = blog::mount_studio(blog::app(db.clone()), db.clone(), with_auth()).expect("valid settings");
    let app = TestApp::serve(router, db, database).await;
    for (method, path) in [(Method::GET, "/studio/webhooks"), (Method::POST, "/studio/webhooks/replay")] {
        let (status, body) = studio(&app, method, path, Some("{}")).await;
        assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("webhooks_unavailable")), "{path}");
        assert!(body["detail"].as_str().is_some_and(|d| d.contains("Studio::webhooks")), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runtime_panel_replays_a_dead_letter() {
    let Some((driver_path, chromium)) = browser::require() else { return };
    let secret = Secret::generate();
    let Some(receiver) = Receiver::start(&[secret.as_str()]).await else { return };
    receiver.script(json!([[400, {}, 0]])).await;
    let env = [
        ("SERVICE_ENABLE_STUDIO", "true"),
        ("SERVICE_STUDIO_REQUIRE_AUTH", "true"),
        ("SERVICE_STUDIO_AUTH_TOKEN", TOKEN),
        ("SERVICE_STUDIO_SECRET_TOKEN", UI_SECRET),
        ("SERVICE_WEBHOOK_URL", receiver.url.as_str()),
        ("SERVICE_WEBHOOK_SECRET", secret.as_str()),
        ("SERVICE_WEBHOOK_ALLOW_PRIVATE", "1"),
    ];
    let blog = blog_on(Backend::Sqlite, &env, Stdio::null()).await;
    let created = reqwest::Client::new()
        .post(format!("{}/api/posts/", blog.base))
        .bearer_auth(BOB.expect("Bob's token"))
        .json(&json!({"title": "refused by the receiver", "body": "b", "author_id": 1, "published": true}))
        .send()
        .await
        .expect("create");
    assert_eq!(created.status(), StatusCode::CREATED);
    let driver = browser::Driver::start(&driver_path).await;
    let client = driver.session(&chromium).await;
    browser::sign_in(&client, &format!("{}/studio/ui", blog.base)).await;
    browser::open(&client, "Runtime Panel", "runtime-panel").await;
    find(
        &client,
        "section[aria-label=Webhooks] [data-endpoint=blog] [data-feed='blog/posts'] [data-feed-state=failing]",
    )
    .await;
    find(&client, "section[aria-label=Webhooks] ul.dead li[data-dead]").await;
    js_scroll(&client).await;
    screenshot(&client, "9-runtime-panel-webhooks").await;
    click(&client, "section[aria-label=Webhooks] ul.dead li[data-dead] button", "Replay").await;
    find(&client, "section[aria-label=Webhooks] [data-action=replay][data-outcome=taken]").await;
    let received = receiver.wait_for(2, WAIT).await;
    assert_eq!(received.iter().map(|r| r["status"].as_i64()).collect::<Vec<_>>(), [Some(400), Some(200)]);
    assert!(received.iter().all(|r| r["verified"] == true && r["id"] == received[0]["id"]), "{received:?}");
    // The card drew the answer after the replay: no dead letter is listed any more.
    let gone = "return document.querySelector('section[aria-label=Webhooks] ul.dead') === null || null;";
    let deadline = Instant::now() + WAIT;
    while browser::js(&client, gone).await.is_null() {
        assert!(Instant::now() < deadline, "the dead letter is still listed");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    browser::assert_no_console_errors(&client, &["401", "403"]).await;
    client.close().await.unwrap();
}

async fn js_scroll(client: &fantoccini::Client) {
    browser::js(client, "document.querySelector('section[aria-label=Webhooks]').scrollIntoView({block: 'start'});")
        .await;
}
