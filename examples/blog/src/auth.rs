//! The blog's authentication: demo bearer tokens, or JWT access tokens of a real identity provider when
//! `SERVICE_JWT_ISSUER` (or `SERVICE_JWT_JWKS_URL`) is set. The framework only reads the `Principal` it attaches.
//!
//! Demo tokens (override with `BLOG_ALICE_TOKEN` / `BLOG_BOB_TOKEN`): `alice-token` (staff), `bob-token`.
//! A request without a valid demo token is anonymous (the demo keeps a wrong token anonymous too, so the tests can
//! compare the two; `Authenticate`'s default answers it 401).
//!
//! With `SERVICE_JWT_ISSUER`, `SERVICE_JWT_AUDIENCE` and the claim paths of
//! [`JwtConfig::from_vars`](viewset_core::auth::jwt::JwtConfig::from_vars) (`SERVICE_JWT_STAFF_CLAIM`,
//! `SERVICE_JWT_ROLES_CLAIMS`, `SERVICE_JWT_STAFF_ROLES`, `SERVICE_JWT_TENANT_CLAIM`, …), tokens are verified
//! against the provider's published keys instead, and a refused token is a 401 `invalid_token` (README,
//! "Tokens from an identity provider").
//!
//! With `SERVICE_JWT_ISSUER` and `SERVICE_STUDIO_PUBLIC_URL` (Studio's origin, `https://blog.example.com`), Studio's
//! MCP endpoint also admits the provider's access tokens issued for it ([`mcp_from_vars`]): the MCP authorization
//! flow of an MCP client completes against that provider.

use viewset_core::Principal;
use viewset_core::auth::Authenticate;
use viewset_core::auth::jwt::{JwtConfig, JwtError};
use viewset_studio::{McpTokens, Studio};

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

/// The blog's authentication layer from the environment ([`layer_from_vars`]); `main` checks the settings
/// before it listens, so an invalid `SERVICE_JWT_*` setting panics here only in an application that skipped that.
pub fn layer() -> Authenticate {
    layer_from_vars(|name| std::env::var(name).ok()).unwrap_or_else(|error| panic!("{error}"))
}

/// Verified JWTs when `var` names an issuer or a JWKS URL (`SERVICE_JWT_*`), else the demo tokens:
/// `Authorization: Bearer <demo token>` → its principal, anything else anonymous.
pub fn layer_from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Authenticate, JwtError> {
    if let Some(config) = JwtConfig::from_vars(var)? {
        return Authenticate::jwt(config);
    }
    let tokens = DemoTokens::from_env();
    Ok(Authenticate::bearer(move |token| std::future::ready(tokens.principal(&token))).refused_as_anonymous())
}

/// `studio` with MCP authorization from `var`: when `SERVICE_JWT_ISSUER` (the authorization server) and
/// `SERVICE_STUDIO_PUBLIC_URL` (Studio's origin) are set, the protected resource metadata of `/ai/tools/mcp` names
/// the issuer, and the endpoint admits that provider's access tokens whose audience is
/// `<SERVICE_STUDIO_PUBLIC_URL>/ai/tools/mcp` ([`Studio::mcp_tokens`], with the claim paths of `SERVICE_JWT_*`) and
/// that carry every scope of `SERVICE_MCP_SCOPES` (comma-separated, e.g. `mcp:tools`; none by default).
/// `studio` unchanged otherwise.
///
/// ```
/// let vars = |name: &str| match name {
///     "SERVICE_JWT_ISSUER" => Some("https://id.example.com".to_string()),
///     "SERVICE_JWT_AUDIENCE" => Some("https://blog.example.com".to_string()),
///     "SERVICE_STUDIO_PUBLIC_URL" => Some("https://blog.example.com".to_string()),
///     "SERVICE_MCP_SCOPES" => Some("mcp:tools".to_string()),
///     _ => None,
/// };
/// let studio = blog::auth::mcp_from_vars(viewset_studio::Studio::new(Default::default()), vars).unwrap();
/// # let _ = studio;
/// ```
pub fn mcp_from_vars(studio: Studio, var: impl Fn(&str) -> Option<String>) -> Result<Studio, JwtError> {
    let set = |name: &str| var(name).filter(|value| !value.trim().is_empty());
    let (Some(issuer), Some(public_url)) = (set("SERVICE_JWT_ISSUER"), set("SERVICE_STUDIO_PUBLIC_URL")) else {
        return Ok(studio);
    };
    let Some(config) = JwtConfig::from_vars(&var)? else { return Ok(studio) };
    let scopes = set("SERVICE_MCP_SCOPES").unwrap_or_default();
    let tokens = scopes
        .split(',')
        .map(str::trim)
        .filter(|scope| !scope.is_empty())
        .fold(McpTokens::new(config), |tokens, scope| tokens.require_scope(scope));
    Ok(studio.public_url(&public_url).authorization_servers([issuer]).mcp_tokens(tokens))
}
