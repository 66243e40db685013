//! What a request does, as permissions see it.

/// The operation a request performs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Operation {
    /// `GET <prefix>/`
    List,
    /// `GET <prefix>/{pk}`
    Retrieve,
    /// `POST <prefix>/`
    Create,
    /// `PATCH <prefix>/{pk}`
    Update,
    /// `DELETE <prefix>/{pk}`
    Delete,
    /// `GET <prefix>/stream`
    Stream,
    /// `GET <prefix>/aggregate`: counts, sums and time buckets over the list's rows ([`crate::aggregate`]).
    Aggregate,
    /// A custom action: its name, and whether its HTTP method is safe (GET/HEAD/OPTIONS).
    Action {
        /// The action's name (its method name).
        name: &'static str,
        /// Whether the action only reads.
        safe: bool,
    },
}

impl Operation {
    /// `read` for the safe operations (reading actions included), else `create`, `update`, `delete` or the
    /// action's name.
    ///
    /// ```
    /// assert_eq!(viewset_core::Operation::List.kind(), "read");
    /// ```
    pub fn kind(self) -> &'static str {
        match self {
            Operation::List | Operation::Retrieve | Operation::Stream | Operation::Aggregate => "read",
            Operation::Create => "create",
            Operation::Update => "update",
            Operation::Delete => "delete",
            Operation::Action { safe: true, .. } => "read",
            Operation::Action { name, .. } => name,
        }
    }
    /// `list`, `retrieve`, `create`, `update`, `delete`, `stream`, `aggregate` or the action's name: what a ViewSet's
    /// `throttle(...)` names the operation by.
    ///
    /// ```
    /// let action = viewset_core::Operation::Action { name: "publish", safe: false };
    /// assert_eq!((viewset_core::Operation::Create.name(), action.name()), ("create", "publish"));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Operation::List => "list",
            Operation::Retrieve => "retrieve",
            Operation::Create => "create",
            Operation::Update => "update",
            Operation::Delete => "delete",
            Operation::Stream => "stream",
            Operation::Aggregate => "aggregate",
            Operation::Action { name, .. } => name,
        }
    }

    /// Whether the operation only reads.
    pub fn is_safe(self) -> bool {
        self.kind() == "read"
    }
}
