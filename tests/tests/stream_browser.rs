//! A browser's `EventSource` (headless Chromium) receives the blog's `ready` and `created` frames: the page
//! connects to `/api/posts/stream`, creates a post with `fetch` once the stream is ready, and writes what it
//! receives into the page, which the test reads back.

use std::process::Command;
use std::time::Duration;

use axum::response::Html;
use axum::routing::get;
use viewset_tests::harness::{Backend, TestApp, TestDb};

const PAGE: &str = r#"<!doctype html><html><body><pre id="log"></pre><script>
const log = (t) => { document.getElementById('log').textContent += t + '|'; };
const es = new EventSource('/api/posts/stream');
es.addEventListener('ready', (e) => {
  log('ready:' + JSON.parse(e.data).table);
  fetch('/api/posts/', {method: 'POST', headers: {'Authorization': 'Bearer bob-token', 'Content-Type': 'application/json'},
    body: JSON.stringify({title: 'From the browser', body: 'b', author_id: 1})});
});
es.addEventListener('created', (e) => { log('created:' + JSON.parse(e.data).record.title); es.close(); log('done'); });
</script></body></html>"#;

fn chromium() -> Option<String> {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|bin| Command::new(bin).arg("--version").output().is_ok_and(|o| o.status.success()))
        .map(str::to_string)
}

#[tokio::test]
async fn event_source_in_chromium_receives_ready_and_created() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("VIEWSET_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "chromium is required but not installed"
        );
        eprintln!("skipped: chromium is not installed");
        return;
    };
    let database = TestDb::create(Backend::Sqlite).await.expect("sqlite");
    let db = blog::connect_and_migrate(&database.url).await.expect("migrate");
    blog::seed::seed_if_empty(&db).await.expect("seed");
    let router = blog::app(db.clone()).merge(axum::Router::new().route("/events.html", get(|| async { Html(PAGE) })));
    let app = TestApp::serve(router, db, database).await;
    let url = format!("{}/events.html", app.base);
    let profile = std::env::temp_dir().join(format!("viewset-chromium-sse-{}", std::process::id()));
    let output = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(browser)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            .args(["--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(["--virtual-time-budget=8000", "--dump-dom", &url])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("run chromium");
        // A stuck browser must not hang the suite.
        let deadline = std::time::Instant::now() + Duration::from_secs(40);
        while child.try_wait().ok().flatten().is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        child.wait_with_output().expect("chromium output")
    })
    .await
    .expect("join");
    let dom = String::from_utf8_lossy(&output.stdout);
    assert!(dom.contains("ready:posts|created:From the browser|done|"), "page log: {dom}");
}
