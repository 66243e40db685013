//! The Studio web UI (`/studio/ui`) over real HTTP against the blog, on SQLite and PostgreSQL: signing in with the
//! Studio token, the session cookie's flags, forged, expired and foreign cookies refused, CSRF on writes, the
//! Content-Security-Policy, no asset naming another host, and every UI path 404 with Studio off. Then headless
//! Chromium (driven through Debian's chromedriver by fantoccini) signs in, visits each panel, filters, sorts, edits
//! and is refused, and writes a screenshot of each panel to `target/studio-ui-screenshots/`.

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

use base64_url::decode_payload;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, SET_COOKIE};
use serde_json::{Value, json};
use viewset_core::session::SessionSigner;
use viewset_studio::{Environment, StudioSettings};
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{AppliedPart, TOKEN, blog_with_studio, code, settings, two_app_graph, with_auth};

/// The secret that signs the tests' Studio sessions.
const SECRET: &str = "studio-ui-test-secret-0123456789";

/// Studio with auth, two allowed origins and a session secret.
fn ui_settings() -> StudioSettings {
    let mut s = with_auth();
    s.studio_secret_token = Some(SECRET.into());
    s
}

async fn blog_with_ui(backend: Backend) -> TestApp {
    blog_with_studio(backend, ui_settings()).await
}

on_every_database!(blog_with_ui => sign_in_cookie_and_page, session_refusals_and_csrf, assets_and_policy);
on_every_database!(blog_with_pending_migrations => apply_pending_migrations);

/// The blog (migrated and seeded) with Studio over [`two_app_graph`] (five migrations of two more apps pending, one
/// app with two heads) and the migrator [`AppliedPart`] registered (it knows three of them).
async fn blog_with_pending_migrations(backend: Backend) -> TestApp {
    pending_migrations_app(backend, ui_settings()).await
}

async fn pending_migrations_app(backend: Backend, settings: StudioSettings) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let studio = blog::studio(settings).apps(["blog", "accounts", "catalog"]).migrations(two_app_graph());
    let router = studio.migrator::<AppliedPart>().mount(blog::app(db.clone()), db.clone()).unwrap();
    TestApp::serve(router, db, database).await
}

/// A client that follows no redirect (to see the sign-in's 303 and its cookies).
fn client() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// `POST /studio/session` with the form field `token`, as the sign-in page sends it.
async fn post_form(app: &TestApp, token: &str) -> reqwest::Response {
    let body = form_urlencoded::Serializer::new(String::new()).append_pair("token", token).finish();
    let request = client().post(format!("{}/studio/session", app.base));
    request.header("content-type", "application/x-www-form-urlencoded").body(body).send().await.unwrap()
}

/// Signs in with the form and returns the cookie value (`studio_session=...` pairs checked).
async fn sign_in(app: &TestApp) -> String {
    let response = post_form(app, TOKEN).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()["location"], "/studio/ui");
    session_cookie(response.headers())
}

/// The `studio_session` value of `Set-Cookie`, after checking both cookies' flags.
fn session_cookie(headers: &HeaderMap) -> String {
    let cookies: Vec<&str> = headers.get_all(SET_COOKIE).iter().map(|v| v.to_str().unwrap()).collect();
    assert_eq!(cookies.len(), 2, "{cookies:?}");
    let mut paths = BTreeSet::new();
    let mut values = BTreeSet::new();
    for cookie in &cookies {
        let mut parts = cookie.split("; ");
        let (name, value) = parts.next().unwrap().split_once('=').unwrap();
        assert_eq!(name, "studio_session");
        values.insert(value.to_string());
        let attributes: BTreeSet<&str> = parts.collect();
        assert!(attributes.contains("HttpOnly"), "{cookie}");
        assert!(attributes.contains("SameSite=Strict"), "{cookie}");
        assert!(attributes.contains("Max-Age=28800"), "a short expiry (8 hours): {cookie}");
        let path = attributes.iter().find_map(|a| a.strip_prefix("Path=")).expect("a Path");
        paths.insert(path.to_string());
    }
    assert_eq!(paths, BTreeSet::from(["/studio".to_string(), "/ai".to_string()]), "only Studio's trees");
    assert_eq!(values.len(), 1);
    values.into_iter().next().unwrap()
}

struct Sent {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Sent {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.body))
    }
}

/// A request with an optional session cookie, CSRF header, Origin and JSON body.
async fn send(
    app: &TestApp,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    extra: &[(&str, &str)],
    body: Option<Value>,
) -> Sent {
    let mut request = client().request(method.parse().unwrap(), format!("{}{path}", app.base));
    if let Some(cookie) = cookie {
        request = request.header("cookie", format!("theme=dark; studio_session={cookie}"));
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    Sent { status, headers, body: response.text().await.unwrap() }
}

/// The CSRF value of the page (`<meta name="studio-csrf" content="...">`).
fn csrf_of(page: &str) -> String {
    let start = page.find("name=\"studio-csrf\" content=\"").expect("csrf meta") + 28;
    page[start..].split('"').next().unwrap().to_string()
}

fn assert_csp(headers: &HeaderMap) {
    let csp = headers.get("content-security-policy").expect("a CSP").to_str().unwrap();
    for directive in
        ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]
    {
        assert!(csp.contains(directive), "{directive} in {csp}");
    }
    assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval") && !csp.contains("http"), "{csp}");
    assert_eq!(headers["x-content-type-options"], "nosniff");
}

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

/// The signed payload of a cookie value (`<expiry>.<payload>.<tag>`).
mod base64_url {
    pub fn decode_payload(cookie: &str) -> String {
        let payload = cookie.split('.').nth(1).unwrap();
        let mut bits = 0u32;
        let mut count = 0;
        let mut out = Vec::new();
        for c in payload.bytes() {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'a'..=b'z' => c - b'a' + 26,
                b'0'..=b'9' => c - b'0' + 52,
                b'-' => 62,
                b'_' => 63,
                _ => panic!("not base64url"),
            };
            bits = (bits << 6) | u32::from(v);
            count += 6;
            if count >= 8 {
                count -= 8;
                out.push((bits >> count) as u8);
                bits &= (1 << count) - 1;
            }
        }
        String::from_utf8(out).unwrap()
    }
}

async fn session_refusals_and_csrf(app: TestApp) {
    let cookie = sign_in(&app).await;
    let page = send(&app, "GET", "/studio/ui", Some(&cookie), &[], None).await;
    let csrf = csrf_of(&page.body);
    let payload = decode_payload(&cookie);

    // Forged, tampered, expired, signed with another secret: refused (401), the page shows the sign-in form again.
    let eight_hours = Duration::from_secs(8 * 3600);
    let expired = SessionSigner::new(SECRET)
        .with_ttl(eight_hours)
        .sign_at(&payload, SystemTime::now() - eight_hours - Duration::from_secs(5));
    let foreign = SessionSigner::new("another secret altogether, 32 b.").with_ttl(eight_hours).sign(&payload);
    let (expiry, rest) = cookie.split_once('.').unwrap();
    let extended = format!("{}.{rest}", expiry.parse::<u64>().unwrap() + 3600);
    let valid_other_payload = SessionSigner::new(SECRET).with_ttl(eight_hours).sign("made-up-csrf~0000");
    for (what, bad) in [
        ("forged", "forged-value".to_string()),
        ("expired", expired),
        ("foreign key", foreign),
        ("extended expiry", extended),
        ("right key, unknown token fingerprint", valid_other_payload),
    ] {
        for path in ["/studio/handshake", "/ai/context/full", "/studio/session"] {
            let sent = send(&app, "GET", path, Some(&bad), &[], None).await;
            assert_eq!(sent.status, StatusCode::UNAUTHORIZED, "{what} {path}: {}", sent.body);
            assert_eq!(code(&sent.body), "session_invalid", "{what} {path}");
            assert!(
                sent.headers.get_all(SET_COOKIE).iter().any(|c| c.to_str().unwrap().contains("Max-Age=0")),
                "cleared"
            );
        }
        let page = send(&app, "GET", "/studio/ui", Some(&bad), &[], None).await;
        assert_eq!(page.status, StatusCode::UNAUTHORIZED, "{what}");
        assert!(page.body.contains("type=\"password\""), "{what}: the sign-in form");
        let write = send(
            &app,
            "POST",
            "/ai/query/execute",
            Some(&bad),
            &[("x-studio-csrf", &csrf)],
            Some(json!({"viewset": "posts"})),
        )
        .await;
        assert_eq!(write.status, StatusCode::UNAUTHORIZED, "{what}");
    }
    let expired_page = send(
        &app,
        "GET",
        "/studio/ui",
        Some(&SessionSigner::new(SECRET).sign_at(&payload, SystemTime::now() - Duration::from_secs(13 * 3600))),
        &[],
        None,
    )
    .await;
    assert!(expired_page.body.contains("The Studio session has expired."), "{}", expired_page.body);

    // CSRF: a session write without the header, or with another value, is refused; with it, it runs.
    let query = json!({"viewset": "posts", "filters": {"views__gte": 10}, "ordering": "-views"});
    let missing = send(&app, "POST", "/ai/query/execute", Some(&cookie), &[], Some(query.clone())).await;
    assert_eq!(missing.status, StatusCode::FORBIDDEN, "{}", missing.body);
    assert_eq!(code(&missing.body), "csrf_failed");
    let other = send(
        &app,
        "POST",
        "/ai/query/execute",
        Some(&cookie),
        &[("x-studio-csrf", "not-the-value")],
        Some(query.clone()),
    )
    .await;
    assert_eq!(other.status, StatusCode::FORBIDDEN);
    let mcp = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let accept = ("accept", "application/json, text/event-stream");
    let mcp_refused = send(&app, "POST", "/ai/tools/mcp", Some(&cookie), &[accept], Some(mcp.clone())).await;
    assert_eq!(mcp_refused.status, StatusCode::FORBIDDEN, "the MCP endpoint too");
    let ran = send(&app, "POST", "/ai/query/execute", Some(&cookie), &[("x-studio-csrf", &csrf)], Some(query)).await;
    assert_eq!(ran.status, StatusCode::OK, "{}", ran.body);
    let rows = ran.json()["rows"].clone();
    let titles: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["Computing Machinery and Intelligence", "Notes on the Analytical Engine"]);
    let listed =
        send(&app, "POST", "/ai/tools/mcp", Some(&cookie), &[accept, ("x-studio-csrf", &csrf)], Some(mcp)).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", listed.body);
    // GETs need no CSRF header.
    assert_eq!(send(&app, "GET", "/studio/health", Some(&cookie), &[], None).await.status, StatusCode::OK);

    // The session is no identity: a write through MCP as the session alone runs anonymous and is refused by policy.
    let update = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "posts_update", "arguments": {"pk": 1, "body": {"title": "x"}}}});
    let denied =
        send(&app, "POST", "/ai/tools/mcp", Some(&cookie), &[accept, ("x-studio-csrf", &csrf)], Some(update.clone()))
            .await
            .json();
    assert_eq!(denied["result"]["isError"], true, "{denied}");
    assert_eq!(denied["result"]["structuredContent"]["status"], 403);
    // With the application's own identity beside the session, the same call is allowed.
    let allowed = send(
        &app,
        "POST",
        "/ai/tools/mcp",
        Some(&cookie),
        &[accept, ("x-studio-csrf", &csrf), ("authorization", "Bearer bob-token")],
        Some(update),
    )
    .await
    .json();
    assert_eq!(allowed["result"]["structuredContent"]["status"], 200, "{allowed}");

    // Origin: a disallowed one is 403 even with a valid session; the page's own origin and an allowed one pass.
    let evil = send(&app, "GET", "/studio/handshake", Some(&cookie), &[("origin", "http://evil.example")], None).await;
    assert_eq!(evil.status, StatusCode::FORBIDDEN);
    assert_eq!(code(&evil.body), "origin_not_allowed");
    let evil_sign_in = send(
        &app,
        "POST",
        "/studio/session",
        None,
        &[("origin", "http://evil.example")],
        Some(json!({"token": TOKEN})),
    )
    .await;
    assert_eq!(evil_sign_in.status, StatusCode::FORBIDDEN, "no sign-in from another site");
    let own = app.base.clone();
    let same = send(
        &app,
        "POST",
        "/ai/query/execute",
        Some(&cookie),
        &[("origin", &own), ("x-studio-csrf", &csrf)],
        Some(json!({"viewset": "posts"})),
    )
    .await;
    assert_eq!(same.status, StatusCode::OK, "{}", same.body);
    let allowed_origin =
        send(&app, "GET", "/studio/health", Some(&cookie), &[("origin", "http://studio.local")], None).await;
    assert_eq!(allowed_origin.status, StatusCode::OK);

    // A changed Studio token ends the sessions made for the old one.
    let rotated = StudioSettings { studio_auth_token: Some("a-new-studio-token".into()), ..ui_settings() };
    let app2 = blog_with_studio(Backend::Sqlite, rotated).await;
    let sent = send(&app2, "GET", "/studio/handshake", Some(&cookie), &[], None).await;
    assert_eq!(sent.status, StatusCode::UNAUTHORIZED);
    assert!(sent.body.contains("earlier Studio token"), "{}", sent.body);
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
    assert_eq!((before["applied_migrations"].as_u64(), before["pending_migrations"].as_u64()), (Some(2), Some(5)));

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
    let staging = StudioSettings { environment: Environment::Staging, ..ui_settings() };
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
            ("SERVICE_STUDIO_SECRET_TOKEN", SECRET),
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
    open.studio_secret_token = Some(SECRET.into());
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

mod browser {
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
}

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
    click(&client, &format!("{records} button"), "+ Filter").await;
    find(&client, &format!("{records} .filter select")).await.select_by_value("published").await.unwrap();
    let lookup = client.find_all(Locator::Css(&format!("{records} .filter select"))).await.unwrap().remove(1);
    lookup.select_by_value("published").await.unwrap();
    fill(&client, &format!("{records} .filter input"), "false").await;
    click(&client, &format!("{records} button"), "Apply").await;
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

    // The same write as anonymous: the policy's 403 reason is shown.
    act_as(&client, "").await;
    fill(&client, "form.record input[name=title]", "Anonymous edit").await;
    click(&client, "form.record button", "Save").await;
    text(&client, "form.record .alert", "Authentication credentials were not provided.").await;
    text(&client, "form.record .alert", "403").await;
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

    // Migration Manager: the blog's two migrations, applied, as a graph.
    open(&client, "Migration Manager", "migration-manager").await;
    find(&client, "svg g[data-migration=m0002_create_posts] rect.applied.head").await;
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
    text(&client, "section[aria-label=Result] h3", "Denied or failed: 403").await;
    screenshot(&client, "5-ai-console").await;
    find(&client, "select[aria-label=Tool]").await.select_by_value("posts_list").await.unwrap();
    click(&client, "[data-panel=ai-console] button", "Run tool").await;
    text(&client, "section[aria-label=Result] pre[data-status=\"200\"]", "Computing Machinery").await;

    // Runtime Panel: health, the capabilities, and the edit's event in the live feed.
    open(&client, "Runtime Panel", "runtime-panel").await;
    find(&client, "[data-status=healthy]").await;
    text(&client, "section[aria-label=Health]", "sqlite").await;
    let caps = find(&client, "[data-capabilities]").await.attr("data-capabilities").await.unwrap().unwrap();
    assert!(caps.contains("write_data") && caps.contains("admin_access"), "{caps}");
    text(&client, "section[aria-label='Live events'] li[data-event=updated]", "edited in Studio").await;
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
    let log = browser::log(&client).await;
    let unexpected: Vec<&(String, String)> = log
        .iter()
        .filter(|(level, message)| {
            level == "SEVERE"
                && !(message.contains("Failed to load resource")
                    && ["status of 401", "status of 403", "status of 422"].iter().any(|s| message.contains(s)))
        })
        .collect();
    assert!(unexpected.is_empty(), "console errors: {unexpected:?}");

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
    client.goto(&format!("{}/studio/ui#migration-manager", app.base)).await.unwrap();
    find(&client, "input[type=password]").await.send_keys(TOKEN).await.unwrap();
    find(&client, "button[type=submit]").await.click().await.unwrap();
    find(&client, "[data-panel=\"model-browser\"][data-ready=\"true\"]").await;
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
    let summary = send(&app, "GET", "/studio/migrations/summary", None, &[("x-studio-token", TOKEN)], None).await;
    assert_eq!(summary.json()["applied_migrations"], 5);
    client.close().await.unwrap();
}
