//! Demo-only authentication: maps bearer tokens to principals. A real application verifies its own tokens or
//! sessions in the verifier it gives [`Authenticate`]; the framework only reads the `Principal` it attaches.
//!
//! Tokens (override with `BLOG_ALICE_TOKEN` / `BLOG_BOB_TOKEN`): `alice-token` (staff), `bob-token`.
//! A request without a valid token is anonymous (the demo keeps a wrong token anonymous too, so the tests can
//! compare the two; `Authenticate`'s default answers it 401).

use viewset_core::Principal;
use viewset_core::auth::Authenticate;

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

    /// The principal of `token`, if it is one of the demo tokens.
    pub fn principal(&self, token: &str) -> Option<Principal> {
        self.0.iter().find(|(known, _)| known == token).map(|(_, principal)| principal.clone())
    }
}

/// The blog's authentication layer: `Authorization: Bearer <demo token>` → its principal; anything else anonymous.
pub fn layer() -> Authenticate {
    let tokens = DemoTokens::from_env();
    Authenticate::bearer(move |token| std::future::ready(tokens.principal(&token))).refused_as_anonymous()
}
