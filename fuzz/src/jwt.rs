//! Target `jwt_token`: the input as the bearer token of a request through `Authenticate::jwt` (feature `jwt`) on
//! static keys: an HMAC secret (`kid` `hs`) and an RSA public key (`kid` `rsa`, RFC 7517's example), so the token's
//! shape, its header, the key choice (a `kid` of another algorithm: HS256 with the RSA key), the signature and the
//! claims are all reached. [`self_check`] proves at start-up that a token signed with the secret passes, so the
//! target cannot silently stop before the signature.
//!
//! Checks: no panic; the answer is 200 (a token that verifies) or a 401 `invalid_token` whose body and challenge are
//! short (a fixed description naming the check: the token is never echoed), never anything else.

use std::sync::OnceLock;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, StatusCode, header};
use tower::ServiceExt;
use viewset_core::auth::Authenticate;
use viewset_core::auth::jwt::JwtConfig;

/// A token signed with the harness's secret (`sub` `fuzz`, expiring in 2100), accepted by the target.
pub const VALID: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImhzIn0.eyJzdWIiOiJmdXp6IiwiZXhwIjo0MTAyNDQ0ODAwLCJzY29wZSI6InBvc3RzOndyaXRlIiwicmVhbG1fYWNjZXNzIjp7InJvbGVzIjpbImFkbWluIl19fQ.gQD_hU7gCwKkROSb9aCq-zUdsRP0eVwgmJ_c6pxymQk";

/// The longest description a refusal may carry (the longest fixed one names a claim path of the configuration).
const MAX_DESCRIPTION: usize = 160;

struct App {
    runtime: tokio::runtime::Runtime,
    router: Router,
}

fn app() -> &'static App {
    static APP: OnceLock<App> = OnceLock::new();
    APP.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
        // "fuzz-only secret, never a real one", base64url.
        let keys = r#"{"keys": [
            {"kty": "oct", "kid": "hs", "k": "ZnV6ei1vbmx5IHNlY3JldCwgbmV2ZXIgYSByZWFsIG9uZQ"},
            {"kty": "RSA", "kid": "rsa", "e": "AQAB", "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"}
        ]}"#;
        let config = JwtConfig::jwks(keys).any_audience().roles_claim("realm_access.roles").staff_role("admin");
        let auth = Authenticate::jwt(config).expect("the harness's JWT configuration");
        let router = Router::new().route("/", axum::routing::get(|| async { "ok" })).layer(auth);
        App { runtime, router }
    })
}

/// The status, body and challenge of a request bearing `token`.
fn send(token: &str) -> Option<(StatusCode, String, Option<String>)> {
    let value = HeaderValue::from_str(&format!("Bearer {token}")).ok()?;
    let request = Request::get("/").header(header::AUTHORIZATION, value).body(Body::empty()).ok()?;
    let app = app();
    Some(app.runtime.block_on(async {
        let response = app.router.clone().oneshot(request).await.expect("infallible");
        let status = response.status();
        let challenge = response.headers().get(header::WWW_AUTHENTICATE).map(|v| v.to_str().unwrap().to_string());
        let body = axum::body::to_bytes(response.into_body(), 1 << 16).await.expect("a body");
        (status, String::from_utf8_lossy(&body).into_owned(), challenge)
    }))
}

/// Proves that [`VALID`] passes; panics otherwise.
pub fn self_check() {
    let (status, body, _) = send(VALID).expect("a valid header");
    assert_eq!(status, StatusCode::OK, "the harness's own token is refused: {body}");
}

/// Runs one input.
pub fn run(data: &[u8]) {
    let Ok(token) = std::str::from_utf8(data) else { return };
    let Some((status, body, challenge)) = send(token) else { return };
    match status {
        StatusCode::OK => {}
        StatusCode::UNAUTHORIZED => {
            let json: serde_json::Value = serde_json::from_str(&body).expect("a JSON error");
            assert_eq!(json["code"], "invalid_token", "{body}");
            let detail = json["detail"].as_str().expect("a detail");
            let challenge = challenge.expect("a challenge");
            assert!(detail.len() <= MAX_DESCRIPTION, "a long detail (the token echoed?): {detail}");
            assert!(challenge.starts_with(r#"Bearer error="invalid_token", error_description=""#), "{challenge}");
            assert!(challenge.len() <= MAX_DESCRIPTION + 60, "a long challenge: {challenge}");
        }
        other => panic!("{other} for a bearer token: {body}"),
    }
}
