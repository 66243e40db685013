//! MCP authorization discovery, as the MCP specification (2025-06-18 and later) asks of a protected MCP server on
//! OAuth 2.0 Protected Resource Metadata (RFC 9728): when Studio requires authentication, a `401` of
//! `/ai/tools/mcp` carries `WWW-Authenticate: Bearer … resource_metadata="<origin><path>"` where the path is
//! `/.well-known/oauth-protected-resource/ai/tools/mcp` (the well-known string inserted before the resource's path,
//! RFC 9728 §3.1), and that document is served without a credential: `resource` (the MCP endpoint's absolute URL),
//! `authorization_servers` (the application's, when registered with `Studio::authorization_servers`),
//! `bearer_methods_supported: ["header"]`, `resource_name`, and `scopes_supported` when `Studio::mcp_tokens`
//! requires scopes.
//! Without Studio authentication the endpoint takes no credential and the document answers 404 `not_protected`.
//!
//! Absolute URLs start with `Studio::public_url` when set (behind a proxy that rewrites `Host`), otherwise with the
//! request's own `Host` and `X-Forwarded-Proto` (`https`, else `http`).

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::header::HOST;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::json;

use crate::paths::{AI_TOOLS_MCP, AI_TOOLS_MCP_METADATA};
use crate::reply::{error, method_not_allowed};
use crate::settings::SettingsError;

/// What the metadata document says.
pub(crate) struct ResourceMetadata {
    /// Whether Studio requires authentication (without it there is nothing to describe).
    pub(crate) require_auth: bool,
    /// The application's authorization servers (issuer URLs).
    pub(crate) authorization_servers: Vec<String>,
    /// `Studio::public_url`, when set.
    pub(crate) public_url: Option<String>,
    /// The application's name.
    pub(crate) project: String,
    /// The scopes an MCP access token needs (`Studio::mcp_tokens`), listed as `scopes_supported`.
    pub(crate) scopes_supported: Vec<String>,
}

/// The metadata route over `metadata`; the gate lets `GET` through without a credential.
pub(crate) fn routes(metadata: Arc<ResourceMetadata>) -> Router {
    Router::new().route(AI_TOOLS_MCP_METADATA, get(document).fallback(method_not_allowed)).with_state(metadata)
}

/// The origin (`scheme://host[:port]`) a client reached Studio at: `public_url`, else `Host` with the scheme of
/// `X-Forwarded-Proto` (`http` unless it says `https`); `None` without a usable `Host`.
pub(crate) fn origin(public_url: Option<&str>, headers: &HeaderMap) -> Option<String> {
    if let Some(url) = public_url {
        return Some(url.to_string());
    }
    let host = headers.get(HOST)?.to_str().ok()?.trim();
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '_');
    if host.is_empty() || host.len() > 255 || !host.chars().all(plain) {
        return None;
    }
    let https = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').next().unwrap_or_default().trim().eq_ignore_ascii_case("https"));
    Some(format!("{}://{host}", if https { "https" } else { "http" }))
}

/// The `resource_metadata` parameter of `/ai/tools/mcp`'s `401` challenge, when the origin is known.
pub(crate) fn challenge_parameter(public_url: Option<&str>, headers: &HeaderMap) -> Option<String> {
    origin(public_url, headers).map(|origin| format!(", resource_metadata=\"{origin}{AI_TOOLS_MCP_METADATA}\""))
}

async fn document(State(metadata): State<Arc<ResourceMetadata>>, headers: HeaderMap) -> Response {
    if !metadata.require_auth {
        return error(
            StatusCode::NOT_FOUND,
            "Studio does not require authentication (SERVICE_STUDIO_REQUIRE_AUTH is false): /ai/tools/mcp takes no \
             credential, so it has no protected resource metadata.",
            "not_protected",
        );
    }
    let Some(origin) = origin(metadata.public_url.as_deref(), &headers) else {
        return error(
            StatusCode::BAD_REQUEST,
            "The metadata names absolute URLs: send a `Host` header, or set `Studio::public_url`.",
            "host_required",
        );
    };
    let mut body = json!({
        "resource": format!("{origin}{AI_TOOLS_MCP}"),
        "bearer_methods_supported": ["header"],
        "resource_name": format!("{} Studio MCP server (viewset)", metadata.project),
    });
    if !metadata.authorization_servers.is_empty() {
        body["authorization_servers"] = json!(metadata.authorization_servers);
    }
    if !metadata.scopes_supported.is_empty() {
        body["scopes_supported"] = json!(metadata.scopes_supported);
    }
    ([(axum::http::header::CACHE_CONTROL, "no-store")], axum::Json(body)).into_response()
}

/// `url` without a trailing `/` when it is an absolute `http://` or `https://` URL with a host and nothing a URL in
/// a header or JSON could not carry (no whitespace, quotes, query or fragment); with `origin_only`, no path either.
/// Otherwise the start-up error, naming `setting`.
pub(crate) fn checked_url(setting: &str, url: &str, origin_only: bool) -> Result<String, SettingsError> {
    let trimmed = url.trim().trim_end_matches('/');
    let refuse = |why: &str| Err(SettingsError(format!("{setting}: `{url}` {why}")));
    let Some((scheme, rest)) = trimmed.split_once("://") else {
        return refuse("is not an absolute URL (http:// or https://)");
    };
    if !matches!(scheme, "http" | "https") {
        return refuse("is not an http:// or https:// URL");
    }
    let (host, path) = rest.split_once('/').map_or((rest, ""), |(host, path)| (host, path));
    if host.is_empty() || trimmed.chars().any(|c| c.is_whitespace() || c.is_control() || "\"'<>\\?#".contains(c)) {
        return refuse("is not a plain URL with a host (no spaces, quotes, query or fragment)");
    }
    if origin_only && !path.is_empty() {
        return refuse("must be an origin, `scheme://host[:port]`, without a path");
    }
    Ok(trimmed.to_string())
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs.iter().map(|(k, v)| (axum::http::HeaderName::from_static(k), HeaderValue::from_static(v))).collect()
    }

    #[test]
    fn the_origin_from_the_setting_or_the_request() {
        assert_eq!(
            origin(Some("https://studio.example"), &headers(&[("host", "x")])).unwrap(),
            "https://studio.example"
        );
        assert_eq!(origin(None, &headers(&[("host", "127.0.0.1:8000")])).unwrap(), "http://127.0.0.1:8000");
        let proxied = headers(&[("host", "dev.example.com"), ("x-forwarded-proto", "https")]);
        assert_eq!(origin(None, &proxied).unwrap(), "https://dev.example.com");
        assert_eq!(origin(None, &headers(&[("host", "[::1]:8000")])).unwrap(), "http://[::1]:8000");
        assert_eq!(origin(None, &headers(&[("host", "a\"b")])), None, "a quote would break the header");
        assert_eq!(origin(None, &HeaderMap::new()), None);
    }

    #[test]
    fn urls_are_checked() {
        assert_eq!(checked_url("s", "https://auth.example.com/", false).unwrap(), "https://auth.example.com");
        assert_eq!(
            checked_url("s", "https://auth.example.com/realms/x", false).unwrap(),
            "https://auth.example.com/realms/x"
        );
        assert!(checked_url("s", "https://studio.example/app", true).unwrap_err().0.contains("without a path"));
        for bad in
            ["auth.example.com", "ftp://x", "https://", "https://a b", "https://a\"b", "https://a?x=1", "https://a#f"]
        {
            assert!(checked_url("Studio::authorization_servers", bad, false).is_err(), "{bad}");
        }
    }
}
