//! JWT access tokens verified by the keys an identity provider publishes (feature `jwt`): [`JwtConfig`] says where
//! the keys are and what a token must claim, [`Authenticate::jwt`] makes the layer.
//!
//! - **Keys**: OpenID Connect discovery ([`JwtConfig::issuer`]: `<issuer>/.well-known/openid-configuration` →
//!   `jwks_uri`, and `iss` must be that issuer), a JWKS URL ([`JwtConfig::jwks_url`]), or static keys
//!   ([`JwtConfig::jwks`], [`JwtConfig::pem`], [`JwtConfig::hmac_secret`] for tests). Fetched keys are cached as the
//!   JWKS answer's `Cache-Control: max-age` says, between a floor and a ceiling ([`JwtConfig::cache`]); a token
//!   naming an unknown `kid` fetches them again, at most once per [`JwtConfig::refetch_interval`], so a key rotation
//!   needs no restart and a flood of forged `kid`s cannot hammer the provider. The last good keys are kept while the
//!   provider is unreachable; while it was never reached, a request with a token answers 503
//!   `identity_provider_unavailable` with `Retry-After` (the token may be fine: not a 401). Plain `http://` is
//!   accepted for loopback addresses only.
//! - **Algorithms**: `none` is never accepted, and a key verifies only its own algorithms (the one its JWK declares,
//!   else its family's: an HS256 token made with an RSA public key as the secret is refused).
//!   [`JwtConfig::algorithms`] narrows them further.
//! - **Claims**: `exp` is required, `nbf` checked, both with a leeway ([`JwtConfig::leeway`], 60 s by default); `iss`
//!   when an issuer is known, `aud` one of [`JwtConfig::audience`] (required unless [`JwtConfig::any_audience`]),
//!   and any [`JwtConfig::require_claim`]. The principal's subject, tenant, staff flag, roles and scopes are read at
//!   claim paths (a top-level claim of that exact name, so `https://example.com/tenant` works, else a dotted walk
//!   such as `realm_access.roles`; a list is an array or a space-separated string: `scope`, `scp`).
//! - **Refusals** are 401 `invalid_token` naming the check that failed (expired, another audience, unknown key,
//!   bad signature, malformed, too large), never the token; a request without a token stays anonymous.
//!
//! ```no_run
//! use viewset_core::auth::Authenticate;
//! use viewset_core::auth::jwt::JwtConfig;
//!
//! let config = JwtConfig::issuer("https://id.example.com/realms/blog")
//!     .audience("https://api.example.com")
//!     .roles_claim("realm_access.roles")
//!     .staff_role("admin");
//! let auth = Authenticate::jwt(config).expect("a valid JWT configuration");
//! let app: axum::Router = axum::Router::new().layer(auth);
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::Value;

use super::claims::{self, ClaimPaths};
pub use super::jwt_config::JwtConfig;
use super::jwt_config::Keys;
use super::keys::{Key, KeySet, KeyStore};
use super::remote::{Location, Remote};
use super::token::{self, Refusal};
use super::{Authenticate, Source, Verifier};
use crate::error::ApiError;
use crate::types::principal::Principal;

/// Every algorithm a key can verify.
const ALGORITHMS: [Algorithm; 12] = [
    Algorithm::HS256,
    Algorithm::HS384,
    Algorithm::HS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::EdDSA,
];

/// A [`JwtConfig`] that cannot be used, saying why.
///
/// ```
/// use viewset_core::auth::{Authenticate, jwt::JwtConfig};
/// let error = Authenticate::jwt(JwtConfig::issuer("http://id.example.com").audience("api")).err().unwrap();
/// assert!(error.to_string().contains("loopback"), "{error}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwtError(String);

impl std::fmt::Display for JwtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "JWT configuration: {}", self.0)
    }
}

impl std::error::Error for JwtError {}

impl JwtError {
    pub(super) fn new(reason: impl Into<String>) -> Self {
        JwtError(reason.into())
    }
}

/// Refuses a URL the keys may not be fetched from: `https://`, or `http://` on a loopback address only.
pub(super) fn check_url(url: &str) -> Result<(), String> {
    let uri: axum::http::Uri = url.parse().map_err(|_| format!("`{url}` is not a URL"))?;
    let host = uri.host().unwrap_or("");
    match uri.scheme_str() {
        Some("https") if !host.is_empty() => Ok(()),
        Some("http") if ["127.0.0.1", "localhost", "[::1]", "::1"].contains(&host) => Ok(()),
        _ => Err(format!("`{url}` is neither https:// nor http:// on a loopback address")),
    }
}

impl Authenticate {
    /// Verifies `Authorization: Bearer <JWT>` as `config` says ([module](self)); a configuration that
    /// cannot work (no audience, `none` among the algorithms, a key that does not parse, a URL that is not
    /// `https://`) is an error here rather than at the first request.
    ///
    /// ```
    /// use viewset_core::auth::{Authenticate, jwt::JwtConfig};
    /// assert!(Authenticate::jwt(JwtConfig::jwks_url("https://id.example.com/jwks")).is_err(), "no audience");
    /// let none = JwtConfig::hmac_secret("s").any_audience().algorithms(["none"]);
    /// assert!(Authenticate::jwt(none).is_err());
    /// ```
    pub fn jwt(config: JwtConfig) -> Result<Authenticate, JwtError> {
        Ok(Authenticate::jwt_verifier(JwtVerifier::new(config)?))
    }

    /// The layer of a [`JwtVerifier`] already made (one verifier, and its cached keys, shared with another user of
    /// it, such as Studio's MCP endpoint).
    ///
    /// ```
    /// use viewset_core::auth::{Authenticate, jwt::{JwtConfig, JwtVerifier}};
    /// let verifier = JwtVerifier::new(JwtConfig::hmac_secret("s").any_audience()).unwrap();
    /// let _auth = Authenticate::jwt_verifier(verifier);
    /// ```
    pub fn jwt_verifier(verifier: JwtVerifier) -> Authenticate {
        let verify: Verifier = Arc::new(move |token: String| {
            let jwt = verifier.0.clone();
            Box::pin(async move { jwt.verify(&token).await })
        });
        Authenticate { source: Source::Bearer, verify, refused_as_anonymous: false }
    }
}

/// A [`JwtConfig`] made ready: verifies a token and reads its [`Principal`], with every check of the
/// [module](self), outside of a request (what [`Authenticate::jwt`] does for each one). Clones share the keys.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use viewset_core::auth::jwt::{JwtConfig, JwtVerifier};
/// let verifier = JwtVerifier::new(JwtConfig::hmac_secret("s").audience("https://api.example.com")).unwrap();
/// let refused = verifier.verify("not.a.token").await.unwrap_err();
/// assert_eq!(refused.status(), axum::http::StatusCode::UNAUTHORIZED);
/// # });
/// ```
#[derive(Clone)]
pub struct JwtVerifier(Arc<Jwt>);

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier").field("algorithms", &self.0.allowed).finish_non_exhaustive()
    }
}

impl JwtVerifier {
    /// The verifier of `config`; a configuration that cannot work is an error ([`Authenticate::jwt`]).
    ///
    /// ```
    /// use viewset_core::auth::jwt::{JwtConfig, JwtVerifier};
    /// assert!(JwtVerifier::new(JwtConfig::jwks_url("https://id.example.com/jwks")).is_err(), "no audience");
    /// ```
    pub fn new(config: JwtConfig) -> Result<JwtVerifier, JwtError> {
        Ok(JwtVerifier(Arc::new(Jwt::new(config).map_err(JwtError)?)))
    }

    /// The principal of `token`, or the error a request carrying it answers: a 401 `invalid_token` naming the check
    /// that failed, a 503 `identity_provider_unavailable` while the provider's keys were never fetched.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use viewset_core::auth::jwt::{JwtConfig, JwtVerifier};
    /// let verifier = JwtVerifier::new(JwtConfig::hmac_secret("s").any_audience()).unwrap();
    /// assert!(verifier.verify("").await.is_err());
    /// # });
    /// ```
    pub async fn verify(&self, token: &str) -> Result<Principal, ApiError> {
        self.0.verify(token).await
    }
}

/// A configuration made ready: the keys, a validation per algorithm, the claim paths.
struct Jwt {
    keys: KeyStore,
    allowed: Vec<Algorithm>,
    validations: HashMap<Algorithm, Validation>,
    required: Vec<String>,
    paths: ClaimPaths,
    max_token_bytes: usize,
}

impl Jwt {
    fn new(config: JwtConfig) -> Result<Jwt, String> {
        if config.audiences.is_empty() && !config.any_audience {
            return Err("no audience: name this API's (`audience`), or accept any (`any_audience`)".into());
        }
        let keys = match config.keys {
            Keys::Remote(location) => {
                let (Location::Discovery(url) | Location::Jwks(url)) = &location;
                check_url(url)?;
                KeyStore::Remote(Box::new(Remote::new(location, config.policy)?))
            }
            Keys::Jwks(json) => KeyStore::Static(Arc::new(KeySet::from_json(json.as_bytes(), true)?)),
            Keys::Pem(pem) => KeyStore::Static(Arc::new(KeySet(vec![Key::from_pem(&pem)?]))),
            Keys::Secret(secret) if secret.is_empty() => return Err("an empty HMAC secret".into()),
            Keys::Secret(secret) => KeyStore::Static(Arc::new(KeySet(vec![Key {
                kid: None,
                algorithms: vec![Algorithm::HS256, Algorithm::HS384, Algorithm::HS512],
                key: DecodingKey::from_secret(&secret).map_err(|e| e.to_string())?,
            }]))),
        };
        let allowed = match &config.algorithms {
            None => ALGORITHMS.to_vec(),
            Some(names) => names.iter().map(|name| algorithm(name)).collect::<Result<_, _>>()?,
        };
        let mut validations = HashMap::new();
        for alg in ALGORITHMS {
            let mut validation = Validation::new(alg);
            validation.leeway = config.leeway.as_secs();
            validation.validate_nbf = true;
            let mut required = vec!["exp"];
            if !config.issuers.is_empty() {
                validation.set_issuer(&config.issuers);
                required.push("iss");
            }
            if config.any_audience {
                validation.validate_aud = false;
            } else {
                validation.set_audience(&config.audiences);
                required.push("aud");
            }
            validation.set_required_spec_claims(&required);
            validations.insert(alg, validation);
        }
        let (required, paths, max_token_bytes) = (config.required, config.paths, config.max_token_bytes);
        Ok(Jwt { keys, allowed, validations, required, paths, max_token_bytes })
    }

    /// The principal of `token`, or why it is refused.
    async fn verify(&self, token: &str) -> Result<Principal, ApiError> {
        let refused = |refusal: Refusal| {
            tracing::debug!(reason = %refusal.detail(), "bearer token refused");
            ApiError::from(refusal)
        };
        let header = token::header(token, self.max_token_bytes).map_err(refused)?;
        if !self.allowed.contains(&header.alg) {
            return Err(refused(Refusal::AlgorithmNotAllowed(header.alg)));
        }
        let validation = self.validations.get(&header.alg).ok_or(Refusal::UnsupportedAlgorithm).map_err(refused)?;
        let keys = self.keys.keys(header.kid.as_deref()).await?;
        let mut refusal = Refusal::BadSignature;
        for key in keys.candidates(header.kid.as_deref(), header.alg).map_err(refused)? {
            match jsonwebtoken::decode::<Value>(token, &key.key, validation) {
                Ok(data) => return self.principal(&data.claims).map_err(refused),
                Err(error) => refusal = token::refusal_of(&error),
            }
            if refusal != Refusal::BadSignature {
                break;
            }
        }
        Err(refused(refusal))
    }

    fn principal(&self, claims: &Value) -> Result<Principal, Refusal> {
        if let Some(missing) = self.required.iter().find(|path| claims::lookup(claims, path).is_none()) {
            return Err(Refusal::MissingClaim(missing.clone()));
        }
        claims::principal(claims, &self.paths)
    }
}

/// A configured algorithm's name; `none` and unknown names are errors.
fn algorithm(name: &str) -> Result<Algorithm, String> {
    if name.eq_ignore_ascii_case("none") {
        return Err("the algorithm `none` is never accepted".into());
    }
    name.parse().map_err(|_| format!("unknown algorithm `{name}`"))
}

#[cfg(test)]
#[path = "jwt_tests.rs"]
mod tests;
