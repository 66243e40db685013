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
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Principal {
    /// The user's id; `None` for anonymous callers.
    pub user_id: Option<String>,
    /// The tenant the caller acts for, if any.
    pub tenant_id: Option<String>,
    /// Staff (admin) flag.
    pub is_staff: bool,
    /// Role names (a JWT's roles claim, e.g. Keycloak's `realm_access.roles`, with `Authenticate::jwt`).
    pub roles: Vec<String>,
    /// Granted scopes (a JWT's `scope` or `scp` claim with `Authenticate::jwt`), checked by
    /// [`HasScope`](crate::access::HasScope).
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
    /// Adds a granted scope.
    ///
    /// ```
    /// let bob = viewset_core::Principal::user("bob").with_scope("posts:write");
    /// assert!(bob.has_scope("posts:write") && !bob.has_scope("posts:delete"));
    /// ```
    pub fn with_scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes.push(scope.into());
        self
    }
    /// Whether `scope` was granted.
    ///
    /// ```
    /// assert!(!viewset_core::Principal::anonymous().has_scope("posts:read"));
    /// ```
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|granted| granted == scope)
    }
    /// Whether the caller has role `role`.
    ///
    /// ```
    /// assert!(viewset_core::Principal::user("ann").with_role("editor").has_role("editor"));
    /// ```
    pub fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|held| held == role)
    }
    /// Whether the caller has an identity.
    pub fn is_authenticated(&self) -> bool {
        self.user_id.is_some()
    }
}
