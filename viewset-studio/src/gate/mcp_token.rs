//! OAuth access tokens issued for the MCP endpoint (feature `jwt`): the last step of MCP authorization, after the
//! discovery of [`resource`](super::resource). With [`Studio::mcp_tokens`](crate::Studio::mcp_tokens), a request to
//! `/ai/tools/mcp` that no Studio credential admits is admitted by its `Authorization: Bearer <JWT>` when the token
//! verifies with the application's own [`JwtConfig`] narrowed to one audience, the MCP endpoint's URL
//! (`Studio::public_url` + `/ai/tools/mcp`, RFC 8707): a token issued for another resource (the REST API's
//! audience, another service) is a 401 `invalid_token` whose challenge still names `resource_metadata`, and a token
//! without a required scope is a 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` (the MCP
//! authorization specification's step-up).
//!
//! The tool calls of an admitted request run as the token's [`Principal`](viewset_core::Principal): the gate attaches
//! it as a request extension, which the call to the application's route carries (`ai/dispatch.rs`), and the token
//! itself is not forwarded (the MCP specification forbids passing a token through to another resource; the
//! application's authenticator would refuse its audience anyway). The principal is read with the same claim paths as
//! the application's, so its row policies, field visibility and tenants apply unchanged.

use axum::http::header::WWW_AUTHENTICATE;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use viewset_core::ApiError;
use viewset_core::Principal;
use viewset_core::auth::jwt::{JwtConfig, JwtVerifier};

use crate::paths::AI_TOOLS_MCP;
use crate::settings::SettingsError;

/// Which access tokens the MCP endpoint accepts: the application's [`JwtConfig`] (issuer, keys, claim paths), whose
/// audience Studio replaces with the MCP endpoint's URL, and the scopes a token must carry. Register it with
/// [`Studio::mcp_tokens`](crate::Studio::mcp_tokens), which needs [`Studio::public_url`](crate::Studio::public_url).
///
/// ```
/// use viewset_core::auth::jwt::JwtConfig;
/// use viewset_studio::McpTokens;
///
/// let config = JwtConfig::issuer("https://id.example.com").audience("https://api.example.com");
/// let tokens = McpTokens::new(config).require_scope("mcp:tools");
/// assert_eq!(tokens.scopes(), ["mcp:tools"]);
/// ```
#[derive(Debug, Clone)]
pub struct McpTokens {
    config: JwtConfig,
    scopes: Vec<String>,
}

impl McpTokens {
    /// Tokens verified as `config` says, for the MCP endpoint's audience only.
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::issuer("https://id.example.com").audience("api");
    /// assert!(viewset_studio::McpTokens::new(config).scopes().is_empty());
    /// ```
    pub fn new(config: JwtConfig) -> Self {
        McpTokens { config, scopes: Vec::new() }
    }

    /// A scope every admitted token must carry (repeatable); listed as `scopes_supported` in the protected resource
    /// metadata and in the endpoint's challenges, so an MCP client asks for it.
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::issuer("https://id.example.com").audience("api");
    /// let tokens = viewset_studio::McpTokens::new(config).require_scope("mcp:tools").require_scope("posts:read");
    /// assert_eq!(tokens.scopes(), ["mcp:tools", "posts:read"]);
    /// ```
    pub fn require_scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes.push(scope.into());
        self
    }

    /// The required scopes.
    ///
    /// ```
    /// let config = viewset_core::auth::jwt::JwtConfig::issuer("https://id.example.com").audience("api");
    /// assert!(viewset_studio::McpTokens::new(config).scopes().is_empty());
    /// ```
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }
}

impl crate::Studio {
    /// Admits, at `/ai/tools/mcp`, OAuth access tokens issued for it ([`McpTokens`]; the module
    /// `gate::mcp_token` of the source says how): the last step of MCP authorization after the discovery
    /// [`Studio::authorization_servers`](crate::Studio::authorization_servers) describes. Needs
    /// [`Studio::public_url`](crate::Studio::public_url) and Studio authentication (`SERVICE_STUDIO_REQUIRE_AUTH`);
    /// mounting fails without the public URL.
    ///
    /// ```
    /// use viewset_core::auth::jwt::JwtConfig;
    /// use viewset_studio::{McpTokens, Studio};
    ///
    /// let config = JwtConfig::issuer("https://id.example.com").audience("https://api.example.com");
    /// let studio = Studio::new(Default::default())
    ///     .public_url("https://api.example.com")
    ///     .authorization_servers(["https://id.example.com"])
    ///     .mcp_tokens(McpTokens::new(config).require_scope("mcp:tools"));
    /// # let _ = studio;
    /// ```
    pub fn mcp_tokens(mut self, tokens: McpTokens) -> Self {
        self.mcp_tokens = Some(tokens);
        self
    }
}

/// [`McpTokens`] made ready at mount: the verifier for the resource's audience.
pub(crate) struct McpTokenGate {
    verifier: JwtVerifier,
    scopes: Vec<String>,
}

impl std::fmt::Debug for McpTokenGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTokenGate").field("scopes", &self.scopes).finish_non_exhaustive()
    }
}

/// What a bearer token presented to the MCP endpoint comes to.
pub(crate) enum Verdict {
    /// Verified for this resource, with every required scope.
    Admitted(Principal),
    /// The answer: 401 `invalid_token`, 403 `insufficient_scope`, or 503 while the provider was never reached.
    Refused(ApiError),
}

impl McpTokenGate {
    /// The gate of `tokens` at the resource `public_url` + `/ai/tools/mcp`; a start-up error without a public URL
    /// (the audience must be fixed), with a scope a header cannot carry, or with a configuration that cannot work.
    pub(crate) fn new(tokens: McpTokens, public_url: Option<&str>) -> Result<Self, SettingsError> {
        let Some(origin) = public_url else {
            return Err(SettingsError(
                "Studio::mcp_tokens needs Studio::public_url: the MCP endpoint's URL is the audience its tokens are \
                 issued for (RFC 8707)"
                    .into(),
            ));
        };
        // RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
        let plain =
            |s: &String| !s.is_empty() && s.bytes().all(|b| b == 0x21 || ((0x23..=0x7e).contains(&b) && b != 0x5c));
        if let Some(bad) = tokens.scopes.iter().find(|s| !plain(s)) {
            return Err(SettingsError(format!("Studio::mcp_tokens: `{bad}` is not an OAuth scope token")));
        }
        let config = tokens.config.only_audience(format!("{origin}{AI_TOOLS_MCP}"));
        let verifier = JwtVerifier::new(config).map_err(|e| SettingsError(format!("Studio::mcp_tokens: {e}")))?;
        Ok(McpTokenGate { verifier, scopes: tokens.scopes })
    }

    /// The required scopes, space-separated (`None` without any).
    pub(crate) fn scope(&self) -> Option<String> {
        (!self.scopes.is_empty()).then(|| self.scopes.join(" "))
    }

    /// Verifies `token` for this resource, then its scopes.
    pub(crate) async fn verify(&self, token: &str) -> Verdict {
        match self.verifier.verify(token).await {
            Ok(principal) if self.scopes.iter().all(|s| principal.has_scope(s)) => Verdict::Admitted(principal),
            Ok(_) => Verdict::Refused(ApiError::insufficient_scope(self.scopes.join(" "))),
            Err(refused) => Verdict::Refused(refused),
        }
    }
}

/// The answer of a refused MCP token: the error's own (JSON body, `Retry-After` of a 503), its challenge with the
/// `resource_metadata` parameter (`challenge_tail`, RFC 9728) appended.
pub(crate) fn refusal(error: ApiError, challenge_tail: &str) -> Response {
    let challenge = error.challenge();
    let status = error.status();
    let mut response = error.into_response();
    if let Some(challenge) = challenge.filter(|_| matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN)) {
        let value = format!("{}{challenge_tail}", challenge.to_str().unwrap_or("Bearer"));
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().insert(WWW_AUTHENTICATE, value);
        }
    }
    response
}

/// The bearer token of `headers` that is not the Studio token.
pub(crate) fn presented<'h>(headers: &'h HeaderMap, studio_token: Option<&str>) -> Option<&'h str> {
    let token = viewset_core::auth::bearer_token(headers)?;
    (!token.is_empty() && !super::authorization_is_token(headers, studio_token)).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> McpTokens {
        McpTokens::new(JwtConfig::hmac_secret("s").audience("https://api.example.com"))
    }

    #[test]
    fn the_resource_needs_a_public_url_and_plain_scopes() {
        let error = McpTokenGate::new(tokens(), None).unwrap_err();
        assert!(error.0.contains("Studio::public_url"), "{error}");
        for bad in ["", "a b", "a\"b", "a\\b", "é"] {
            let error = McpTokenGate::new(tokens().require_scope(bad), Some("https://api.example.com")).unwrap_err();
            assert!(error.0.contains("scope token"), "{bad:?}: {error}");
        }
        let gate = McpTokenGate::new(tokens().require_scope("mcp:tools").require_scope("x"), Some("https://a.b"));
        assert_eq!(gate.unwrap().scope().as_deref(), Some("mcp:tools x"));
        assert_eq!(McpTokenGate::new(tokens(), Some("https://a.b")).unwrap().scope(), None);
    }

    #[test]
    fn refusals_name_the_resource_metadata() {
        let tail = r#", realm="studio", resource_metadata="https://a.b/m""#;
        let response = refusal(ApiError::invalid_token("The token has expired."), tail);
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            response.headers()[WWW_AUTHENTICATE],
            r#"Bearer error="invalid_token", error_description="The token has expired.", realm="studio", resource_metadata="https://a.b/m""#
        );
        let response = refusal(ApiError::insufficient_scope("mcp:tools"), tail);
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert_eq!(
            response.headers()[WWW_AUTHENTICATE],
            r#"Bearer error="insufficient_scope", scope="mcp:tools", realm="studio", resource_metadata="https://a.b/m""#
        );
        let response = refusal(ApiError::IdentityProviderUnavailable { retry_after: 5 }, tail);
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(response.headers().get(WWW_AUTHENTICATE).is_none());
    }

    #[tokio::test]
    async fn only_the_resource_audience_with_the_scope_is_admitted() {
        use jsonwebtoken::{EncodingKey, Header, encode};
        let gate = McpTokenGate::new(tokens().require_scope("mcp:tools"), Some("https://api.example.com")).unwrap();
        let exp = chrono::Utc::now().timestamp() + 300;
        let token = |aud: &str, scope: &str| {
            let claims = serde_json::json!({"sub": "bob", "aud": aud, "exp": exp, "scope": scope});
            encode(&Header::default(), &claims, &EncodingKey::from_secret(b"s").unwrap()).unwrap()
        };
        let resource = "https://api.example.com/ai/tools/mcp";
        match gate.verify(&token(resource, "mcp:tools")).await {
            Verdict::Admitted(principal) => assert_eq!(principal.user_id.as_deref(), Some("bob")),
            Verdict::Refused(error) => panic!("{error:?}"),
        }
        let Verdict::Refused(error) = gate.verify(&token("https://api.example.com", "mcp:tools")).await else {
            panic!("the API's own audience is another resource")
        };
        assert_eq!(error.status(), StatusCode::UNAUTHORIZED);
        let Verdict::Refused(error) = gate.verify(&token(resource, "posts:read")).await else { panic!("no scope") };
        assert_eq!(error.status(), StatusCode::FORBIDDEN);
    }
}
