//! Demo-only authentication: maps bearer tokens to principals. A real application verifies its own tokens or
//! sessions here; the framework only reads the `Principal` this middleware attaches.
//!
//! Tokens (override with `BLOG_ALICE_TOKEN` / `BLOG_BOB_TOKEN`): `alice-token` (staff), `bob-token`.
//! A request without a valid token is anonymous.

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::Response;
use viewset_core::Principal;

/// Known demo tokens and the principals they stand for.
#[derive(Clone, Debug)]
pub struct DemoTokens(pub Vec<(String, Principal)>);

impl DemoTokens {
    /// The demo users, with tokens from the environment when set.
    pub fn from_env() -> Self {
        let token = |var: &str, default: &str| std::env::var(var).unwrap_or_else(|_| default.to_string());
        DemoTokens(vec![
            (token("BLOG_ALICE_TOKEN", "alice-token"), Principal::user("alice").staff()),
            (token("BLOG_BOB_TOKEN", "bob-token"), Principal::user("bob")),
        ])
    }
}

/// Attaches the principal of a valid `Authorization: Bearer <token>`, if any.
pub async fn authenticate(State(tokens): State<DemoTokens>, mut request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    if let Some(presented) = presented
        && let Some((_, principal)) = tokens.0.iter().find(|(token, _)| token == presented)
    {
        request.extensions_mut().insert(principal.clone());
    }
    next.run(request).await
}
