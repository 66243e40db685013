//! The database's plan of a statement: [`explain`] for `/ai` and Studio, [`estimate`] for `?count=estimated`.

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, DbErr, Statement};

use super::observe::RecordedStatement;
use super::replica::read_row;

/// The database's plan for a recorded statement, one line per plan row, without running it: `EXPLAIN` on
/// PostgreSQL and MariaDB/MySQL (never `ANALYZE`), `EXPLAIN QUERY PLAN` on SQLite, with the statement's own bound values (nothing
/// is inlined into the SQL).
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::ConnectionTrait;
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// db.execute_unprepared("CREATE TABLE posts (id INTEGER PRIMARY KEY, views INTEGER)").await?;
/// let statement = sea_orm::Statement::from_sql_and_values(
///     db.get_database_backend(),
///     "SELECT id FROM posts WHERE views > ?",
///     [7.into()],
/// );
/// let recorded =
///     viewset_core::store::RecordedStatement { role: "page", sql: statement.to_string(), elapsed_ms: None, statement };
/// let plan = viewset_core::store::explain(&db, &recorded).await?;
/// assert!(plan.iter().any(|line| line.contains("posts")), "{plan:?}");
/// # Ok(()) }
/// ```
pub async fn explain(db: &DatabaseConnection, recorded: &RecordedStatement) -> Result<Vec<String>, DbErr> {
    let backend = db.get_database_backend();
    let prefix = if backend == DbBackend::Sqlite { "EXPLAIN QUERY PLAN " } else { "EXPLAIN " };
    let values = recorded.statement.values.clone().map(|v| v.0).unwrap_or_default();
    let plan = Statement::from_sql_and_values(backend, format!("{prefix}{}", recorded.statement.sql), values);
    let rows = crate::boxed::boxed(|| db.query_all_raw(plan)).await?;
    let line = |row: &sea_orm::QueryResult| -> String {
        match backend {
            DbBackend::Sqlite => row.try_get::<String>("", "detail").unwrap_or_default(),
            DbBackend::MySql => mysql_line(row),
            _ => row.try_get::<String>("", "QUERY PLAN").unwrap_or_default(),
        }
    };
    Ok(rows.iter().map(line).collect())
}

/// A row of MariaDB/MySQL's tabular `EXPLAIN` as one line: `select_type=SIMPLE table=posts type=ALL rows=3 …`
/// (the columns that are not `NULL`; numbers and text alike).
fn mysql_line(row: &sea_orm::QueryResult) -> String {
    let text = |column: &str| {
        let number = || row.try_get::<Option<i64>>("", column).ok().flatten().map(|n| n.to_string());
        row.try_get::<Option<String>>("", column).ok().flatten().or_else(number)
    };
    let columns = ["select_type", "table", "type", "possible_keys", "key", "rows", "Extra"];
    let cells: Vec<String> = columns.iter().filter_map(|c| text(c).map(|v| format!("{c}={v}"))).collect();
    cells.join(" ")
}

/// The planner's row estimate for `inner` (a filtered select): on PostgreSQL `EXPLAIN (FORMAT JSON)`, the top plan's
/// `Plan Rows`; on MariaDB `EXPLAIN FORMAT=JSON`, the product of `rows × filtered %` over the tables of the top query
/// block ([`mariadb_rows`], InnoDB's index statistics). `None` on SQLite and MySQL (whose JSON plan is shaped
/// otherwise), or when the plan cannot be read: the caller then counts exactly, and an unreachable database is
/// reported by that count like by any other query. Read where the request reads (a replica for a GET).
pub(crate) async fn estimate(inner: &Statement, reader: crate::request::Reader<'_>) -> Option<u64> {
    let backend = reader.backend();
    let sql = match backend {
        DbBackend::Postgres => format!("EXPLAIN (FORMAT JSON) {}", inner.sql),
        DbBackend::MySql => format!("EXPLAIN FORMAT=JSON {}", inner.sql),
        _ => return None,
    };
    let values = inner.values.as_ref().map(|v| v.0.clone()).unwrap_or_default();
    let statement = Statement::from_sql_and_values(backend, sql, values);
    let plan = match read_row(reader.into(), statement, "estimate").await {
        Ok(Some(row)) if backend == DbBackend::Postgres => row.try_get::<serde_json::Value>("", "QUERY PLAN").ok(),
        Ok(Some(row)) => row.try_get::<String>("", "EXPLAIN").ok().and_then(|text| serde_json::from_str(&text).ok()),
        Ok(None) => None,
        Err(e) => {
            tracing::warn!(error = %e, "could not read the planner's estimate; counting exactly");
            None
        }
    };
    match backend {
        DbBackend::Postgres => plan.and_then(|p| p[0]["Plan"]["Plan Rows"].as_f64()).map(|rows| rows.max(0.0) as u64),
        _ => plan.and_then(|p| mariadb_rows(&p)),
    }
}

/// The rows MariaDB's JSON plan expects its top query block to produce: the product of each joined table's `rows`
/// and `filtered` (a percentage). `None` for a block without tables to read (an `Impossible WHERE`, MySQL's other
/// shape), which is then counted exactly.
fn mariadb_rows(plan: &serde_json::Value) -> Option<u64> {
    let block = &plan["query_block"];
    let tables: Vec<&serde_json::Value> = match block["nested_loop"].as_array() {
        Some(tables) => tables.iter().map(|step| &step["table"]).collect(),
        None => vec![&block["table"]],
    };
    let mut rows = 1.0;
    for table in tables {
        rows *= table["rows"].as_f64()? * table["filtered"].as_f64().unwrap_or(100.0) / 100.0;
    }
    Some(rows.max(0.0) as u64)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn mariadb_estimates_rows_times_filtered_over_the_joined_tables() {
        let table =
            |rows: u64, filtered: f64| json!({"table": {"table_name": "t", "rows": rows, "filtered": filtered}});
        let plan = json!({"query_block": {"select_id": 1, "nested_loop": [table(20_000, 50.0), table(1, 100.0)]}});
        assert_eq!(super::mariadb_rows(&plan), Some(10_000));
        let single = json!({"query_block": {"select_id": 1, "table": {"table_name": "t", "rows": 7}}});
        assert_eq!(super::mariadb_rows(&single), Some(7));
        let impossible = json!({"query_block": {"select_id": 1, "table": {"message": "Impossible WHERE"}}});
        assert_eq!(super::mariadb_rows(&impossible), None);
    }
}
