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

/// Runs one permission's request-level check.
pub(crate) fn check(permission: &dyn Permission, request: &RequestContext) -> Result<(), ApiError> {
    if permission.has_permission(request) {
        Ok(())
    } else {
        Err(ApiError::PermissionDenied(permission.message().to_string()))
    }
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
