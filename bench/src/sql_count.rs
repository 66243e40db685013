//! Counting the SQL statements the server runs, from the store's statement hook (its `viewset::sql` spans).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The statements the server ran while `counting` is on, counted from the store's statement hook. Off, the hook's
/// span is disabled, so timed runs pay for no subscriber.
#[derive(Default)]
pub(crate) struct Statements {
    pub(crate) counting: AtomicBool,
    pub(crate) seen: AtomicUsize,
    /// The text of the statements seen (their `sql` field, values written in), kept only while `keep_text` is on.
    pub(crate) keep_text: AtomicBool,
    pub(crate) texts: Mutex<Vec<String>>,
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
        attributes: &tracing::span::Attributes<'_>,
        _: &tracing::span::Id,
        _: tracing_subscriber::layer::Context<'_, S>,
    ) {
        self.0.seen.fetch_add(1, Ordering::SeqCst);
        if self.0.keep_text.load(Ordering::SeqCst) {
            let mut text = SqlText(None);
            attributes.record(&mut text);
            if let (Some(sql), Ok(mut texts)) = (text.0, self.0.texts.lock()) {
                texts.push(sql);
            }
        }
    }
}

/// The `sql` field of a statement's span.
struct SqlText(Option<String>);

impl tracing::field::Visit for SqlText {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "sql" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}
