//! A `tracing` layer that keeps the SQL of the store's statement hook: the `sql` field of every `viewset::sql`
//! span, in the order the statements were sent.

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

use crate::harness::Statements;

/// Appends the `sql` of each `viewset::sql` span to its [`Statements`].
///
/// ```
/// use tracing_subscriber::layer::SubscriberExt;
/// let statements = viewset_tests::harness::Statements::default();
/// let subscriber = tracing_subscriber::registry().with(viewset_tests::sql_spans::SqlSpans::new(statements.clone()));
/// tracing::subscriber::with_default(subscriber, || {
///     let _span = tracing::debug_span!(target: "viewset::sql", "statement", sql = "SELECT 1").entered();
///     let _other = tracing::debug_span!("other", sql = "not a statement").entered();
/// });
/// assert_eq!(*statements.lock().unwrap(), ["SELECT 1"]);
/// ```
pub struct SqlSpans(Statements);

impl SqlSpans {
    /// A layer appending to `statements`.
    pub fn new(statements: Statements) -> Self {
        SqlSpans(statements)
    }
}

impl<S: Subscriber> Layer<S> for SqlSpans {
    fn enabled(&self, metadata: &Metadata<'_>, _: Context<'_, S>) -> bool {
        metadata.target() == "viewset::sql"
    }

    fn on_new_span(&self, attributes: &Attributes<'_>, _: &Id, _: Context<'_, S>) {
        if attributes.metadata().target() != "viewset::sql" {
            return;
        }
        let mut sql = Sql(None);
        attributes.record(&mut sql);
        if let Some(sql) = sql.0 {
            self.0.lock().unwrap().push(sql);
        }
    }
}

/// The `sql` field of a span.
struct Sql(Option<String>);

impl Visit for Sql {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "sql" {
            self.0 = Some(value.to_string());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "sql" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}
