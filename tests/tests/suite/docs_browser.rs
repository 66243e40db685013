//! Headless Chromium loads the blog's `/docs` page, with no network beyond loopback, and finds the blog's
//! operations rendered on it. Chromium comes from Debian's `chromium` package (`.ci/run` installs it); without it
//! the test fails when `VIEWSET_REQUIRE_BROWSER=1` (as in CI) and is skipped with a note otherwise.

use viewset_tests::harness::{Backend, TestApp, rendered_dom, require_chromium};

#[tokio::test]
async fn docs_page_renders_the_blog_operations() {
    let Some(browser) = require_chromium() else { return };
    let app = TestApp::blog(Backend::Sqlite).await;
    let dom = rendered_dom(browser, format!("{}/docs/", app.base), 15_000).await;
    for expected in ["/api/posts/{pk}/publish", "/authors/{pk}", "List records", "Retrieve a record"] {
        assert!(dom.contains(expected), "`{expected}` not rendered on /docs: {}", &dom[..dom.len().min(2000)]);
    }
}
