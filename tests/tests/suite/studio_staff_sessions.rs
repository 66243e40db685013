//! Staff sessions without glue code, over real HTTP against the blog on SQLite and PostgreSQL: a `studio_staff`
//! cookie signed with `viewset_core::session::SessionSigner` under the Studio secret, payload `staff:<user>`, admits
//! with no hook; a non-staff, expired, tampered or foreign-key cookie is refused with the usual JSON 401; without a
//! secret the cookie is nothing; the application's own hook keeps working beside it; and the cookie opens Studio's
//! door without becoming an identity. The guide (studio.md) shows the cookie being made exactly as here.

use std::time::{Duration, SystemTime};

use reqwest::header::SET_COOKIE;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_core::session::SessionSigner;
use viewset_studio::{STAFF_COOKIE, STUDIO_PATHS, staff_payload};
use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{UI_SECRET, admitted, blog_with_studio, blog_with_ui, code, with_auth};

on_every_database!(blog_with_ui => a_signed_staff_cookie_admits_and_bad_ones_are_refused);
on_every_database!(without_a_secret => without_a_secret_the_cookie_is_nothing);

async fn without_a_secret(backend: Backend) -> TestApp {
    blog_with_studio(backend, with_auth()).await
}

/// The cookie header of a staff session for `user`, made as the guide shows.
fn staff_cookie(signer: &SessionSigner, payload: &str) -> String {
    let set_cookie = format!("studio_staff={}; Path=/; HttpOnly; SameSite=Strict", signer.sign(payload));
    set_cookie.split(';').next().unwrap().to_string()
}

/// `method path` with `cookie` (and `origin`): status, body and whether a `Set-Cookie` touched the staff cookie.
async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    cookie: &str,
    body: Option<Value>,
) -> (StatusCode, String, bool) {
    let mut request = app.client().request(method, format!("{}{path}", app.base)).header("cookie", cookie);
    request = request.header("accept", "application/json, text/event-stream");
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("request");
    let status = response.status();
    let touched = response.headers().get_all(SET_COOKIE).iter().any(|c| c.to_str().unwrap().contains(STAFF_COOKIE));
    (status, response.text().await.expect("body"), touched)
}

#[test]
fn the_guide_makes_the_cookie_studio_reads() {
    let readme = viewset_tests::docs::page("studio.md");
    assert_eq!((STAFF_COOKIE, staff_payload("alice").as_str()), ("studio_staff", "staff:alice"));
    assert!(
        readme.contains(r#"format!("studio_staff={}; Path=/; HttpOnly; SameSite=Strict", signer.sign("staff:alice"))"#)
    );
}

async fn a_signed_staff_cookie_admits_and_bad_ones_are_refused(app: TestApp) {
    let signer = SessionSigner::new(UI_SECRET);
    let staff = staff_cookie(&signer, &staff_payload("alice"));
    for path in STUDIO_PATHS.iter().chain(&["/ai/tools", "/ai/context/full"]) {
        let (status, body, _) = send(&app, Method::GET, path, &format!("theme=dark; {staff}"), None).await;
        assert_eq!(status, admitted(path), "{path}: {body}");
    }
    let (_, described, _) = send(&app, Method::GET, "/studio/session", &staff, None).await;
    let described: Value = serde_json::from_str(&described).unwrap();
    assert_eq!(described, json!({"authenticated": true, "via": "staff_session", "csrf": null, "user": "alice"}));
    // A door, not an identity: an MCP call with the staff cookie alone is anonymous (authors need an identity).
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "authors_list", "arguments": {}}});
    let (status, body, _) = send(&app, Method::POST, "/ai/tools/mcp", &staff, Some(call)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let result: Value = serde_json::from_str(&body).unwrap();
    let anonymous = app.get("/authors/").await.0.as_u16();
    assert_eq!(result["result"]["structuredContent"]["status"], anonymous, "{body}");

    let expired = signer.sign_at(&staff_payload("alice"), SystemTime::now() - Duration::from_secs(13 * 3600));
    let token = signer.sign(&staff_payload("alice"));
    let (expiry, rest) = token.split_once('.').unwrap();
    let tampered = format!("{}.{rest}", expiry.parse::<u64>().unwrap() + 3600);
    let foreign = SessionSigner::new("another secret altogether, 32 b.").sign(&staff_payload("alice"));
    for (what, cookie, reason) in [
        ("non-staff", staff_cookie(&signer, "user:bob"), "does not name a staff user"),
        ("expired", format!("{STAFF_COOKIE}={expired}"), "has expired"),
        ("tampered", format!("{STAFF_COOKIE}={tampered}"), "is not valid"),
        ("wrong key", format!("{STAFF_COOKIE}={foreign}"), "is not valid"),
    ] {
        for path in ["/studio/handshake", "/ai/tools", "/studio/session"] {
            let (status, body, touched) = send(&app, Method::GET, path, &cookie, None).await;
            assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, "session_invalid".into()), "{what} {path}");
            let detail = serde_json::from_str::<Value>(&body).unwrap()["detail"].as_str().unwrap().to_string();
            assert!(detail.contains(reason), "{what} {path}: {detail}");
            assert!(!touched, "the application's cookie is its own to clear");
        }
    }
    // The application's own hook still admits beside it.
    let (status, _, _) = send(&app, Method::GET, "/studio/handshake", "blog_session=alice-token", None).await;
    assert_eq!(status, StatusCode::OK);
}

async fn without_a_secret_the_cookie_is_nothing(app: TestApp) {
    let cookie = staff_cookie(&SessionSigner::new(UI_SECRET), &staff_payload("alice"));
    let (status, body, _) = send(&app, Method::GET, "/studio/handshake", &cookie, None).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, "not_authenticated".into()), "{body}");
}
