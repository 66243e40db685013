//! A [`JwtConfig`] from `SERVICE_JWT_*` variables, as applications read their other settings.

use std::time::Duration;

use super::jwt::{JwtConfig, JwtError};

impl JwtConfig {
    /// [`from_vars`](Self::from_vars) over the process environment.
    ///
    /// ```
    /// use viewset_core::auth::{Authenticate, jwt::JwtConfig};
    /// // Verified JWTs when SERVICE_JWT_ISSUER (or SERVICE_JWT_JWKS_URL) is set, another verifier otherwise.
    /// let auth = match JwtConfig::from_env().expect("valid SERVICE_JWT_* settings") {
    ///     Some(config) => Authenticate::jwt(config).expect("a usable JWT configuration"),
    ///     None => Authenticate::bearer(|_token: String| async { None }),
    /// };
    /// # let _ = auth;
    /// ```
    pub fn from_env() -> Result<Option<JwtConfig>, JwtError> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// The configuration the `SERVICE_JWT_*` variables `var` returns describe, `None` when neither
    /// `SERVICE_JWT_ISSUER` nor `SERVICE_JWT_JWKS_URL` is set (an empty value counts as unset):
    ///
    /// | variable | meaning |
    /// |---|---|
    /// | `SERVICE_JWT_ISSUER` | the issuer: keys by OpenID Connect discovery, `iss` checked |
    /// | `SERVICE_JWT_JWKS_URL` | the keys' URL instead of discovery (`iss` still checked when the issuer is set) |
    /// | `SERVICE_JWT_AUDIENCE` | accepted audiences, comma-separated (required) |
    /// | `SERVICE_JWT_ALGORITHMS` | allowed algorithms, comma-separated (default: each key's own) |
    /// | `SERVICE_JWT_LEEWAY_SECONDS` | clock skew on `exp`/`nbf` (60) |
    /// | `SERVICE_JWT_REQUIRED_CLAIMS` | claim paths a token must carry, comma-separated |
    /// | `SERVICE_JWT_SUBJECT_CLAIM` | the user id's claim path (`sub`) |
    /// | `SERVICE_JWT_TENANT_CLAIM` | the tenant's claim path |
    /// | `SERVICE_JWT_STAFF_CLAIM` | a boolean claim that makes the caller staff |
    /// | `SERVICE_JWT_STAFF_ROLES` | roles that make the caller staff, comma-separated |
    /// | `SERVICE_JWT_ROLES_CLAIMS` | roles' claim paths, comma-separated (`realm_access.roles`) |
    /// | `SERVICE_JWT_SCOPES_CLAIMS` | scopes' claim paths, comma-separated (`scope,scp`) |
    /// | `SERVICE_JWT_REFETCH_SECONDS` | the shortest time between two fetches of the keys (10) |
    ///
    /// ```
    /// use viewset_core::auth::jwt::JwtConfig;
    /// let vars = |name: &str| match name {
    ///     "SERVICE_JWT_ISSUER" => Some("https://id.example.com/realms/blog".to_string()),
    ///     "SERVICE_JWT_AUDIENCE" => Some("blog-api".to_string()),
    ///     "SERVICE_JWT_ROLES_CLAIMS" => Some("realm_access.roles".to_string()),
    ///     _ => None,
    /// };
    /// assert!(JwtConfig::from_vars(vars).unwrap().is_some());
    /// assert!(JwtConfig::from_vars(|_| None).unwrap().is_none());
    /// let bad = |name: &str| (name == "SERVICE_JWT_ISSUER" || name == "SERVICE_JWT_LEEWAY_SECONDS").then(|| "x".into());
    /// assert!(JwtConfig::from_vars(bad).is_err());
    /// ```
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<JwtConfig>, JwtError> {
        let var = |name: &str| var(name).map(|value| value.trim().to_string()).filter(|value| !value.is_empty());
        let list = |name: &str| -> Vec<String> {
            var(name).map(|value| value.split(',').map(|item| item.trim().to_string()).collect()).unwrap_or_default()
        };
        let seconds = |name: &str| -> Result<Option<Duration>, JwtError> {
            var(name)
                .map(|value| value.parse().map(Duration::from_secs))
                .transpose()
                .map_err(|_| JwtError::new(format!("{name} is not a whole number of seconds")))
        };
        let mut config = match (var("SERVICE_JWT_ISSUER"), var("SERVICE_JWT_JWKS_URL")) {
            (None, None) => return Ok(None),
            (Some(issuer), None) => JwtConfig::issuer(issuer),
            (Some(issuer), Some(url)) => JwtConfig::jwks_url(url).expect_issuer(issuer),
            (None, Some(url)) => JwtConfig::jwks_url(url),
        };
        for audience in list("SERVICE_JWT_AUDIENCE") {
            config = config.audience(audience);
        }
        if let Some(algorithms) = var("SERVICE_JWT_ALGORITHMS") {
            config = config.algorithms(algorithms.split(',').map(str::trim));
        }
        if let Some(leeway) = seconds("SERVICE_JWT_LEEWAY_SECONDS")? {
            config = config.leeway(leeway);
        }
        if let Some(interval) = seconds("SERVICE_JWT_REFETCH_SECONDS")? {
            config = config.refetch_interval(interval);
        }
        for claim in list("SERVICE_JWT_REQUIRED_CLAIMS") {
            config = config.require_claim(claim);
        }
        if let Some(path) = var("SERVICE_JWT_SUBJECT_CLAIM") {
            config = config.subject_claim(path);
        }
        if let Some(path) = var("SERVICE_JWT_TENANT_CLAIM") {
            config = config.tenant_claim(path);
        }
        if let Some(path) = var("SERVICE_JWT_STAFF_CLAIM") {
            config = config.staff_claim(path);
        }
        for role in list("SERVICE_JWT_STAFF_ROLES") {
            config = config.staff_role(role);
        }
        for path in list("SERVICE_JWT_ROLES_CLAIMS") {
            config = config.roles_claim(path);
        }
        let scopes = list("SERVICE_JWT_SCOPES_CLAIMS");
        if !scopes.is_empty() {
            config = config.scopes_claims(scopes);
        }
        Ok(Some(config))
    }
}
