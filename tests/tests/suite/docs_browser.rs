//! Headless Chromium (driven through chromedriver) loads the blog's `/docs` page, with no network beyond loopback,
//! and finds the blog's operations rendered on it. Chromium comes from Debian's `chromium` package (`.ci/run`
//! installs it); without it the test fails when `VIEWSET_REQUIRE_BROWSER=1` (as in CI) and is skipped with a note
//! otherwise.
//!
//! The page is read as it renders, until every operation is there or 60 s have passed: Swagger UI renders the
//! operations in steps, and a dump after a fixed virtual-time budget (as this test did) caught it half-way on a
//! loaded machine.

use std::time::{Duration, Instant};

use viewset_tests::harness::{Backend, TestApp};

use crate::support::browser;

#[tokio::test]
async fn docs_page_renders_the_blog_operations() {
    let Some((driver_path, chromium)) = browser::require() else { return };
    let app = TestApp::blog(Backend::Sqlite).await;
    let driver = browser::Driver::start(&driver_path).await;
    let client = driver.session(&chromium).await;
    client.goto(&format!("{}/docs/", app.base)).await.expect("open /docs");
    let expected = ["/api/posts/{pk}/publish", "/authors/{pk}", "/api/tags/", "List records", "Retrieve a record"];
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let text = browser::js(&client, "return document.body ? document.body.innerText : '';").await;
        let text = text.as_str().unwrap_or_default();
        let missing: Vec<&str> = expected.iter().copied().filter(|e| !text.contains(e)).collect();
        if missing.is_empty() {
            break;
        }
        if Instant::now() > deadline {
            browser::fail(&client, &format!("{missing:?} not rendered on /docs: {}", &text[..text.len().min(2000)]))
                .await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    client.close().await.expect("close");
}
