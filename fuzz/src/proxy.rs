//! An in-process database for the routes: sea-orm builds every statement for the real backend (SQLite or
//! PostgreSQL placeholders and quoting), and this proxy answers it with the rows the target chose. Every statement is
//! checked on the way: each value is bound (placeholders and values agree), none is a non-finite float, and the SQL
//! text carries no NUL. A violation panics, which libFuzzer reports as a crash with the input that caused it.

use std::sync::Mutex;

use sea_orm::sea_query::Value;
use sea_orm::{DbBackend, DbErr, Iterable, ModelTrait, ProxyDatabaseTrait, ProxyExecResult, ProxyRow, Statement};

use crate::model::item;

/// The column a counted page's statement adds to each row (`viewset_core` decodes it by this name).
const WINDOW_COUNT: &str = "viewset_window_count";

/// Answers statements with `rows` (a count query, or a page's window count, with their number).
#[derive(Debug, Default)]
pub struct Proxy {
    rows: Mutex<Vec<item::Model>>,
}

impl Proxy {
    /// The rows every following `SELECT` answers with.
    pub fn set_rows(&self, rows: Vec<item::Model>) {
        *self.rows.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = rows;
    }

    fn rows(&self) -> Vec<item::Model> {
        self.rows.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

#[async_trait::async_trait]
impl ProxyDatabaseTrait for Proxy {
    async fn query(&self, statement: Statement) -> Result<Vec<ProxyRow>, DbErr> {
        check_statement(&statement);
        let rows = self.rows();
        if statement.sql.contains("COUNT(*) AS num_items") {
            let count = Value::BigInt(Some(rows.len() as i64));
            return Ok(vec![ProxyRow::new([("num_items".to_string(), count)].into())]);
        }
        let write = statement.sql.starts_with("INSERT") || statement.sql.starts_with("UPDATE");
        if write {
            // `RETURNING`: the written rows as the database would give them back, one per `VALUES` tuple.
            let written = rows.into_iter().next().unwrap_or_else(sample);
            let ids = 1..=inserted_rows(&statement) as i32;
            return Ok(ids.map(|id| row(&item::Model { id, ..written.clone() })).collect());
        }
        // A counted page in one statement (`COUNT(*) OVER () AS viewset_window_count`): every row carries the
        // count of all rows before the `LIMIT`, as the database computes it.
        let mut answer: Vec<ProxyRow> = rows.iter().map(row).collect();
        if statement.sql.contains("COUNT(*) OVER ()") {
            let count = Value::BigInt(Some(rows.len() as i64));
            for row in &mut answer {
                row.values.insert(WINDOW_COUNT.to_string(), count.clone());
            }
        }
        Ok(answer)
    }

    async fn execute(&self, statement: Statement) -> Result<ProxyExecResult, DbErr> {
        check_statement(&statement);
        Ok(ProxyExecResult::new(1, 1))
    }
}

/// How many rows an `INSERT INTO t (c1, …, cn) VALUES (…), …` writes: its bound values over its columns (1 for
/// an `UPDATE`, or an insert of defaults only).
fn inserted_rows(statement: &Statement) -> usize {
    let values = statement.values.as_ref().map_or(0, |v| v.0.len());
    let sql = &statement.sql;
    let columns = match (sql.starts_with("INSERT"), sql.find('('), sql.find(')')) {
        (true, Some(open), Some(close)) if open < close => sql[open..close].matches(',').count() + 1,
        _ => return 1,
    };
    (values / columns).max(1)
}

/// A model as the row a `SELECT` of every column returns (keys are column names, `label_text` included).
fn row(model: &item::Model) -> ProxyRow {
    ProxyRow::new(item::Column::iter().map(|c| (sea_orm::IdenStatic::as_str(&c).to_string(), model.get(c))).collect())
}

/// A plain record (the one a write returns when the target chose no rows).
pub fn sample() -> item::Model {
    let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 22).expect("a valid date");
    let noon = chrono::NaiveTime::from_hms_opt(12, 0, 0).expect("a valid time");
    item::Model {
        id: 1,
        title: "First".into(),
        body: "Body".into(),
        views: 10,
        small: 1,
        big: Some(1 << 40),
        published: true,
        rating: Some(4.5),
        ratio: 0.25,
        born: Some(day),
        opens: Some(noon),
        seen: Some(day.and_time(noon)),
        created_at: day.and_time(noon).and_utc(),
        secret: Some("s".into()),
        label: None,
        meta: Some(serde_json::json!({"k": [1, 2]})),
    }
}

/// Placeholders and bound values agree; no value is a NaN or an infinity; no NUL in the SQL text.
pub fn check_statement(statement: &Statement) {
    let sql = &statement.sql;
    let values = statement.values.as_ref().map_or(&[][..], |v| &v.0[..]);
    assert!(!sql.contains('\0'), "NUL in SQL text: {sql}");
    for value in values {
        let finite = match value {
            Value::Float(Some(f)) => f.is_finite(),
            Value::Double(Some(f)) => f.is_finite(),
            _ => true,
        };
        assert!(finite, "a non-finite float is bound: {value:?} in {sql}");
    }
    let placeholders = placeholders(sql, statement.db_backend);
    match statement.db_backend {
        DbBackend::Postgres => {
            let expected: Vec<usize> = (1..=values.len()).collect();
            let mut seen = placeholders.clone();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen, expected, "placeholders {placeholders:?} and {} values disagree: {sql}", values.len());
        }
        _ => assert_eq!(placeholders.len(), values.len(), "placeholders and values disagree: {sql} {values:?}"),
    }
}

/// The placeholders outside quoted identifiers and literals: `$n` numbers on PostgreSQL, one `0` per `?` elsewhere.
fn placeholders(sql: &str, backend: DbBackend) -> Vec<usize> {
    let bytes = sql.as_bytes();
    let mut found = Vec::new();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if backend == DbBackend::Postgres && b == b'$' => {
                let digits = bytes[i + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
                let n = sql[i + 1..i + 1 + digits].parse().unwrap_or_else(|_| panic!("a bare `$` in {sql}"));
                found.push(n);
                i += digits;
            }
            None if backend != DbBackend::Postgres && b == b'?' => found.push(0),
            None => {}
        }
        i += 1;
    }
    assert!(quote.is_none(), "an unterminated quote in {sql}");
    found
}
