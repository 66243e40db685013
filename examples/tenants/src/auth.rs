//! Demo-only authentication: bearer tokens mapped to principals in two tenants. A real application verifies its
//! own credentials here; the framework only reads the `Principal` this middleware attaches.

use axum::extract::Request;
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::Response;
use viewset_core::Principal;

/// The demo principal of a token: `acme-alice` (staff), `acme-bob`, `globex-carol`, `nobody-dave` (no tenant).
pub fn principal_of(token: &str) -> Option<Principal> {
    Some(match token {
        "acme-alice" => Principal::user("alice").with_tenant("acme").staff(),
        "acme-bob" => Principal::user("bob").with_tenant("acme"),
        "globex-carol" => Principal::user("carol").with_tenant("globex"),
        "nobody-dave" => Principal::user("dave"),
        _ => return None,
    })
}

/// Attaches the principal of a valid `Authorization: Bearer <token>`, if any.
pub async fn authenticate(mut request: Request, next: Next) -> Response {
    let principal = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .and_then(principal_of);
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal);
    }
    next.run(request).await
}
