//! Helpers of the Studio UI's HTTP tests (`studio_ui.rs`, `studio_ui_sessions.rs`): a client that follows no
//! redirect, the sign-in, requests with a session cookie and CSRF header, the page's CSRF value and CSP.
#![allow(dead_code)]

use std::collections::BTreeSet;

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, SET_COOKIE};
use serde_json::Value;
use viewset_tests::harness::TestApp;
use viewset_tests::studio_fixtures::TOKEN;

/// A client that follows no redirect (to see the sign-in's 303 and its cookies).
pub fn client() -> reqwest::Client {
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// `POST /studio/session` with the form field `token`, as the sign-in page sends it.
pub async fn post_form(app: &TestApp, token: &str) -> reqwest::Response {
    let body = form_urlencoded::Serializer::new(String::new()).append_pair("token", token).finish();
    let request = client().post(format!("{}/studio/session", app.base));
    request.header("content-type", "application/x-www-form-urlencoded").body(body).send().await.unwrap()
}

/// Signs in with the form and returns the cookie value (`studio_session=...` pairs checked).
pub async fn sign_in(app: &TestApp) -> String {
    let response = post_form(app, TOKEN).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    assert_eq!(response.headers()["location"], "/studio/ui");
    session_cookie(response.headers())
}

/// The `studio_session` value of `Set-Cookie`, after checking both cookies' flags.
pub fn session_cookie(headers: &HeaderMap) -> String {
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

pub struct Sent {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Sent {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {}", self.body))
    }
}

/// A request with an optional session cookie, CSRF header, Origin and JSON body.
pub async fn send(
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
pub fn csrf_of(page: &str) -> String {
    let start = page.find("name=\"studio-csrf\" content=\"").expect("csrf meta") + 28;
    page[start..].split('"').next().unwrap().to_string()
}

pub fn assert_csp(headers: &HeaderMap) {
    let csp = headers.get("content-security-policy").expect("a CSP").to_str().unwrap();
    for directive in
        ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]
    {
        assert!(csp.contains(directive), "{directive} in {csp}");
    }
    assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval") && !csp.contains("http"), "{csp}");
    assert_eq!(headers["x-content-type-options"], "nosniff");
}

/// The signed payload of a cookie value (`<expiry>.<payload>.<tag>`).
pub mod base64_url {
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
