//! The server-owned identity of a caller.

/// Who is calling. The application's own authentication middleware inserts it as a request extension
/// (`request.extensions_mut().insert(principal)`); the framework never reads identity from client-controlled
/// headers by itself. A request without one is [`Principal::anonymous`].
///
/// ```
/// use viewset_core::Principal;
/// let alice = Principal::user("alice").with_tenant("acme").staff();
/// assert!(alice.is_authenticated() && alice.is_staff);
/// assert!(!Principal::anonymous().is_authenticated());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Principal {
    /// The user's id; `None` for anonymous callers.
    pub user_id: Option<String>,
    /// The tenant the caller acts for, if any.
    pub tenant_id: Option<String>,
    /// Staff (admin) flag.
    pub is_staff: bool,
    /// Role names.
    pub roles: Vec<String>,
    /// Granted scopes.
    pub scopes: Vec<String>,
}

impl Principal {
    /// A caller with no identity.
    pub fn anonymous() -> Self {
        Principal::default()
    }
    /// An authenticated user.
    pub fn user(id: impl Into<String>) -> Self {
        Principal { user_id: Some(id.into()), ..Principal::default() }
    }
    /// Sets the tenant.
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant_id = Some(tenant.into());
        self
    }
    /// Marks the principal as staff.
    pub fn staff(mut self) -> Self {
        self.is_staff = true;
        self
    }
    /// Adds a role.
    pub fn with_role(mut self, role: impl Into<String>) -> Self {
        self.roles.push(role.into());
        self
    }
    /// Whether the caller has an identity.
    pub fn is_authenticated(&self) -> bool {
        self.user_id.is_some()
    }
}
