//! Visibility outcomes shared by the stream subscribers that look through the same view.
//!
//! What a subscriber may see of an event depends only on its request: the principal, the method, the URI and the
//! headers (every hook — `get_queryset`, the row policies, object permissions, hidden fields — reads nothing else).
//! Subscribers whose requests are equal form a group, ignoring the two headers that differ per connection and say
//! nothing of what it may see: `Last-Event-ID` (where a stream resumes) and `x-request-id` (the limits layer gives
//! every request its own; a hook must not decide visibility by it). For each event the first member of a group to
//! handle it runs the visibility query and the others reuse its outcome. A subscriber alone in its group computes
//! its own outcome and stores nothing. When a ViewSet has several views, their queries for one event are asked
//! together ([`SharedViews::batch`], `batch.rs`).

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

use tokio::sync::OnceCell;

use crate::bus::batch::{Batches, Turn};

/// What one view may see of one event.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// Visible: the frame's data as this view shows it (the record through the read representation; no record for
    /// a delete), serialized once and shared by the view's subscribers.
    Visible(Arc<str>),
    /// Not in this view.
    Hidden,
    /// The check failed (logged by whoever ran it); the event is skipped.
    Failed,
}

/// Outcomes are kept for the most recent events only; a subscriber handling an older event (replay after a lag)
/// computes its own.
const KEEP: u64 = 32;

/// A view: the ViewSet and the request's key.
type View = (&'static str, Arc<str>);

#[derive(Default)]
struct State {
    /// Subscribers per view.
    members: HashMap<View, usize>,
    /// Views with subscribers per ViewSet.
    views_of: HashMap<&'static str, usize>,
    /// Outcome per (view, event sequence number), for views with more than one member.
    outcomes: HashMap<(View, u64), Arc<OnceCell<Outcome>>>,
    /// The newest sequence number seen, and the one at which old outcomes were last dropped.
    newest: u64,
    pruned_at: u64,
}

/// The groups of subscribers of one event bus, their shared outcomes and the batches of their visibility queries.
#[derive(Default)]
pub(crate) struct SharedViews {
    state: Arc<Mutex<State>>,
    batches: Batches,
}

impl SharedViews {
    /// Registers a subscriber of `viewset` whose request has the key `view` ([`RequestContext::view_key`]: equal
    /// keys, equal views); it leaves its group when the returned value drops.
    ///
    /// [`RequestContext::view_key`]: crate::RequestContext::view_key
    pub(crate) fn join(&self, viewset: &'static str, view: Arc<str>) -> Membership {
        let view: View = (viewset, view);
        let mut state = self.lock();
        let members = state.members.entry(view.clone()).or_default();
        *members += 1;
        if *members == 1 {
            *state.views_of.entry(viewset).or_default() += 1;
        }
        Membership { state: self.state.clone(), view }
    }

    /// The subscribers and the views they form, `(subscribers, views)` (the metrics' gauges).
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    pub(crate) fn counts(&self) -> (usize, usize) {
        let state = self.lock();
        (state.members.values().sum(), state.members.len())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `member`'s view's turn in the batch of event `seq`, when its ViewSet has other views with subscribers and
    /// the event is recent (a subscriber replaying older events checks alone, without waiting for a batch).
    pub(crate) fn batch(&self, member: &Membership, seq: u64) -> Option<Turn<'_>> {
        let state = self.lock();
        let expected = state.views_of.get(member.view.0).copied().unwrap_or(0);
        (expected > 1 && seq + KEEP > state.newest).then_some(Turn {
            batches: &self.batches,
            viewset: member.view.0,
            seq,
            expected,
        })
    }

    /// The outcome of event `seq` for `member`'s view: computed by `compute` once per group.
    pub(crate) async fn outcome<F, Fut>(&self, member: &Membership, seq: u64, compute: F) -> Outcome
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Outcome>,
    {
        let slot = {
            let mut state = self.lock();
            state.newest = state.newest.max(seq);
            if state.newest >= state.pruned_at + KEEP {
                let oldest = state.newest - KEEP;
                state.outcomes.retain(|(_, s), _| *s >= oldest);
                state.pruned_at = state.newest;
            }
            let shared = state.members.get(&member.view).copied().unwrap_or(0) > 1 && seq + KEEP > state.newest;
            shared.then(|| state.outcomes.entry((member.view.clone(), seq)).or_default().clone())
        };
        match slot {
            Some(slot) => slot.get_or_init(compute).await.clone(),
            None => compute().await,
        }
    }
}

/// A subscriber's place in its group.
pub(crate) struct Membership {
    state: Arc<Mutex<State>>,
    view: View,
}

impl Drop for Membership {
    fn drop(&mut self) {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = state.members.get_mut(&self.view) {
            *count -= 1;
            if *count == 0 {
                state.members.remove(&self.view);
                if let Some(views) = state.views_of.get_mut(self.view.0) {
                    *views -= 1;
                    if *views == 0 {
                        state.views_of.remove(self.view.0);
                    }
                }
                let view = &self.view;
                state.outcomes.retain(|(v, _), _| v != view);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::request::RequestContext;
    use crate::types::operation::Operation;
    use crate::types::principal::Principal;

    async fn context(user: &str, resume: Option<&str>) -> RequestContext {
        let db = sea_orm::Database::connect("sqlite::memory:").await.expect("sqlite");
        let mut request = RequestContext::new(db, Operation::Stream);
        request.principal = Principal { user_id: Some(user.into()), ..Principal::default() };
        if let Some(id) = resume {
            request.headers.insert("last-event-id", id.parse().expect("header"));
        }
        // Every request has its own id (the limits layer sets one); it must not split a view.
        static IDS: AtomicUsize = AtomicUsize::new(0);
        let request_id = IDS.fetch_add(1, Ordering::SeqCst).to_string();
        request.headers.insert("x-request-id", request_id.parse().expect("header"));
        request
    }

    #[tokio::test]
    async fn equal_requests_share_one_computation_and_others_do_not() {
        let views = SharedViews::default();
        let a1 = views.join("V", context("alice", None).await.view_key());
        let a2 = views.join("V", context("alice", Some("x-3")).await.view_key());
        let bob = views.join("V", context("bob", None).await.view_key());
        let other_viewset = views.join("W", context("alice", None).await.view_key());
        let runs = AtomicUsize::new(0);
        let compute = || async {
            runs.fetch_add(1, Ordering::SeqCst);
            Outcome::Visible(Arc::from(r#"{"id":1}"#))
        };
        for member in [&a1, &a2, &bob, &other_viewset] {
            assert_eq!(views.outcome(member, 7, compute).await, Outcome::Visible(Arc::from(r#"{"id":1}"#)));
        }
        // alice's two streams share one run; bob and the other ViewSet each run their own.
        assert_eq!(runs.load(Ordering::SeqCst), 3);
        // A new event is computed again.
        views.outcome(&a1, 8, compute).await;
        views.outcome(&a2, 8, compute).await;
        assert_eq!(runs.load(Ordering::SeqCst), 4);
        // Alone in its group, a subscriber stores nothing.
        drop(a2);
        views.outcome(&a1, 9, compute).await;
        assert!(!views.lock().outcomes.contains_key(&(a1.view.clone(), 9)));
        assert_eq!(runs.load(Ordering::SeqCst), 5);
    }

    #[tokio::test]
    async fn old_outcomes_are_dropped() {
        let views = SharedViews::default();
        let a1 = views.join("V", context("alice", None).await.view_key());
        let _a2 = views.join("V", context("alice", None).await.view_key());
        for seq in 1..=200 {
            views.outcome(&a1, seq, || async { Outcome::Hidden }).await;
        }
        assert!(views.lock().outcomes.len() as u64 <= 2 * KEEP);
    }
}
