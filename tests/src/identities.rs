//! The examples' demo identities, as the bearer tokens the tests send (`None` is anonymous).

/// The blog's tokens (`examples/blog/src/auth.rs`).
pub mod blog {
    /// Alice, staff.
    pub const ALICE: Option<&str> = Some("alice-token");
    /// Bob, not staff.
    pub const BOB: Option<&str> = Some("bob-token");
    /// A token nobody was given: its bearer is anonymous.
    pub const FORGED: Option<&str> = Some("forged-token");
}

/// The tenants example's tokens (`examples/tenants/src/auth.rs`).
pub mod tenants {
    /// Alice of acme, staff.
    pub const ALICE: Option<&str> = Some("acme-alice");
    /// Bob of acme.
    pub const BOB: Option<&str> = Some("acme-bob");
    /// Carol of globex.
    pub const CAROL: Option<&str> = Some("globex-carol");
    /// Dave, authenticated but in no tenant.
    pub const DAVE: Option<&str> = Some("nobody-dave");
    /// A token nobody was given.
    pub const FORGED: Option<&str> = Some("forged-token");
}
