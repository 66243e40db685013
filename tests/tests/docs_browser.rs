//! Headless Chromium loads the blog's `/docs` page, with no network beyond loopback, and finds the blog's
//! operations rendered on it. Chromium comes from Debian's `chromium` package (`.ci/run` installs it); without it
//! the test fails when `VIEWSET_REQUIRE_BROWSER=1` (as in CI) and is skipped with a note otherwise.

use std::process::Command;

use viewset_tests::harness::{Backend, TestApp};

fn chromium() -> Option<String> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|bin| Command::new(bin).arg("--version").output().is_ok_and(|o| o.status.success()))
        .map(str::to_string)
}

#[tokio::test]
async fn docs_page_renders_the_blog_operations() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("VIEWSET_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "chromium is required but not installed"
        );
        eprintln!("skipped: chromium is not installed");
        return;
    };
    let app = TestApp::blog(Backend::Sqlite).await.expect("sqlite");
    let url = format!("{}/docs/", app.base);
    let profile = std::env::temp_dir().join(format!("viewset-chromium-{}", std::process::id()));
    let output = tokio::task::spawn_blocking(move || {
        Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(["--virtual-time-budget=15000", "--dump-dom", &url])
            .output()
    })
    .await
    .expect("join")
    .expect("run chromium");
    let dom = String::from_utf8_lossy(&output.stdout);
    for expected in ["/api/posts/{pk}/publish", "/authors/{pk}", "List records", "Retrieve a record"] {
        assert!(
            dom.contains(expected),
            "`{expected}` not rendered on /docs; stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
