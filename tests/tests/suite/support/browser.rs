//! The WebDriver side of the Studio UI browser test (`studio_ui_browser.rs`): Chromium and chromedriver found or
//! required, a driver process per test, a session with this workplace's flags, and small element helpers.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use viewset_tests::every_database::skip_unless_required;

/// Chromium's flags in this workplace, a fixed window, and no name resolution but loopback (so a request to
/// any other host fails at once, and shows up in the checks below).
const FLAGS: [&str; 10] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--window-size=1280,800",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
];

/// `chromedriver` and `chromium` from Debian's packages; `None` (skipped with a note) when either is missing,
/// a failure when `VIEWSET_REQUIRE_BROWSER=1`.
pub fn require() -> Option<(PathBuf, PathBuf)> {
    let find = |name: &str| {
        std::env::var_os("PATH")
            .map(|paths| std::env::split_paths(&paths).map(|p| p.join(name)).find(|p| p.is_file()))
            .unwrap_or_default()
    };
    match (find("chromedriver"), find("chromium")) {
        (Some(driver), Some(browser)) => Some((driver, browser)),
        _ => {
            skip_unless_required("VIEWSET_REQUIRE_BROWSER", "chromedriver or chromium is not installed");
            None
        }
    }
}

/// A chromedriver process on a loopback port, stopped when dropped.
pub struct Driver {
    child: std::process::Child,
    pub url: String,
}

impl Driver {
    pub async fn start(path: &PathBuf) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = std::process::Command::new(path)
            .args([format!("--port={port}"), "--allowed-ips=127.0.0.1".into()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("run chromedriver");
        let deadline = Instant::now() + Duration::from_secs(20);
        while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen on {port}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Driver { child, url: format!("http://127.0.0.1:{port}") }
    }

    pub async fn session(&self, browser: &PathBuf) -> Client {
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert("goog:chromeOptions".into(), json!({"binary": browser, "args": FLAGS}));
        caps.insert("goog:loggingPrefs".into(), json!({"browser": "ALL"}));
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        ClientBuilder::new(connector).capabilities(caps).connect(&self.url).await.expect("a WebDriver session")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// chromedriver's browser log (`POST /session/{id}/se/log`): the console and network messages so far.
#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(&self, base: &url::Url, session: Option<&str>) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(json!({"type": "browser"}).to_string()))
    }
}

/// The browser log's entries: (level, message).
pub async fn log(client: &Client) -> Vec<(String, String)> {
    let entries = client.issue_cmd(BrowserLog).await.expect("the browser log");
    entries
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|e| (e["level"].as_str().unwrap_or("").into(), e["message"].as_str().unwrap_or("").into()))
        .collect()
}

/// Asserts the browser's console has no error but the network lines of the deliberate refusals, answered with one
/// of `statuses` (`"401"`, …).
pub async fn assert_no_console_errors(client: &Client, statuses: &[&str]) {
    let unexpected: Vec<(String, String)> = log(client)
        .await
        .into_iter()
        .filter(|(level, message)| {
            level == "SEVERE"
                && !(message.contains("Failed to load resource")
                    && statuses.iter().any(|s| message.contains(&format!("status of {s}"))))
        })
        .collect();
    assert!(unexpected.is_empty(), "console errors: {unexpected:?}");
}

const WAIT: Duration = Duration::from_secs(15);

/// The first element for `css` once it exists.
pub async fn find(client: &Client, css: &str) -> Element {
    match client.wait().at_most(WAIT).for_element(Locator::Css(css)).await {
        Ok(el) => el,
        Err(e) => fail(client, &format!("{css}: {e}")).await,
    }
}

/// Panics with `what`, after saving a screenshot (`failure.png`) and printing the page's text and browser log.
pub async fn fail(client: &Client, what: &str) -> ! {
    screenshot(client, "failure").await;
    let body = client.find(Locator::Css("body")).await;
    let page = match body {
        Ok(b) => b.text().await.unwrap_or_default(),
        Err(_) => String::new(),
    };
    panic!("{what}\n--- page text ---\n{page}\n--- browser log ---\n{:#?}", log(client).await);
}

/// Waits until the text of the first element for `css` contains `needle`; returns that text.
pub async fn text(client: &Client, css: &str, needle: &str) -> String {
    let deadline = Instant::now() + WAIT;
    let mut last = String::new();
    while Instant::now() < deadline {
        if let Ok(el) = client.find(Locator::Css(css)).await {
            last = el.text().await.unwrap_or_default();
            if last.contains(needle) {
                return last;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    fail(client, &format!("`{needle}` never appeared in {css}; last text: {last}")).await
}

/// Clicks the first element for `css` whose text contains `label`.
pub async fn click(client: &Client, css: &str, label: &str) {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        for el in client.find_all(Locator::Css(css)).await.unwrap_or_default() {
            if el.text().await.unwrap_or_default().contains(label) && el.click().await.is_ok() {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    fail(client, &format!("nothing to click: {css} with `{label}`")).await
}

/// Runs `script` (WebDriver scripts are not subject to the page's CSP).
pub async fn js(client: &Client, script: &str) -> Value {
    client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// Opens a panel by its navigation label and waits until it has rendered.
pub async fn open(client: &Client, label: &str, id: &str) {
    click(client, "nav a", label).await;
    find(client, &format!("[data-panel=\"{id}\"][data-ready=\"true\"]")).await;
}

/// Writes the window as `target/studio-ui-screenshots/<name>.png`.
pub async fn screenshot(client: &Client, name: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/studio-ui-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    let png = client.screenshot().await.expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
}

/// Sets the "Act as" field (and fires its input event).
pub async fn act_as(client: &Client, token: &str) {
    let script = format!(
        "const i = document.getElementById('act-as'); i.value = {}; i.dispatchEvent(new Event('input'));",
        json!(token)
    );
    js(client, &script).await;
}

/// Replaces an input's or textarea's value.
pub async fn fill(client: &Client, css: &str, value: &str) {
    let el = find(client, css).await;
    el.clear().await.unwrap();
    el.send_keys(value).await.unwrap();
}

/// Adds a filter in the Model Browser's records section `records`: `field` (its exact lookup) equal to `value`,
/// and applies it.
pub async fn filter_records(client: &Client, records: &str, field: &str, value: &str) {
    click(client, &format!("{records} button"), "+ Filter").await;
    find(client, &format!("{records} .filter select")).await.select_by_value(field).await.unwrap();
    let lookup = client.find_all(Locator::Css(&format!("{records} .filter select"))).await.unwrap().remove(1);
    lookup.select_by_value(field).await.unwrap();
    fill(client, &format!("{records} .filter input"), value).await;
    click(client, &format!("{records} button"), "Apply").await;
}

/// Opens `url` (a page of `/studio/ui`), signs in with the Studio token and waits until the Model Browser is ready.
pub async fn sign_in(client: &Client, url: &str) {
    client.goto(url).await.unwrap();
    find(client, "input[type=password]").await.send_keys(viewset_tests::studio_fixtures::TOKEN).await.unwrap();
    find(client, "button[type=submit]").await.click().await.unwrap();
    find(client, "[data-panel=\"model-browser\"][data-ready=\"true\"]").await;
}
