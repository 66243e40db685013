//! Demo-only authentication: bearer tokens mapped to principals in two tenants. A real application verifies its
//! own credentials in the verifier it gives [`Authenticate`]; the framework only reads the `Principal` it attaches.

use viewset_core::Principal;
use viewset_core::auth::Authenticate;

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

/// The tenants' authentication layer: `Authorization: Bearer <demo token>` → its principal; anything else anonymous
/// (the demo keeps a wrong token anonymous, as the blog does).
pub fn layer() -> Authenticate {
    Authenticate::bearer(|token| std::future::ready(principal_of(&token))).refused_as_anonymous()
}
