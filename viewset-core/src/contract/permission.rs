//! Permissions: synchronous checks run before the query (request level) and on a fetched record (object level).

use crate::error::ApiError;
use crate::request::RequestContext;

/// A permission class. Both checks are synchronous; deny by returning `false`.
///
/// ```
/// use viewset_core::{Permission, RequestContext};
/// struct OnlyStaff;
/// impl Permission for OnlyStaff {
///     fn has_permission(&self, request: &RequestContext) -> bool { request.principal.is_staff }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a permission class",
    label = "not a permission",
    note = "permission_classes takes values implementing `viewset_core::Permission`, e.g. `IsAuthenticated` or `OperationPermission::allow(&[\"read\"])`"
)]
pub trait Permission: Send + Sync {
    /// Request-level check, before any query or write.
    fn has_permission(&self, request: &RequestContext) -> bool;
    /// Object-level check on a fetched record (detail routes). Allows by default.
    fn has_object_permission(&self, request: &RequestContext, object: &dyn std::any::Any) -> bool {
        let _ = (request, object);
        true
    }
    /// The message of the 403 body.
    fn message(&self) -> &str {
        "You do not have permission to perform this action."
    }
    /// Whether [`has_object_permission`](Self::has_object_permission) can deny a record. `true` unless a
    /// permission says otherwise; return `false` when you do not override it, so PATCH can write in one
    /// `UPDATE … RETURNING` instead of reading the record first for you to look at.
    ///
    /// ```
    /// use viewset_core::RequestContext;
    /// use viewset_core::access::{IsAuthenticated, Permission, PermissionExt};
    /// struct OnlyStaff;
    /// impl Permission for OnlyStaff {
    ///     fn has_permission(&self, request: &RequestContext) -> bool { request.principal.is_staff }
    ///     fn checks_objects(&self) -> bool { false }
    /// }
    /// assert!(!OnlyStaff.or(IsAuthenticated).checks_objects());
    /// ```
    fn checks_objects(&self) -> bool {
        true
    }
    /// The error a refused request answers: by default 403 `permission_denied` with [`message`](Self::message).
    /// [`HasScope`] answers 403 `insufficient_scope` with its challenge instead (401 for an anonymous caller).
    ///
    /// ```
    /// use viewset_core::{ApiError, Permission, RequestContext};
    /// struct NeedsStaff;
    /// impl Permission for NeedsStaff {
    ///     fn has_permission(&self, request: &RequestContext) -> bool { request.principal.is_staff }
    ///     fn denied(&self, _: &RequestContext) -> ApiError { ApiError::PermissionDenied("Staff only.".into()) }
    /// }
    /// ```
    fn denied(&self, request: &RequestContext) -> ApiError {
        let _ = request;
        ApiError::PermissionDenied(self.message().to_string())
    }
}

/// Allows every request.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAny;
impl Permission for AllowAny {
    fn has_permission(&self, _: &RequestContext) -> bool {
        true
    }
    fn checks_objects(&self) -> bool {
        false
    }
}

/// Requires an identity.
#[derive(Debug, Clone, Copy, Default)]
pub struct IsAuthenticated;
impl Permission for IsAuthenticated {
    fn has_permission(&self, request: &RequestContext) -> bool {
        request.principal.is_authenticated()
    }
    fn message(&self) -> &str {
        "Authentication credentials were not provided."
    }
    fn checks_objects(&self) -> bool {
        false
    }
}

/// Requires a staff identity.
#[derive(Debug, Clone, Copy, Default)]
pub struct IsAdminUser;
impl Permission for IsAdminUser {
    fn has_permission(&self, request: &RequestContext) -> bool {
        request.principal.is_authenticated() && request.principal.is_staff
    }
    fn checks_objects(&self) -> bool {
        false
    }
}

/// Reads for anyone, writes with an identity.
#[derive(Debug, Clone, Copy, Default)]
pub struct IsAuthenticatedOrReadOnly;
impl Permission for IsAuthenticatedOrReadOnly {
    fn has_permission(&self, request: &RequestContext) -> bool {
        request.operation.is_safe() || request.principal.is_authenticated()
    }
    fn message(&self) -> &str {
        "Authentication credentials were not provided."
    }
    fn checks_objects(&self) -> bool {
        false
    }
}

/// Restricts the operations a ViewSet performs: `read` (safe methods), `create`, `update`, `delete`.
/// Denial happens per request; the routes stay registered.
///
/// ```
/// use viewset_core::access::OperationPermission;
/// const READ_ONLY: OperationPermission = OperationPermission::allow(&["read"]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct OperationPermission {
    allow: &'static [&'static str],
}

impl OperationPermission {
    /// Allows only the listed operation kinds.
    pub const fn allow(allow: &'static [&'static str]) -> Self {
        OperationPermission { allow }
    }
}

impl Permission for OperationPermission {
    fn has_permission(&self, request: &RequestContext) -> bool {
        self.allow.contains(&request.operation.kind())
    }
    fn message(&self) -> &str {
        "This operation is not allowed on this resource."
    }
    fn checks_objects(&self) -> bool {
        false
    }
}

/// Requires a scope of the caller's token ([`Principal::scopes`](crate::Principal), filled by
/// [`Authenticate::jwt`](crate::auth::Authenticate) from the token's `scope` or `scp` claim). A caller without it
/// gets 403 `insufficient_scope` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` (RFC 6750),
/// an anonymous caller 401 `not_authenticated` with `WWW-Authenticate: Bearer` behind a bearer authenticator (so a
/// client knows to get a token), 403 without one.
///
/// ```
/// use viewset_core::access::{HasScope, IsAuthenticatedOrReadOnly, OperationPermission, PermissionExt};
/// // Writes need `posts:write`, reads are open.
/// const WRITE: HasScope = HasScope("posts:write");
/// let _policy = OperationPermission::allow(&["read"]).or(WRITE);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct HasScope(pub &'static str);

impl Permission for HasScope {
    fn has_permission(&self, request: &RequestContext) -> bool {
        request.principal.has_scope(self.0)
    }
    fn message(&self) -> &str {
        "The token lacks the scope this operation needs."
    }
    fn checks_objects(&self) -> bool {
        false
    }
    fn denied(&self, request: &RequestContext) -> ApiError {
        if request.principal.is_authenticated() {
            ApiError::insufficient_scope(self.0)
        } else {
            ApiError::PermissionDenied(self.message().to_string())
        }
    }
}

/// Runs one permission's request-level check. An anonymous caller it refuses with a plain 403 is told 401
/// `not_authenticated` with `WWW-Authenticate: Bearer` when a bearer authenticator saw the request (it can
/// challenge); otherwise the 403 stays, as the spec says.
pub(crate) fn check(permission: &dyn Permission, request: &RequestContext) -> Result<(), ApiError> {
    if permission.has_permission(request) {
        return Ok(());
    }
    Err(match permission.denied(request) {
        ApiError::PermissionDenied(_) if request.challenges && !request.principal.is_authenticated() => {
            ApiError::not_authenticated()
        }
        denied => denied,
    })
}

/// Runs one permission's object-level check.
pub(crate) fn check_object(
    permission: &dyn Permission,
    request: &RequestContext,
    object: &dyn std::any::Any,
) -> Result<(), ApiError> {
    if permission.has_object_permission(request, object) {
        Ok(())
    } else {
        Err(ApiError::PermissionDenied(permission.message().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::composition::PermissionExt;
    use crate::types::operation::Operation;
    use crate::types::principal::Principal;

    fn request(principal: Principal) -> RequestContext {
        let mut request = RequestContext::new(sea_orm::DatabaseConnection::default(), Operation::Create);
        request.principal = principal;
        request
    }

    #[test]
    fn a_missing_scope_is_a_403_insufficient_scope_and_anonymous_a_401_behind_a_bearer_layer() {
        let write = HasScope("posts:write");
        assert!(check(&write, &request(Principal::user("a").with_scope("posts:write"))).is_ok());
        let refused = check(&write, &request(Principal::user("a").with_scope("posts:read"))).unwrap_err();
        assert_eq!((refused.status().as_u16(), refused.body()["code"].as_str()), (403, Some("insufficient_scope")));
        assert_eq!(refused.challenge().unwrap(), r#"Bearer error="insufficient_scope", scope="posts:write""#);
        // Anonymous: the spec's 403, or behind a bearer layer (which marks the request) a 401 challenge.
        let anonymous = check(&write, &request(Principal::anonymous())).unwrap_err();
        assert_eq!((anonymous.status().as_u16(), anonymous.challenge()), (403, None));
        let mut behind_bearer = request(Principal::anonymous());
        behind_bearer.challenges = true;
        let anonymous = check(&write, &behind_bearer).unwrap_err();
        assert_eq!((anonymous.status().as_u16(), anonymous.challenge().unwrap().to_str().unwrap()), (401, "Bearer"));
    }

    #[test]
    fn compositions_answer_the_scope_challenge_of_the_side_that_refused() {
        let reads_or_write = OperationPermission::allow(&["read"]).or(HasScope("posts:write"));
        let refused = check(&reads_or_write, &request(Principal::user("a"))).unwrap_err();
        assert_eq!(refused.body()["scope"], "posts:write");
        let staff_and_scope = IsAdminUser.and(HasScope("posts:write"));
        let staff = request(Principal::user("a").staff());
        assert_eq!(check(&staff_and_scope, &staff).unwrap_err().body()["code"], "insufficient_scope");
        let not_staff = request(Principal::user("a").with_scope("posts:write"));
        assert_eq!(check(&staff_and_scope, &not_staff).unwrap_err().body()["code"], "permission_denied");
        assert_eq!(
            check(&HasScope("x").not(), &request(Principal::user("a").with_scope("x"))).unwrap_err().status(),
            403
        );
    }
}
