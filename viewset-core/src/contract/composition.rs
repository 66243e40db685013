//! Composing permissions: `IsAuthenticated.and(IsAdminUser)`, `a.or(b)`, `a.not()`.

use std::any::Any;

use crate::contract::permission::Permission;
use crate::error::ApiError;
use crate::request::RequestContext;

/// The denial of a composition: a side's own when it is not the plain 403 (a missing scope's challenge, a 401),
/// else the plain 403 with the composition's message.
fn side_denial(side: ApiError, plain: &str) -> ApiError {
    match side {
        ApiError::PermissionDenied(_) => ApiError::PermissionDenied(plain.to_string()),
        other => other,
    }
}

/// Both permissions must allow.
#[derive(Debug, Clone, Copy)]
pub struct And<A, B>(pub A, pub B);

/// Either permission may allow.
#[derive(Debug, Clone, Copy)]
pub struct Or<A, B>(pub A, pub B);

/// Allows what the inner permission denies.
#[derive(Debug, Clone, Copy)]
pub struct Not<A>(pub A);

impl<A: Permission, B: Permission> Permission for And<A, B> {
    fn has_permission(&self, request: &RequestContext) -> bool {
        self.0.has_permission(request) && self.1.has_permission(request)
    }
    fn has_object_permission(&self, request: &RequestContext, object: &dyn Any) -> bool {
        self.0.has_object_permission(request, object) && self.1.has_object_permission(request, object)
    }
    fn checks_objects(&self) -> bool {
        self.0.checks_objects() || self.1.checks_objects()
    }
    /// The first refusing side's denial when it is not the plain 403 (`HasScope`'s `insufficient_scope`).
    fn denied(&self, request: &RequestContext) -> ApiError {
        let refusing = if self.0.has_permission(request) { self.1.denied(request) } else { self.0.denied(request) };
        side_denial(refusing, self.message())
    }
}

impl<A: Permission, B: Permission> Permission for Or<A, B> {
    fn has_permission(&self, request: &RequestContext) -> bool {
        self.0.has_permission(request) || self.1.has_permission(request)
    }
    /// An object passes when a side that allowed the request also allows the object.
    fn has_object_permission(&self, request: &RequestContext, object: &dyn Any) -> bool {
        (self.0.has_permission(request) && self.0.has_object_permission(request, object))
            || (self.1.has_permission(request) && self.1.has_object_permission(request, object))
    }
    fn checks_objects(&self) -> bool {
        self.0.checks_objects() || self.1.checks_objects()
    }
    /// The second side's denial when it is not the plain 403 (`Reads.or(HasScope("posts:write"))` names the scope).
    fn denied(&self, request: &RequestContext) -> ApiError {
        side_denial(self.1.denied(request), self.message())
    }
}

impl<A: Permission> Permission for Not<A> {
    fn has_permission(&self, request: &RequestContext) -> bool {
        !self.0.has_permission(request)
    }
    /// Negation applies to the request check only: object checks of a negated permission always pass.
    fn has_object_permission(&self, _: &RequestContext, _: &dyn Any) -> bool {
        true
    }
    fn checks_objects(&self) -> bool {
        false
    }
}

/// `.and()`, `.or()` and `.not()` on every permission.
///
/// ```
/// use viewset_core::prelude::*;
/// use viewset_core::{Operation, RequestContext};
/// use viewset_core::access::PermissionExt;
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// let db = sea_orm::Database::connect("sqlite::memory:").await?;
/// let mut request = RequestContext::new(db, Operation::Create);
/// let staff_or_readonly = IsAdminUser.or(OperationPermission::allow(&["read"]));
/// assert!(!staff_or_readonly.has_permission(&request));
/// request.principal = Principal::user("alice").staff();
/// assert!(staff_or_readonly.has_permission(&request));
/// assert!(!IsAuthenticated.not().has_permission(&request));
/// # Ok(()) }
/// ```
pub trait PermissionExt: Permission + Sized {
    /// Both must allow.
    fn and<B: Permission>(self, other: B) -> And<Self, B> {
        And(self, other)
    }
    /// Either may allow.
    fn or<B: Permission>(self, other: B) -> Or<Self, B> {
        Or(self, other)
    }
    /// The opposite.
    fn not(self) -> Not<Self> {
        Not(self)
    }
}

impl<P: Permission> PermissionExt for P {}
