//! The statement hook: every statement the store runs, sent to sqlx directly or through sea-orm, is seen here
//! once before it is sent and once when it returned. It opens a `DEBUG` span on the target `viewset::sql` (fields
//! `role`, `sql` with its values written in, then `rows` and `elapsed_ms`; and OpenTelemetry's `db.system`,
//! `db.statement` with its placeholders, `db.operation` (the role), `otel.name`: the statement's verb), and inside
//! [`record_statements`] it adds the statement to the recording. When neither wants it, it costs a check of the
//! span's level and of the task-local.

use std::cell::RefCell;
use std::time::Instant;

use sea_orm::Statement;

tokio::task_local! {
    static STATEMENTS: RefCell<Vec<RecordedStatement>>;
}

/// One SQL statement, as recorded by [`record_statements`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RecordedStatement {
    /// What it was for: `page` (a list's rows), `count` (the filtered set that is counted), `lookup` (one record),
    /// `embed` (records of an `?expand=` relation), `insert`, `update`, `delete`, `visibility` (the stream),
    /// `estimate` (the planner's row estimate), `query` ([`super::query_all`], [`super::query_one`]).
    pub role: &'static str,
    /// The statement, values inlined for reading.
    pub sql: String,
    /// Milliseconds from just before it was sent until its rows were read (`None` if it did not finish).
    pub elapsed_ms: Option<f64>,
    /// The statement as it ran: SQL with placeholders and its bound values (what [`super::explain`] plans).
    #[serde(skip)]
    pub statement: Statement,
}

/// Runs `future` and returns what it produced with the SQL statements the store ran inside it, in order. Outside
/// such a scope nothing is recorded.
///
/// ```
/// # async fn run() {
/// let (answer, statements) = viewset_core::store::record_statements(async { 42 }).await;
/// assert_eq!(answer, 42);
/// assert!(statements.is_empty());
/// # }
/// ```
pub async fn record_statements<F: std::future::Future>(future: F) -> (F::Output, Vec<RecordedStatement>) {
    STATEMENTS
        .scope(RefCell::new(Vec::new()), async {
            let output = future.await;
            (output, STATEMENTS.with(|s| s.take()))
        })
        .await
}

/// A statement on its way: made by [`observe`] just before it is sent, [`Observed::finish`]ed when it returned.
pub(super) struct Observed {
    span: tracing::Span,
    recorded: Option<usize>,
    started: Option<Instant>,
    measured: crate::measure::Statement,
}

/// Opens the hook's span for `statement` and records it when a [`record_statements`] scope is active.
pub(super) fn observe(role: &'static str, statement: &Statement) -> Observed {
    let span = tracing::debug_span!(
        target: "viewset::sql",
        "statement",
        role,
        sql = %statement,
        rows = tracing::field::Empty,
        elapsed_ms = tracing::field::Empty,
        otel.kind = "client",
        otel.name = verb(&statement.sql),
        db.system = system(statement.db_backend),
        db.statement = statement.sql.as_str(),
        db.operation = role,
    );
    let recorded = STATEMENTS
        .try_with(|recorded| {
            let mut recorded = recorded.borrow_mut();
            let sql = statement.to_string();
            recorded.push(RecordedStatement { role, sql, elapsed_ms: None, statement: statement.clone() });
            recorded.len() - 1
        })
        .ok();
    let started = (recorded.is_some() || !span.is_disabled()).then(Instant::now);
    Observed { span, recorded, started, measured: crate::measure::statement(role) }
}

impl Observed {
    /// Notes the statement's time and, when it succeeded, its number of rows (returned or changed).
    pub(super) fn finish<E>(self, rows: Result<usize, &E>) {
        self.measured.finish();
        let Some(started) = self.started else { return };
        let elapsed = started.elapsed().as_secs_f64() * 1000.0;
        if let Ok(rows) = rows {
            self.span.record("rows", rows);
        }
        self.span.record("elapsed_ms", elapsed);
        if let Some(index) = self.recorded {
            let _ = STATEMENTS.try_with(|recorded| {
                if let Some(statement) = recorded.borrow_mut().get_mut(index) {
                    statement.elapsed_ms = Some(elapsed);
                }
            });
        }
    }
}

/// The OpenTelemetry `db.system` of `backend`.
fn system(backend: sea_orm::DbBackend) -> &'static str {
    match backend {
        sea_orm::DbBackend::Postgres => "postgresql",
        sea_orm::DbBackend::MySql => "mysql",
        sea_orm::DbBackend::Sqlite => "sqlite",
        _ => "other_sql",
    }
}

/// The first word of `sql` (`SELECT`, `UPDATE`, `WITH`, …), the statement span's name.
fn verb(sql: &str) -> &str {
    sql.split_whitespace().next().unwrap_or("statement")
}
