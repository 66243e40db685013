//! Studio sessions over real HTTP against the blog, on SQLite and PostgreSQL: forged, tampered, expired and
//! foreign cookies refused, a rotated Studio token ending every session, CSRF required on every cookie write
//! (queries, MCP, sign-out, migration apply), the token still working as a header.

use std::time::{Duration, SystemTime};

use reqwest::StatusCode;
use reqwest::header::SET_COOKIE;
use serde_json::json;
use viewset_core::session::SessionSigner;
use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{TOKEN, UI_SECRET, blog_with_studio, blog_with_ui, code, ui_settings};

use crate::support::ui_http;
use ui_http::base64_url::decode_payload;
use ui_http::{csrf_of, send, sign_in};

on_every_database!(blog_with_ui => session_refusals_and_csrf);

async fn session_refusals_and_csrf(app: TestApp) {
    let cookie = sign_in(&app).await;
    let page = send(&app, "GET", "/studio/ui", Some(&cookie), &[], None).await;
    let csrf = csrf_of(&page.body);
    let payload = decode_payload(&cookie);

    // Forged, tampered, expired, signed with another secret: refused (401), the page shows the sign-in form again.
    let eight_hours = Duration::from_secs(8 * 3600);
    let expired = SessionSigner::new(UI_SECRET)
        .with_ttl(eight_hours)
        .sign_at(&payload, SystemTime::now() - eight_hours - Duration::from_secs(5));
    let foreign = SessionSigner::new("another secret altogether, 32 b.").with_ttl(eight_hours).sign(&payload);
    let (expiry, rest) = cookie.split_once('.').unwrap();
    let extended = format!("{}.{rest}", expiry.parse::<u64>().unwrap() + 3600);
    let valid_other_payload = SessionSigner::new(UI_SECRET).with_ttl(eight_hours).sign("made-up-csrf~0000");
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
        Some(&SessionSigner::new(UI_SECRET).sign_at(&payload, SystemTime::now() - Duration::from_secs(13 * 3600))),
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
    assert_eq!(denied["result"]["structuredContent"]["status"], 401);
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
    let mut rotated = ui_settings();
    rotated.studio_auth_token = Some("a-new-studio-token".into());
    let app2 = blog_with_studio(Backend::Sqlite, rotated).await;
    let sent = send(&app2, "GET", "/studio/handshake", Some(&cookie), &[], None).await;
    assert_eq!(sent.status, StatusCode::UNAUTHORIZED);
    assert!(sent.body.contains("earlier Studio token"), "{}", sent.body);
}
