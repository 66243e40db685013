//! The Studio web UI (`/studio/ui`) over real HTTP against the blog, on SQLite and PostgreSQL: signing in with the
//! Studio token, the session cookie's flags, forged, expired and foreign cookies refused, CSRF on writes, the
//! Content-Security-Policy, no asset naming another host, and every UI path 404 with Studio off. Session refusals and
//! CSRF are in `studio_ui_sessions.rs`, the browser tests in `studio_ui_browser.rs`.

use std::collections::BTreeSet;
use std::time::SystemTime;

use reqwest::StatusCode;
use reqwest::header::SET_COOKIE;
use serde_json::json;
use viewset_studio::Environment;
use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{
    TOKEN, UI_SECRET, blog_with_pending_migrations, blog_with_studio, blog_with_ui, code, pending_migrations_app,
    settings, ui_settings, with_auth,
};

use crate::support::ui_http;
use ui_http::*;

on_every_database!(blog_with_ui => sign_in_cookie_and_page, assets_and_policy);
on_every_database!(blog_with_pending_migrations => apply_pending_migrations);

async fn sign_in_cookie_and_page(app: TestApp) {
    // Without credentials: the page is the sign-in form (401), the data endpoints are 401 JSON.
    let page = send(&app, "GET", "/studio/ui", None, &[], None).await;
    assert_eq!(page.status, StatusCode::UNAUTHORIZED);
    assert!(page.headers["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(page.body.contains("<form method=\"post\" action=\"/studio/session\">"), "{}", page.body);
    assert_eq!(page.body.matches("<input").count(), 1, "one field");
    assert!(page.body.contains("type=\"password\""));
    assert_csp(&page.headers);
    for path in ["/studio/handshake", "/studio/health", "/studio/session", "/ai/context/full", "/ai/tools"] {
        let sent = send(&app, "GET", path, None, &[], None).await;
        assert_eq!(sent.status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(code(&sent.body), "not_authenticated", "{path}");
    }

    // A wrong token: the form again, with the reason; no cookie.
    let wrong = post_form(&app, "nope").await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert!(wrong.headers().get(SET_COOKIE).is_none());
    assert!(wrong.text().await.unwrap().contains("That is not the Studio token."));

    // The right token: a session cookie, then the page and every Studio and /ai endpoint.
    let cookie = sign_in(&app).await;
    let page = send(&app, "GET", "/studio/ui", Some(&cookie), &[], None).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert_csp(&page.headers);
    assert_eq!(page.headers["cache-control"], "no-store");
    let csrf = csrf_of(&page.body);
    assert!(csrf.len() >= 40, "{csrf}");
    assert!(page.body.contains("<meta name=\"studio-auth\" content=\"session\">"));
    for path in [
        "/studio/handshake",
        "/studio/context/summary",
        "/studio/health",
        "/studio/migrations/summary",
        "/ai/context/full",
        "/ai/tools",
    ] {
        assert_eq!(send(&app, "GET", path, Some(&cookie), &[], None).await.status, StatusCode::OK, "{path}");
    }
    let session = send(&app, "GET", "/studio/session", Some(&cookie), &[], None).await.json();
    assert_eq!(session["via"], "session");
    assert_eq!(session["csrf"], csrf.as_str());
    let expires = session["expires_at"].as_u64().unwrap();
    let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap().as_secs();
    assert!((now + 8 * 3600 - 5..=now + 8 * 3600).contains(&expires), "{expires} vs {now}");

    // A JSON sign-in (for scripts) answers the CSRF value directly.
    let json_sign_in = send(&app, "POST", "/studio/session", None, &[], Some(json!({"token": TOKEN}))).await;
    assert_eq!(json_sign_in.status, StatusCode::OK);
    assert_eq!(json_sign_in.json()["via"], "session");
    let other = session_cookie(&json_sign_in.headers);
    assert_ne!(other, cookie, "each sign-in is a new session");

    // The token keeps working both ways, and needs no CSRF header (it is not ambient).
    let query = json!({"viewset": "posts", "limit": 1});
    for header in [("x-studio-token", TOKEN.to_string()), ("authorization", format!("Bearer {TOKEN}"))] {
        let sent = send(&app, "POST", "/ai/query/execute", None, &[(header.0, &header.1)], Some(query.clone())).await;
        assert_eq!(sent.status, StatusCode::OK, "{}", sent.body);
    }

    // Sign-out needs the CSRF header like any write, then clears both cookies.
    let refused = send(&app, "DELETE", "/studio/session", Some(&cookie), &[], None).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    let out = send(&app, "DELETE", "/studio/session", Some(&cookie), &[("x-studio-csrf", &csrf)], None).await;
    assert_eq!(out.status, StatusCode::NO_CONTENT);
    let cleared: Vec<&str> = out.headers.get_all(SET_COOKIE).iter().map(|v| v.to_str().unwrap()).collect();
    assert_eq!(cleared.len(), 2);
    assert!(cleared.iter().all(|c| c.starts_with("studio_session=;") && c.contains("Max-Age=0")), "{cleared:?}");
}

/// The asset paths a text names (`/studio/ui/assets/x` and `./x.js` imports).
fn referenced_assets(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (i, _) in text.match_indices("/studio/ui/assets/") {
        let name: String =
            text[i + 18..].chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')).collect();
        found.insert(name);
    }
    for (i, _) in text.match_indices("from './") {
        let name: String = text[i + 8..].chars().take_while(|c| *c != '\'').collect();
        found.insert(name);
    }
    found
}

async fn assets_and_policy(app: TestApp) {
    let cookie = sign_in(&app).await;
    let page = send(&app, "GET", "/studio/ui", Some(&cookie), &[], None).await;
    // The six panels' labels are in the page's script; the page itself has no inline script or style.
    assert!(!page.body.contains("<style") && !page.body.contains(" style="));
    for script in page.body.split("<script").skip(1) {
        assert!(script.trim_start().starts_with("type=\"module\" src=\"/studio/ui/assets/"), "inline script: {script}");
    }
    // Crawl every asset the page references (without a cookie: the assets need no credential, only the Origin
    // check), and check that none names another host.
    let mut queue: Vec<String> = referenced_assets(&page.body).into_iter().collect();
    let mut seen = BTreeSet::new();
    let mut scripts = String::new();
    while let Some(name) = queue.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let sent = send(&app, "GET", &format!("/studio/ui/assets/{name}"), None, &[], None).await;
        assert_eq!(sent.status, StatusCode::OK, "{name}");
        assert_csp(&sent.headers);
        let kind = sent.headers["content-type"].to_str().unwrap();
        assert!(kind.starts_with(if name.ends_with(".js") { "text/javascript" } else { "text/css" }), "{name}: {kind}");
        let text = sent.body.replace("'http://www.w3.org/2000/svg'", "");
        for needle in ["http://", "https://", "'//", "\"//", "@import"] {
            assert!(!text.contains(needle), "{name} names another host ({needle})");
        }
        assert!(sent.body.len() < 40_000, "{name} is {} bytes: keep each module small", sent.body.len());
        if name.ends_with(".js") {
            scripts.push_str(&sent.body);
        }
        queue.extend(referenced_assets(&sent.body));
    }
    assert!(seen.len() >= 10, "{seen:?}");
    for label in
        ["Model Browser", "Query Explorer", "Migration Manager", "API Inspector", "AI Console", "Runtime Panel"]
    {
        assert!(scripts.contains(&format!("label: '{label}'")), "{label}");
    }
    let unknown = send(&app, "GET", "/studio/ui/assets/nope.js", None, &[], None).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let evil = send(&app, "GET", "/studio/ui/assets/app.js", None, &[("origin", "http://evil.example")], None).await;
    assert_eq!(evil.status, StatusCode::FORBIDDEN, "the Origin check covers the assets too");

    // The UI's capabilities: admin_access with write_data (the blog writes); debug_panels only in debug mode.
    let handshake = send(&app, "GET", "/studio/handshake", Some(&cookie), &[], None).await.json();
    let caps: Vec<&str> = handshake["capabilities"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert!(caps.contains(&"write_data") && caps.contains(&"admin_access"), "{caps:?}");
    assert!(!caps.contains(&"debug_panels"), "{caps:?}");
}

async fn apply_pending_migrations(app: TestApp) {
    let cookie = sign_in(&app).await;
    let csrf = csrf_of(&send(&app, "GET", "/studio/ui", Some(&cookie), &[], None).await.body);
    let handshake = send(&app, "GET", "/studio/handshake", Some(&cookie), &[], None).await.json();
    assert!(handshake["capabilities"].as_array().unwrap().iter().any(|c| c == "apply_migrations"), "{handshake}");
    let before = send(&app, "GET", "/studio/migrations/summary", Some(&cookie), &[], None).await.json();
    let blog = blog::migrations::SOURCES.len() as u64;
    assert_eq!((before["applied_migrations"].as_u64(), before["pending_migrations"].as_u64()), (Some(blog), Some(5)));

    // A write: the session needs its CSRF header.
    let refused = send(&app, "POST", "/studio/migrations/apply", Some(&cookie), &[], None).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(code(&refused.body), "csrf_failed");
    let applied =
        send(&app, "POST", "/studio/migrations/apply", Some(&cookie), &[("x-studio-csrf", &csrf)], None).await;
    assert_eq!(applied.status, StatusCode::OK, "{}", applied.body);
    let body = applied.json();
    assert_eq!(body["applied"], json!(["accounts_m0001_users", "accounts_m0002_profiles", "catalog_m0001_items"]));
    assert_eq!(body["summary"]["pending_migrations"], 2, "the two the migrator does not know stay pending");
    assert_eq!(body["summary"]["conflicts"][0]["app_label"], "catalog");
    // Again: nothing left that the migrator knows.
    let again = send(&app, "POST", "/studio/migrations/apply", None, &[("x-studio-token", TOKEN)], None).await;
    assert_eq!(again.json()["applied"], json!([]));
}

#[tokio::test]
async fn apply_is_development_only_and_needs_a_migrator() {
    // No migrator registered: no capability, no route.
    let app = blog_with_ui(Backend::Sqlite).await;
    let handshake = send(&app, "GET", "/studio/handshake", None, &[("x-studio-token", TOKEN)], None).await.json();
    assert!(!handshake["capabilities"].as_array().unwrap().iter().any(|c| c == "apply_migrations"));
    let sent = send(&app, "POST", "/studio/migrations/apply", None, &[("x-studio-token", TOKEN)], None).await;
    assert_eq!(sent.status, StatusCode::NOT_FOUND);
    // Staging: the migrator is registered but Studio does not apply.
    let mut staging = ui_settings();
    staging.environment = Environment::Staging;
    let app = pending_migrations_app(Backend::Sqlite, staging).await;
    let handshake = send(&app, "GET", "/studio/handshake", None, &[("x-studio-token", TOKEN)], None).await.json();
    assert!(!handshake["capabilities"].as_array().unwrap().iter().any(|c| c == "apply_migrations"));
    let sent = send(&app, "POST", "/studio/migrations/apply", None, &[("x-studio-token", TOKEN)], None).await;
    assert_eq!(sent.status, StatusCode::FORBIDDEN);
    assert_eq!(code(&sent.body), "development_only");
    let summary = send(&app, "GET", "/studio/migrations/summary", None, &[("x-studio-token", TOKEN)], None).await;
    assert_eq!(summary.json()["pending_migrations"], 5, "nothing applied");
}

#[tokio::test]
async fn studio_off_means_every_ui_path_is_404() {
    let app = blog_with_studio(
        Backend::Sqlite,
        settings(&[
            ("SERVICE_STUDIO_REQUIRE_AUTH", "true"),
            ("SERVICE_STUDIO_AUTH_TOKEN", TOKEN),
            ("SERVICE_STUDIO_SECRET_TOKEN", UI_SECRET),
        ]),
    )
    .await;
    for (method, path) in [
        ("GET", "/studio/ui"),
        ("GET", "/studio/ui/assets/app.js"),
        ("GET", "/studio/session"),
        ("POST", "/studio/session"),
        ("DELETE", "/studio/session"),
    ] {
        let sent = send(&app, method, path, None, &[("x-studio-token", TOKEN)], None).await;
        assert_eq!(sent.status, StatusCode::NOT_FOUND, "{method} {path}");
    }
}

#[tokio::test]
async fn without_a_secret_sign_in_is_unavailable_and_the_token_still_works() {
    let app = blog_with_studio(Backend::Sqlite, with_auth()).await;
    let response = post_form(&app, TOKEN).await;
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(response.headers().get(SET_COOKIE).is_none());
    assert!(response.text().await.unwrap().contains("SERVICE_STUDIO_SECRET_TOKEN"));
    let page = send(&app, "GET", "/studio/ui", None, &[("x-studio-token", TOKEN)], None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("<meta name=\"studio-auth\" content=\"token\">"));
}

#[tokio::test]
async fn without_auth_the_page_opens_directly() {
    let mut open = settings(&[("SERVICE_ENABLE_STUDIO", "true"), ("SERVICE_DEBUG", "true")]);
    open.studio_secret_token = Some(UI_SECRET.into());
    let app = blog_with_studio(Backend::Sqlite, open).await;
    let page = send(&app, "GET", "/studio/ui", None, &[], None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("<meta name=\"studio-auth\" content=\"open\">"));
    assert!(page.body.contains("<meta name=\"studio-debug\" content=\"true\">"));
    // Nothing to sign in to: the form is sent back to the page.
    let sign_in = post_form(&app, "x").await;
    assert_eq!(sign_in.status(), StatusCode::SEE_OTHER);
    let handshake = send(&app, "GET", "/studio/handshake", None, &[], None).await.json();
    assert!(handshake["capabilities"].as_array().unwrap().iter().any(|c| c == "debug_panels"), "{handshake}");
}

// ---------------------------------------------------------------------------------------------------------------
// Headless Chromium through chromedriver
