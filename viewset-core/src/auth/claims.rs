//! A verified token's claims → the caller's [`Principal`], read at configurable claim paths.
//!
//! A path names a top-level claim as it is spelled (`sub`, `https://example.com/tenant`: a namespaced claim keeps
//! its dots), else a dotted walk through nested objects (`realm_access.roles`). A list claim is a JSON array of
//! strings or a space-separated string (`scope`).

use serde_json::Value;

use super::token::Refusal;
use crate::types::principal::Principal;

/// Where each part of the principal is read from.
#[derive(Debug, Clone)]
pub(super) struct ClaimPaths {
    /// The user id (default `sub`; required).
    pub subject: String,
    /// The tenant, when the application has tenants.
    pub tenant: Option<String>,
    /// A boolean claim that makes the caller staff.
    pub staff: Option<String>,
    /// Roles any one of which makes the caller staff.
    pub staff_roles: Vec<String>,
    /// Where roles are read (their union).
    pub roles: Vec<String>,
    /// Where scopes are read (their union; default `scope` and `scp`).
    pub scopes: Vec<String>,
}

impl Default for ClaimPaths {
    fn default() -> Self {
        ClaimPaths {
            subject: "sub".into(),
            tenant: None,
            staff: None,
            staff_roles: Vec::new(),
            roles: Vec::new(),
            scopes: vec!["scope".into(), "scp".into()],
        }
    }
}

/// The claim at `path` in `claims`: the top-level claim of that exact name, else the dotted walk.
pub(super) fn lookup<'c>(claims: &'c Value, path: &str) -> Option<&'c Value> {
    if let Some(value) = claims.get(path) {
        return Some(value);
    }
    path.split('.').try_fold(claims, |value, segment| value.get(segment))
}

/// A list claim's items: an array's strings, or a string's space-separated words.
fn items(value: &Value) -> Vec<String> {
    match value {
        Value::String(words) => words.split_whitespace().map(str::to_string).collect(),
        Value::Array(values) => values.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

/// A single-valued claim as text: a string, or a number's digits.
fn text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.is_empty() => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The principal of verified `claims`; a missing subject is a refusal.
pub(super) fn principal(claims: &Value, paths: &ClaimPaths) -> Result<Principal, Refusal> {
    let subject = lookup(claims, &paths.subject).and_then(text);
    let mut principal = Principal::user(subject.ok_or_else(|| Refusal::MissingClaim(paths.subject.clone()))?);
    principal.tenant_id = paths.tenant.as_deref().and_then(|path| lookup(claims, path)).and_then(text);
    let union = |paths: &[String]| {
        let mut all: Vec<String> = Vec::new();
        for item in paths.iter().filter_map(|path| lookup(claims, path)).flat_map(items) {
            if !all.contains(&item) {
                all.push(item);
            }
        }
        all
    };
    principal.roles = union(&paths.roles);
    principal.scopes = union(&paths.scopes);
    let flag = paths.staff.as_deref().and_then(|path| lookup(claims, path));
    principal.is_staff = matches!(flag, Some(Value::Bool(true)))
        || matches!(flag, Some(Value::String(s)) if s == "true")
        || paths.staff_roles.iter().any(|role| principal.has_role(role));
    Ok(principal)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn paths_read_top_level_namespaced_and_nested_claims() {
        let claims = json!({
            "sub": "u1",
            "https://example.com/tenant": "acme",
            "realm_access": {"roles": ["editor", "admin"]},
            "https://example.com": {"tenant": "not this one"},
        });
        assert_eq!(lookup(&claims, "sub"), Some(&json!("u1")));
        assert_eq!(lookup(&claims, "https://example.com/tenant"), Some(&json!("acme")));
        assert_eq!(lookup(&claims, "realm_access.roles"), Some(&json!(["editor", "admin"])));
        assert_eq!(lookup(&claims, "realm_access.missing"), None);
        assert_eq!(lookup(&claims, "sub.deeper"), None);
    }

    #[test]
    fn scope_strings_and_scp_arrays_are_both_scopes() {
        let paths = ClaimPaths::default();
        let string = principal(&json!({"sub": "a", "scope": "posts:read  posts:write"}), &paths).unwrap();
        assert_eq!(string.scopes, ["posts:read", "posts:write"]);
        let array = principal(&json!({"sub": "a", "scp": ["posts:read", 3, "posts:read"]}), &paths).unwrap();
        assert_eq!(array.scopes, ["posts:read"], "non-strings dropped, duplicates once");
        let none = principal(&json!({"sub": "a", "scope": 5}), &paths).unwrap();
        assert!(none.scopes.is_empty() && !none.is_staff && none.tenant_id.is_none());
    }

    #[test]
    fn keycloak_and_auth0_layouts_map_to_a_principal() {
        let keycloak = ClaimPaths {
            roles: vec!["realm_access.roles".into()],
            staff_roles: vec!["admin".into()],
            tenant: Some("tenant".into()),
            ..ClaimPaths::default()
        };
        let claims = json!({"sub": "k", "realm_access": {"roles": ["admin"]}, "tenant": 42, "scope": "openid"});
        let read = principal(&claims, &keycloak).unwrap();
        assert_eq!((read.user_id.as_deref(), read.tenant_id.as_deref()), (Some("k"), Some("42")));
        assert!(read.is_staff && read.has_role("admin") && read.has_scope("openid"));

        let auth0 = ClaimPaths {
            tenant: Some("https://blog.example/tenant".into()),
            staff: Some("https://blog.example/staff".into()),
            scopes: vec!["scope".into(), "permissions".into()],
            ..ClaimPaths::default()
        };
        let claims = json!({
            "sub": "auth0|1", "https://blog.example/tenant": "acme", "https://blog.example/staff": true,
            "permissions": ["posts:write"], "scope": "openid",
        });
        let read = principal(&claims, &auth0).unwrap();
        assert_eq!(read.tenant_id.as_deref(), Some("acme"));
        assert!(read.is_staff && read.has_scope("posts:write") && read.has_scope("openid"));
        let not_staff = json!({"sub": "x", "https://blog.example/staff": "yes"});
        assert!(!principal(&not_staff, &auth0).unwrap().is_staff, "only true or \"true\" is staff");
    }

    #[test]
    fn a_token_without_its_subject_is_refused() {
        let refused = principal(&json!({"scope": "a"}), &ClaimPaths::default()).unwrap_err();
        assert_eq!(refused, Refusal::MissingClaim("sub".into()));
        assert!(principal(&json!({"sub": ""}), &ClaimPaths::default()).is_err());
    }
}
