//! Functions the derive's generated code calls: permission checks, and type assertions that make rustc report
//! a wrong field at the user's token.

use crate::{ApiError, Permission, RequestContext};

/// Runs one permission's request-level check.
pub fn check_permission<P: Permission>(permission: &P, request: &RequestContext) -> Result<(), ApiError> {
    if permission.has_permission(request) {
        Ok(())
    } else {
        Err(ApiError::PermissionDenied(permission.message().to_string()))
    }
}

/// Runs one permission's object-level check.
pub fn check_object_permission<P: Permission, M: 'static>(
    permission: &P,
    request: &RequestContext,
    object: &M,
) -> Result<(), ApiError> {
    if permission.has_object_permission(request, object) {
        Ok(())
    } else {
        Err(ApiError::PermissionDenied(permission.message().to_string()))
    }
}

/// A column type that `search_fields` can match with a substring.
#[diagnostic::on_unimplemented(
    message = "search field has type `{Self}`, which is not a text column",
    label = "`search_fields` accepts only text (`String`) columns",
    note = "filter numbers with `filterable_fields` and lookups such as `views__gte=10`"
)]
pub trait TextColumn {}
impl TextColumn for String {}
impl TextColumn for Option<String> {}

/// Compiles only when the field is a text column.
pub fn assert_text_field<T: TextColumn>(_: &T) {}
