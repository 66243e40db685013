//! Counting the SQL statements the server runs, from the store's statement hook (its `viewset::sql` spans).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The statements the server ran while `counting` is on, counted from the store's statement hook. Off, the hook's
/// span is disabled, so timed runs pay for no subscriber.
#[derive(Default)]
pub(crate) struct Statements {
    pub(crate) counting: AtomicBool,
    pub(crate) seen: AtomicUsize,
}

impl Statements {
    /// Counts from now on, as this process's subscriber: the server's tasks run on every worker thread.
    pub(crate) fn install() -> Arc<Statements> {
        let statements = Arc::new(Statements::default());
        let counter =
            tracing_subscriber::layer::SubscriberExt::with(tracing_subscriber::registry(), Counter(statements.clone()));
        let _ = tracing::subscriber::set_global_default(counter);
        statements
    }
}

/// The `tracing` layer over [`Statements`].
struct Counter(Arc<Statements>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Counter {
    fn register_callsite(&self, metadata: &'static tracing::Metadata<'static>) -> tracing::subscriber::Interest {
        match metadata.target() {
            "viewset::sql" => tracing::subscriber::Interest::sometimes(),
            _ => tracing::subscriber::Interest::never(),
        }
    }

    fn enabled(&self, metadata: &tracing::Metadata<'_>, _: tracing_subscriber::layer::Context<'_, S>) -> bool {
        metadata.target() == "viewset::sql" && self.0.counting.load(Ordering::SeqCst)
    }

    fn on_new_span(
        &self,
        _: &tracing::span::Attributes<'_>,
        _: &tracing::span::Id,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        self.0.seen.fetch_add(1, Ordering::SeqCst);
    }
}
