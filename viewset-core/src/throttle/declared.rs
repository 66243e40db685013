//! What a ViewSet declares with `#[viewset(throttle(...))]`, and the rules that apply to one request.

use super::rate::Rate;
use crate::types::operation::Operation;
use crate::types::principal::Principal;

/// The throttles a ViewSet declares: a rate per caller scope and per operation. The derive writes it from
/// `throttle(anon = "20/minute", user = "1000/day", create = "10/minute")`, checking every rate, scope and
/// operation name at compile time. A scope's rate here replaces the application's default for that scope
/// ([`Throttle::anon`](super::Throttle::anon) …) on this ViewSet's routes, counted per ViewSet; an operation's rate
/// applies on top of the scope's, to every caller.
///
/// ```
/// use viewset_core::throttle::{Period, Rate, Throttles};
/// const T: Throttles = Throttles {
///     anon: Some(Rate::new(20, Period::Minute)),
///     operations: &[("create", Rate::new(10, Period::Minute))],
///     ..Throttles::NONE
/// };
/// assert!(!T.is_empty() && Throttles::NONE.is_empty());
/// assert_eq!(T.operation("create"), Some(Rate::new(10, Period::Minute)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Throttles {
    /// Callers without an identity, counted by client address.
    pub anon: Option<Rate>,
    /// Signed-in callers who are not staff, counted by user id.
    pub user: Option<Rate>,
    /// Staff callers, counted by user id (usually none: staff are not limited).
    pub staff: Option<Rate>,
    /// Per operation (`list`, `retrieve`, `create`, `update`, `delete`, `stream`, `aggregate`), for every caller.
    pub operations: &'static [(&'static str, Rate)],
}

impl Throttles {
    /// No throttle.
    pub const NONE: Throttles = Throttles { anon: None, user: None, staff: None, operations: &[] };

    /// Whether nothing is declared.
    pub const fn is_empty(&self) -> bool {
        self.anon.is_none() && self.user.is_none() && self.staff.is_none() && self.operations.is_empty()
    }

    /// The rate declared for the operation named `name`.
    pub fn operation(&self, name: &str) -> Option<Rate> {
        self.operations.iter().find(|(op, _)| *op == name).map(|(_, rate)| *rate)
    }

    /// The rate of `scope` (`anon`, `user` or `staff`).
    pub(crate) fn scope(&self, scope: Scope) -> Option<Rate> {
        match scope {
            Scope::Anon => self.anon,
            Scope::User => self.user,
            Scope::Staff => self.staff,
        }
    }
}

/// Which scope's rate counts a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    Anon,
    User,
    Staff,
}

impl Scope {
    pub(crate) fn of(principal: &Principal) -> Scope {
        match (&principal.user_id, principal.is_staff) {
            (None, _) => Scope::Anon,
            (Some(_), false) => Scope::User,
            (Some(_), true) => Scope::Staff,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Scope::Anon => "anon",
            Scope::User => "user",
            Scope::Staff => "staff",
        }
    }
}

/// One limit a request is counted against: the policy's name (a scope or an operation), its rate and the key of
/// the caller's bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) policy: &'static str,
    pub(crate) rate: Rate,
    pub(crate) key: String,
}

/// What decides the rules of one request.
pub(crate) struct Declared<'a> {
    /// The ViewSet's own declaration, and the name its buckets carry (its basename).
    pub(crate) viewset: (&'a Throttles, &'a str),
    /// The application's defaults (counted across the whole API).
    pub(crate) defaults: &'a Throttles,
    /// An action's own rate.
    pub(crate) action: Option<Rate>,
    /// The application's namespace ([`Throttle::namespace`](super::Throttle::namespace)).
    pub(crate) namespace: &'a str,
}

impl Declared<'_> {
    /// `<namespace><bucket>:<policy>:<who>`, concatenated (the formatting machinery cost a throttled request
    /// about a thousand instructions more under callgrind).
    fn key(&self, bucket: &str, policy: &str, who: &str) -> String {
        let mut key = String::with_capacity(self.namespace.len() + bucket.len() + policy.len() + who.len() + 2);
        for part in [self.namespace, bucket, ":", policy, ":", who] {
            key.push_str(part);
        }
        key
    }

    /// The rules for `principal` doing `operation`, keyed by `who` (the user id, or the client address for an
    /// anonymous caller): the scope's rate (the ViewSet's, else the application's), then the operation's.
    pub(crate) fn rules(&self, principal: &Principal, operation: Operation, who: &str) -> Vec<Rule> {
        let scope = Scope::of(principal);
        let (own, bucket) = self.viewset;
        let mut rules = Vec::with_capacity(2);
        let scoped =
            own.scope(scope).map(|rate| (bucket, rate)).or_else(|| self.defaults.scope(scope).map(|r| ("", r)));
        if let Some((bucket, rate)) = scoped {
            rules.push(Rule { policy: scope.name(), rate, key: self.key(bucket, scope.name(), who) });
        }
        let name = operation.name();
        if let Some(rate) = self.action.or_else(|| own.operation(name)) {
            rules.push(Rule { policy: name, rate, key: self.key(bucket, name, who) });
        }
        rules
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::throttle::rate::Period;

    const MINUTE: Rate = Rate::new(5, Period::Minute);

    #[test]
    fn the_viewset_scope_replaces_the_default_and_operations_add_to_it() {
        let own = Throttles { user: Some(MINUTE), operations: &[("create", MINUTE)], ..Throttles::NONE };
        let defaults = Throttles { anon: Some(MINUTE), user: Some(Rate::new(1, Period::Day)), ..Throttles::NONE };
        let declared = Declared { viewset: (&own, "posts"), defaults: &defaults, action: None, namespace: "" };
        let user = Principal::user("7");
        let rules = declared.rules(&user, Operation::Create, "u:7");
        assert_eq!(rules.iter().map(|r| r.key.as_str()).collect::<Vec<_>>(), ["posts:user:u:7", "posts:create:u:7"]);
        let anon = declared.rules(&Principal::anonymous(), Operation::List, "ip:1.2.3.4");
        assert_eq!(anon, [Rule { policy: "anon", rate: MINUTE, key: ":anon:ip:1.2.3.4".into() }]);
        assert!(declared.rules(&Principal::user("1").staff(), Operation::List, "u:1").is_empty(), "staff: none");
    }
}
