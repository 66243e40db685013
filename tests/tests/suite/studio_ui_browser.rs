//! The Studio web UI in headless Chromium (fantoccini driving Debian's chromedriver): sign in with the token, use
//! every panel on the blog's real data, apply pending migrations in a fixture; no request leaves 127.0.0.1, no
//! console error; a screenshot of each panel in `target/studio-ui-screenshots/`. Needs `chromium` and
//! `chromedriver` (a failure, not a skip, with `VIEWSET_REQUIRE_BROWSER=1`).

use reqwest::StatusCode;
use viewset_tests::harness::Backend;
use viewset_tests::studio_fixtures::{TOKEN, blog_with_pending_migrations, blog_with_ui};

use crate::support::browser;

#[tokio::test]
async fn chromium_signs_in_and_uses_every_panel() {
    use browser::{act_as, click, fill, find, js, open, screenshot, text};
    use fantoccini::Locator;

    let Some((driver_path, chromium)) = browser::require() else { return };
    let app = blog_with_ui(Backend::Sqlite).await;
    let driver = browser::Driver::start(&driver_path).await;
    let client = driver.session(&chromium).await;
    let base = app.base.clone();

    // Sign in with the token.
    client.goto(&format!("{base}/studio/ui")).await.unwrap();
    let password = find(&client, "input[type=password]").await;
    screenshot(&client, "0-sign-in").await;
    password.send_keys(TOKEN).await.unwrap();
    find(&client, "button[type=submit]").await.click().await.unwrap();

    // Exactly the six panels, in order.
    find(&client, "[data-panel=\"model-browser\"][data-ready=\"true\"]").await;
    let mut labels = Vec::new();
    for link in client.find_all(Locator::Css("nav a")).await.unwrap() {
        labels.push(link.text().await.unwrap());
    }
    assert_eq!(
        labels,
        ["Model Browser", "Query Explorer", "Migration Manager", "API Inspector", "AI Console", "Runtime Panel"]
    );

    // Model Browser: the blog's posts through GET /api/posts/, sortable and filterable.
    let records = "section[aria-label=Records]";
    text(&client, records, "Notes on the Analytical Engine").await;
    text(&client, "[data-panel=model-browser]", "TimestampWithTimeZone").await; // the fields and their types
    text(&client, "[data-panel=model-browser]", "Author: HasOne posts.author_id → authors.id").await;
    click(&client, &format!("{records} th button"), "views").await;
    text(&client, &format!("{records} tbody tr:first-child"), "On Computable Numbers").await;
    click(&client, &format!("{records} th button"), "views").await;
    text(&client, &format!("{records} tbody tr:first-child"), "Computing Machinery and Intelligence").await;
    browser::filter_records(&client, records, "published", "false").await;
    text(&client, &format!("{records} [data-count]"), "1–1 of 1").await;
    text(&client, &format!("{records} tbody"), "On Computable Numbers").await;
    screenshot(&client, "1-model-browser").await;

    // Edit post 3 as bob (a permitted identity): the change shows, and the API has it.
    act_as(&client, "bob-token").await;
    click(&client, &format!("{records} tbody tr"), "On Computable Numbers").await;
    let detail = "section[aria-label=Record]";
    text(&client, detail, "Post 3").await;
    click(&client, &format!("{detail} button"), "Edit").await;
    fill(&client, "form.record input[name=title]", "On Computable Numbers, edited in Studio").await;
    click(&client, "form.record button", "Save").await;
    text(&client, &format!("{detail} dl"), "On Computable Numbers, edited in Studio").await;
    let (status, stored) = app.get("/api/posts/3").await;
    assert_eq!((status, stored["title"].as_str()), (StatusCode::OK, Some("On Computable Numbers, edited in Studio")));
    // A relation: the author of post 3, then back along the other direction with its count.
    click(&client, &format!("{detail} button"), "Author 2").await;
    text(&client, detail, "Author 2").await;
    text(&client, detail, "Posts (2)").await;
    // An author's PATCH body has a to-many `posts` (`{"add": [...]}`): a JSON field, left out when blank, so the
    // edit writes the name alone (as staff: authors are staff-written).
    act_as(&client, "alice-token").await;
    click(&client, &format!("{records} tbody tr"), "Alan Turing").await;
    click(&client, &format!("{detail} button"), "Edit").await;
    find(&client, "form.record textarea[name=posts][data-json]").await;
    fill(&client, "form.record [name=name]", "Alan M. Turing").await;
    click(&client, "form.record button", "Save").await;
    text(&client, &format!("{detail} dl"), "Alan M. Turing").await;
    let (_, author) = app.send(reqwest::Method::GET, "/authors/2", Some("alice-token"), None).await;
    assert_eq!(author["name"], "Alan M. Turing", "{author}");
    act_as(&client, "bob-token").await;
    click(&client, &format!("{records} tbody tr"), "Alan M. Turing").await;
    text(&client, detail, "Posts (2)").await;
    click(&client, &format!("{detail} button"), "Posts (2)").await;
    text(&client, &format!("{records} [data-count]"), "of 2").await;
    click(&client, "ul.list button", "Post").await; // the model list: a fresh view of the posts
    text(&client, &format!("{records} [data-count]"), "1–3 of 3").await;

    // A validation error shows next to its field.
    click(&client, &format!("{records} tbody tr"), "Notes on the Analytical Engine").await;
    click(&client, &format!("{detail} button"), "Edit").await;
    fill(&client, "form.record input[name=title]", &"x".repeat(201)).await;
    click(&client, "form.record button", "Save").await;
    let error = text(&client, "[data-field=title] .field-error", "").await;
    let error = if error.is_empty() { text(&client, "[data-field=title] .field-error", "200").await } else { error };
    assert!(error.contains("200"), "{error}");

    // The same write as anonymous: the policy's reason is shown (401: the blog's bearer layer challenges).
    act_as(&client, "").await;
    fill(&client, "form.record input[name=title]", "Anonymous edit").await;
    click(&client, "form.record button", "Save").await;
    text(&client, "form.record .alert", "Authentication credentials were not provided.").await;
    text(&client, "form.record .alert", "401").await;
    screenshot(&client, "1b-model-browser-denied").await;
    assert_eq!(app.get("/api/posts/1").await.1["title"], "Notes on the Analytical Engine", "nothing written");

    // Query Explorer: a filtered, ordered query through /ai/query/execute, with its URL and SQL.
    open(&client, "Query Explorer", "query-explorer").await;
    click(&client, "[data-panel=query-explorer] button", "+ Filter").await;
    find(&client, "[data-panel=query-explorer] .filter select").await.select_by_value("views").await.unwrap();
    let lookup = client.find_all(Locator::Css("[data-panel=query-explorer] .filter select")).await.unwrap().remove(1);
    lookup.select_by_value("views__gte").await.unwrap();
    fill(&client, "[data-panel=query-explorer] .filter input", "100").await;
    fill(&client, "[data-panel=query-explorer] input[placeholder='-id']", "-views").await;
    click(&client, "[data-panel=query-explorer] button", "Run query").await;
    text(&client, "pre[data-url]", "GET /api/posts/?views__gte=100&ordering=-views").await;
    text(&client, "section[aria-label=Result] tbody tr:first-child", "Computing Machinery and Intelligence").await;
    text(&client, "pre.sql", "SELECT").await;
    text(&client, "section[aria-label=History]", "PostViewSet").await;
    screenshot(&client, "2-query-explorer").await;

    // Migration Manager: the blog's migrations (the last two are the framework's idempotency and event tables),
    // applied, as a graph.
    open(&client, "Migration Manager", "migration-manager").await;
    find(&client, "svg g[data-migration=m20261128_000002_viewset_events] rect.applied.head").await;
    find(&client, "svg g[data-migration=m20261128_000001_viewset_idempotency] rect.applied").await;
    find(&client, "svg g[data-migration=m0002_create_posts] rect.applied").await;
    find(&client, "svg g[data-migration=m0001_create_authors] rect.applied").await;
    screenshot(&client, "3-migration-manager").await;

    // API Inspector: the routes of /openapi.json; a try-out as the chosen identity.
    open(&client, "API Inspector", "api-inspector").await;
    find(&client, "tr[data-operation=\"POST /api/posts/{pk}/publish\"]").await;
    find(&client, "tr[data-operation=\"GET /api/posts/\"]").await.click().await.unwrap();
    text(&client, "section[aria-label=Operation]", "Allowlists").await;
    fill(&client, "section[aria-label=Operation] input[placeholder^=limit]", "limit=1").await;
    click(&client, "section[aria-label=Operation] button", "Send request").await;
    text(&client, "pre[data-status=\"200\"]", "\"count\": 3").await;
    screenshot(&client, "4-api-inspector").await;

    // AI Console: a write tool through MCP as anonymous is denied with the policy's reason; a read runs.
    open(&client, "AI Console", "ai-console").await;
    find(&client, "select[aria-label=Tool]").await.select_by_value("posts_update").await.unwrap();
    fill(&client, "[data-panel=ai-console] input[name=pk]", "2").await;
    fill(&client, "[data-panel=ai-console] textarea[name=body]", "{\"title\": \"from the console\"}").await;
    click(&client, "[data-panel=ai-console] button", "Run tool").await;
    text(&client, "section[aria-label=Result]", "Authentication credentials were not provided.").await;
    text(&client, "section[aria-label=Result] h3", "Denied or failed: 401").await;
    screenshot(&client, "5-ai-console").await;
    find(&client, "select[aria-label=Tool]").await.select_by_value("posts_list").await.unwrap();
    click(&client, "[data-panel=ai-console] button", "Run tool").await;
    text(&client, "section[aria-label=Result] pre[data-status=\"200\"]", "Computing Machinery").await;

    // Runtime Panel: health, the capabilities, and a write's event in the live feed as the chosen identity
    // (anonymous here; the blog's posts are public). `studio_ui_feed.rs` tests the feed's identities.
    open(&client, "Runtime Panel", "runtime-panel").await;
    find(&client, "[data-status=healthy]").await;
    text(&client, "section[aria-label=Health]", "sqlite").await;
    let caps = find(&client, "[data-capabilities]").await.attr("data-capabilities").await.unwrap().unwrap();
    assert!(caps.contains("write_data") && caps.contains("admin_access"), "{caps}");
    find(&client, "p[data-feed-identity=''] + ul [data-stream=PostViewSet][data-state=open]").await;
    let edit = Some(r#"{"title": "Edited over REST"}"#);
    assert_eq!(app.send(reqwest::Method::PATCH, "/api/posts/2", Some("bob-token"), edit).await.0, StatusCode::OK);
    text(&client, "ul[data-feed=current] li[data-event=updated]", "Edited over REST").await;
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await; // a second health poll for the chart
    find(&client, "svg path.line").await;
    screenshot(&client, "6-runtime-panel").await;

    // Keyboard: the navigation is reachable with Tab, and Enter on a link opens its panel.
    js(&client, "document.querySelector('nav a').focus();").await;
    let focused = js(&client, "return document.activeElement.textContent;").await;
    assert_eq!(focused, "Model Browser");

    // No request left 127.0.0.1 (every resource and navigation the page loaded is on the app's origin).
    let urls = js(&client, "return performance.getEntries().map(e => e.name).filter(n => n.includes('://'));").await;
    let urls: Vec<&str> = urls.as_array().unwrap().iter().map(|u| u.as_str().unwrap()).collect();
    assert!(urls.len() > 10, "{urls:?}");
    for url in &urls {
        assert!(url.starts_with(&base), "a request left the app's origin: {url}");
    }

    // No console errors: the only messages at error level are the deliberate 403/422 answers (network lines).
    browser::assert_no_console_errors(&client, &["401", "403", "422"]).await;

    // Sign out: back to the sign-in form.
    find(&client, "#sign-out").await.click().await.unwrap();
    find(&client, "input[type=password]").await;
    client.close().await.unwrap();
}

#[tokio::test]
async fn chromium_applies_pending_migrations() {
    use browser::{click, find, screenshot, text};

    let Some((driver_path, chromium)) = browser::require() else { return };
    let app = blog_with_pending_migrations(Backend::Sqlite).await;
    let driver = browser::Driver::start(&driver_path).await;
    let client = driver.session(&chromium).await;
    browser::sign_in(&client, &format!("{}/studio/ui#migration-manager", app.base)).await;
    browser::open(&client, "Migration Manager", "migration-manager").await;

    // Pending migrations dashed, the two heads of `catalog` highlighted with the fix.
    find(&client, "svg g[data-migration=accounts_m0001_users] rect.pending").await;
    find(&client, "svg g[data-migration=catalog_m0002_add_price] rect.pending.head.conflict").await;
    text(&client, "section[data-app=catalog] .alert", "merge").await;
    click(&client, "[data-panel=migration-manager] button", "Apply 5 pending migrations").await;
    text(&client, "[role=alertdialog]", "accounts: accounts_m0001_users").await;
    screenshot(&client, "3b-migration-manager-confirm").await;
    click(&client, "[role=alertdialog] button", "Apply").await;
    text(&client, "section[aria-label='Apply result']", "Applied 3 migrations").await;
    text(&client, "section[aria-label='Apply result']", "2 still pending").await;
    find(&client, "svg g[data-migration=accounts_m0001_users] rect.applied").await;
    find(&client, "svg g[data-migration=catalog_m0001_items] rect.applied").await;
    screenshot(&client, "3c-migration-manager-applied").await;
    let summary = app.client().get(format!("{}/studio/migrations/summary", app.base)).header("x-studio-token", TOKEN);
    let summary: serde_json::Value = summary.send().await.unwrap().json().await.unwrap();
    assert_eq!(summary["applied_migrations"], blog::migrations::SOURCES.len() + 3, "the blog's and three more");
    client.close().await.unwrap();
}
