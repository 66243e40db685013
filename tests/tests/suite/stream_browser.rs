//! A browser's `EventSource` (headless Chromium) receives the blog's `ready` and `created` frames: the page
//! connects to `/api/posts/stream`, creates a post with `fetch` once the stream is ready, and writes what it
//! receives into the page, which the test reads back.

use axum::response::Html;
use axum::routing::get;
use viewset_tests::harness::{Backend, TestApp, TestDb, rendered_dom, require_chromium};

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

#[tokio::test]
async fn event_source_in_chromium_receives_ready_and_created() {
    let Some(browser) = require_chromium() else { return };
    let (database, db) = TestDb::seeded_blog(Backend::Sqlite).await;
    let router = blog::app(db.clone()).merge(axum::Router::new().route("/events.html", get(|| async { Html(PAGE) })));
    let app = TestApp::serve(router, db, database).await;
    let url = format!("{}/events.html", app.base);
    let dom = rendered_dom(browser, url, 8_000).await;
    assert!(dom.contains("ready:posts|created:From the browser|done|"), "page log: {dom}");
}
