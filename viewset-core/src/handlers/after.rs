//! After-commit hooks ([`crate::Hooks::after_commit`]): called in a task of their own once a write committed, each
//! row in order, a panic logged and contained, the answer never waiting for them.

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;

use crate::contract::committed::Committed;
use crate::contract::hooks::Hooks;
use crate::contract::viewset::ModelOf;
use crate::request::RequestContext;

/// Hands `changes` (the committed rows of one write) to `V`'s `after_commit`, in a task of its own. The callers
/// build `changes` only for a ViewSet with `custom_hooks` (the only ones that can override the hook).
pub(crate) fn after_commit<V: Hooks>(request: &RequestContext, changes: Vec<Committed<ModelOf<V>>>) {
    if changes.is_empty() {
        return;
    }
    let request = request.clone();
    tokio::spawn(async move {
        for change in changes {
            let action = change.action();
            if AssertUnwindSafe(V::after_commit(&request, change)).catch_unwind().await.is_err() {
                tracing::error!(
                    target: "viewset::after_commit",
                    viewset = V::CONFIG.name,
                    action,
                    "an after_commit hook panicked; the write stays committed"
                );
            }
        }
    });
}

/// Whether `V`'s writes build their [`Committed`] rows: only with `custom_hooks`.
pub(crate) const fn hooked<V: Hooks>() -> bool {
    V::CONFIG.custom_hooks
}
