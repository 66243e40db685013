//! [`JwtConfig`]: where the keys are, what a token must claim, where the principal is read (module docs:
//! [`jwt`](super::jwt)).

use std::time::Duration;

use super::claims::ClaimPaths;
use super::remote::{CachePolicy, Location};

/// Where a configuration's keys come from.
#[derive(Debug, Clone)]
pub(super) enum Keys {
    Remote(Location),
    Jwks(String),
    Pem(Vec<u8>),
    Secret(Vec<u8>),
}

/// What [`Authenticate::jwt`](crate::auth::Authenticate::jwt) checks and how it reads the principal; see the [module](crate::auth::jwt).
///
/// ```
/// use std::time::Duration;
/// use viewset_core::auth::jwt::JwtConfig;
///
/// // Auth0: an API identifier as the audience, namespaced custom claims, permissions as scopes.
/// let _auth0 = JwtConfig::issuer("https://tenant.eu.auth0.com/")
///     .audience("https://api.example.com")
///     .tenant_claim("https://example.com/tenant")
///     .staff_claim("https://example.com/staff")
///     .scopes_claims(["scope", "permissions"])
///     .leeway(Duration::from_secs(30));
/// ```
#[derive(Debug, Clone)]
pub struct JwtConfig {
    pub(super) keys: Keys,
    pub(super) issuers: Vec<String>,
    pub(super) audiences: Vec<String>,
    pub(super) any_audience: bool,
    pub(super) algorithms: Option<Vec<String>>,
    pub(super) leeway: Duration,
    pub(super) required: Vec<String>,
    pub(super) paths: ClaimPaths,
    pub(super) max_token_bytes: usize,
    pub(super) policy: CachePolicy,
}

impl JwtConfig {
    fn with_keys(keys: Keys) -> Self {
        JwtConfig {
            keys,
            issuers: Vec::new(),
            audiences: Vec::new(),
            any_audience: false,
            algorithms: None,
            leeway: Duration::from_secs(60),
            required: Vec::new(),
            paths: ClaimPaths::default(),
            max_token_bytes: 8 * 1024,
            policy: CachePolicy {
                floor: Duration::from_secs(60),
                ceiling: Duration::from_secs(24 * 3600),
                default_ttl: Duration::from_secs(600),
                refetch_interval: Duration::from_secs(10),
                timeout: Duration::from_secs(5),
            },
        }
    }

    /// Keys from OpenID Connect discovery of `issuer` (its `jwks_uri`); tokens must carry `iss` = `issuer`.
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::issuer("https://id.example.com/realms/blog").audience("blog-api");
    /// assert!(viewset_core::auth::Authenticate::jwt(config).is_ok());
    /// ```
    pub fn issuer(issuer: impl Into<String>) -> Self {
        let issuer = issuer.into();
        JwtConfig { issuers: vec![issuer.clone()], ..Self::with_keys(Keys::Remote(Location::Discovery(issuer))) }
    }
    /// Keys from the JWKS at `url` (add [`expect_issuer`](Self::expect_issuer) to check `iss`).
    ///
    /// ```
    /// use viewset_core::auth::jwt::JwtConfig;
    /// let config = JwtConfig::jwks_url("https://id.example.com/keys").expect_issuer("https://id.example.com").audience("api");
    /// assert!(viewset_core::auth::Authenticate::jwt(config).is_ok());
    /// ```
    pub fn jwks_url(url: impl Into<String>) -> Self {
        Self::with_keys(Keys::Remote(Location::Jwks(url.into())))
    }
    /// Static keys: a JWKS document (`{"keys": [...]}`) or one JWK, as JSON.
    ///
    /// ```
    /// let jwk = r#"{"kty": "oct", "k": "c2VjcmV0", "kid": "test"}"#;
    /// let config = viewset_core::auth::jwt::JwtConfig::jwks(jwk).any_audience();
    /// assert!(viewset_core::auth::Authenticate::jwt(config).is_ok());
    /// ```
    pub fn jwks(json: impl Into<String>) -> Self {
        Self::with_keys(Keys::Jwks(json.into()))
    }
    /// One static public key in PEM (RSA, EC P-256/P-384 or Ed25519).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::pem("not a key").any_audience();
    /// assert!(viewset_core::auth::Authenticate::jwt(config).is_err(), "a PEM that does not parse is an error up front");
    /// ```
    pub fn pem(pem: impl Into<Vec<u8>>) -> Self {
        Self::with_keys(Keys::Pem(pem.into()))
    }
    /// A shared HMAC secret (HS256/384/512): for tests and single-service setups, never with a provider's tokens.
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("test-only secret").any_audience();
    /// assert!(viewset_core::auth::Authenticate::jwt(config).is_ok());
    /// ```
    pub fn hmac_secret(secret: impl Into<Vec<u8>>) -> Self {
        Self::with_keys(Keys::Secret(secret.into()))
    }
    /// Accepts tokens whose `iss` is `issuer` (repeatable: one of several); [`issuer`](Self::issuer) sets it.
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").expect_issuer("https://a.example").expect_issuer("https://b.example");
    /// # let _ = config;
    /// ```
    pub fn expect_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuers.push(issuer.into());
        self
    }
    /// Accepts tokens whose `aud` names `audience` (repeatable: one of several).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::issuer("https://id.example.com").audience("api").audience("https://api.example.com");
    /// # let _ = config;
    /// ```
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }
    /// This configuration with `audience` as its only accepted audience (the ones named before and
    /// [`any_audience`](Self::any_audience) dropped): the same issuer, keys and claim paths for another resource,
    /// such as Studio's MCP endpoint, whose tokens must be issued for it alone (RFC 8707).
    ///
    /// ```
    /// use viewset_core::auth::jwt::JwtConfig;
    /// let api = JwtConfig::issuer("https://id.example.com").audience("https://api.example.com");
    /// let mcp = api.clone().only_audience("https://api.example.com/ai/tools/mcp");
    /// assert_eq!(mcp.audiences(), ["https://api.example.com/ai/tools/mcp"]);
    /// ```
    pub fn only_audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences = vec![audience.into()];
        self.any_audience = false;
        self
    }
    /// The accepted audiences (empty with [`any_audience`](Self::any_audience) alone).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").audience("a").audience("b");
    /// assert_eq!(config.audiences(), ["a", "b"]);
    /// ```
    pub fn audiences(&self) -> &[String] {
        &self.audiences
    }
    /// Accepts any audience: only when every token of this issuer is meant for this API.
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::jwks_url("https://id.example.com/keys").any_audience();
    /// assert!(viewset_core::auth::Authenticate::jwt(config).is_ok());
    /// ```
    pub fn any_audience(mut self) -> Self {
        self.any_audience = true;
        self
    }
    /// Only these algorithms (`RS256`, `ES256`, …), on top of each key's own; `none` is refused by
    /// [`Authenticate::jwt`](crate::auth::Authenticate::jwt).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::issuer("https://id.example.com").audience("api").algorithms(["RS256", "ES256"]);
    /// assert!(viewset_core::auth::Authenticate::jwt(config).is_ok());
    /// ```
    pub fn algorithms<S: Into<String>>(mut self, algorithms: impl IntoIterator<Item = S>) -> Self {
        self.algorithms = Some(algorithms.into_iter().map(Into::into).collect());
        self
    }
    /// The clock skew allowed on `exp` and `nbf` (60 s by default).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").leeway(std::time::Duration::from_secs(5));
    /// # let _ = config;
    /// ```
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }
    /// Refuses tokens without the claim at `path` (repeatable).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").require_claim("email").require_claim("realm_access.roles");
    /// # let _ = config;
    /// ```
    pub fn require_claim(mut self, path: impl Into<String>) -> Self {
        self.required.push(path.into());
        self
    }
    /// The user id's claim path (`sub` by default).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").subject_claim("preferred_username");
    /// # let _ = config;
    /// ```
    pub fn subject_claim(mut self, path: impl Into<String>) -> Self {
        self.paths.subject = path.into();
        self
    }
    /// The tenant's claim path (none by default).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").tenant_claim("https://example.com/tenant");
    /// # let _ = config;
    /// ```
    pub fn tenant_claim(mut self, path: impl Into<String>) -> Self {
        self.paths.tenant = Some(path.into());
        self
    }
    /// A boolean claim whose `true` makes the caller staff.
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").staff_claim("https://example.com/staff");
    /// # let _ = config;
    /// ```
    pub fn staff_claim(mut self, path: impl Into<String>) -> Self {
        self.paths.staff = Some(path.into());
        self
    }
    /// A role that makes the caller staff (repeatable).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").roles_claim("realm_access.roles").staff_role("admin");
    /// # let _ = config;
    /// ```
    pub fn staff_role(mut self, role: impl Into<String>) -> Self {
        self.paths.staff_roles.push(role.into());
        self
    }
    /// A claim path of roles (repeatable; their union): `realm_access.roles`, `roles`, `groups`, ….
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").roles_claim("realm_access.roles").roles_claim("groups");
    /// # let _ = config;
    /// ```
    pub fn roles_claim(mut self, path: impl Into<String>) -> Self {
        self.paths.roles.push(path.into());
        self
    }
    /// The claim paths of scopes (their union; `scope` and `scp` by default).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").scopes_claims(["scope", "permissions"]);
    /// # let _ = config;
    /// ```
    pub fn scopes_claims<S: Into<String>>(mut self, paths: impl IntoIterator<Item = S>) -> Self {
        self.paths.scopes = paths.into_iter().map(Into::into).collect();
        self
    }
    /// The longest token read (8 KiB by default); a longer one is refused before any other check.
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::hmac_secret("s").max_token_bytes(4096);
    /// # let _ = config;
    /// ```
    pub fn max_token_bytes(mut self, bytes: usize) -> Self {
        self.max_token_bytes = bytes;
        self
    }
    /// How long fetched keys are kept, whatever `Cache-Control` says: at least `floor` (60 s by default), at most
    /// `ceiling` (24 h); 10 minutes when the answer has no `max-age`.
    ///
    /// ```
    /// use std::time::Duration;
    /// let config = viewset_core::auth::jwt::JwtConfig::issuer("https://id.example.com")
    ///     .audience("api")
    ///     .cache(Duration::from_secs(300), Duration::from_secs(3600));
    /// # let _ = config;
    /// ```
    pub fn cache(mut self, floor: Duration, ceiling: Duration) -> Self {
        (self.policy.floor, self.policy.ceiling) = (floor, ceiling);
        self
    }
    /// The shortest time between two fetches of the keys (10 s by default): an unknown `kid`, a stale set or an
    /// unreachable provider asks again at most this often.
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::issuer("https://id.example.com")
    ///     .audience("api")
    ///     .refetch_interval(std::time::Duration::from_secs(30));
    /// # let _ = config;
    /// ```
    pub fn refetch_interval(mut self, interval: Duration) -> Self {
        self.policy.refetch_interval = interval;
        self
    }
    /// How long one fetch of the discovery document or the keys may take (5 s by default).
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::issuer("https://id.example.com")
    ///     .audience("api")
    ///     .timeout(std::time::Duration::from_secs(2));
    /// # let _ = config;
    /// ```
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.policy.timeout = timeout;
        self
    }
}
