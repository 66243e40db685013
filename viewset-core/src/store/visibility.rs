//! Which of many scopes admit one record, asked in one statement per chunk of scopes (the stream's fan-out over
//! many views, issue 47): `SELECT <the record's columns>, EXISTS(<scope 1>) AS "__admits_0", … FROM <table> WHERE
//! <key>`. Each scope is a view's scoped select already narrowed to the record's key, as the view would run it
//! alone (`LIMIT 1`); its select list is replaced by `1`. Each chunk returns the record with its answers, so a view
//! is shown the record from the same statement (the same snapshot) that admitted it. A deleted record's last
//! state is asked the same way, over a one-row common table expression ([`admitted_over_row`]).

use futures_util::future::try_join_all;
use sea_orm::sea_query::{
    Alias, CommonTableExpression, Expr, MysqlQueryBuilder, PostgresQueryBuilder, Query, SelectStatement,
    SqliteQueryBuilder, WithClause, WithQuery,
};
use sea_orm::{DbBackend, DbErr, QueryResult, Statement, Value};

use super::replica::read_row;
use crate::request::Reader;

/// Scopes asked per statement: 200 `EXISTS` columns stay far below SQLite's 2,000 result columns and MySQL's 4,096,
/// and below SQLite's 32,766 bound parameters while a scope binds fewer than 160 values (PostgreSQL's and MariaDB's
/// bound is 65,535).
const SCOPES_PER_STATEMENT: usize = 200;

/// One statement's answer: the record's row (`None`: no row has its key) and whether each of its scopes admits it.
pub(crate) struct Admitted {
    /// The record as `record` selects it.
    pub(crate) row: Option<QueryResult>,
    /// One answer per scope of the chunk, in order.
    pub(crate) admits: Vec<bool>,
}

/// Whether `scope` (a scoped select narrowed to one key) selects the same row as `plain` (the entity's select of
/// every column, with no condition) with conditions added: the same select list, the same table, no join, no
/// common table expression, no union. Only then is the record one statement reads for many views the row each
/// view's own query would return.
pub(crate) fn selects_the_record(backend: DbBackend, scope: &SelectStatement, plain: &SelectStatement) -> bool {
    let scope = backend.build(scope).sql;
    let plain = backend.build(plain).sql;
    scope.strip_prefix(plain.as_str()).is_some_and(|rest| rest.starts_with(" WHERE ")) && !scope.contains(" UNION ")
}

/// The record `record` selects (one row by key, the entity's columns) and, for each of `scopes`, whether it admits
/// that row: [`SCOPES_PER_STATEMENT`] scopes per statement (role `visibility`), the statements run concurrently
/// through `reader`. The answers come back per chunk, in the order of `scopes`.
pub(crate) async fn admitted_by_each(
    reader: Reader<'_>,
    record: SelectStatement,
    scopes: Vec<SelectStatement>,
) -> Result<Vec<Admitted>, DbErr> {
    let backend = reader.backend();
    let mut statements = Vec::with_capacity(scopes.len().div_ceil(SCOPES_PER_STATEMENT));
    let mut scopes = scopes.into_iter().peekable();
    while scopes.peek().is_some() {
        let mut statement = record.clone();
        let count = with_scopes(&mut statement, scopes.by_ref().take(SCOPES_PER_STATEMENT));
        statements.push((backend.build(&statement), count));
    }
    try_join_all(statements.into_iter().map(|(statement, count)| async move {
        let row = read_row(reader.into(), statement, "visibility").await?;
        let admits = match &row {
            Some(row) => (0..count).map(|i| admits(row, &column(i))).collect::<Result<_, _>>()?,
            None => vec![false; count],
        };
        Ok(Admitted { row, admits })
    }))
    .await
}

/// For each of `scopes` (a view's scoped select of `table`), whether it admits a row that is no longer stored,
/// given as its columns' values (the last state of a deleted record): each scope runs as an `EXISTS` over a
/// one-row common table expression named like the table, as [`super::admits_row`] runs one scope,
/// [`SCOPES_PER_STATEMENT`] scopes per statement (role `visibility`). The answers come back per chunk.
pub(crate) async fn admitted_over_row(
    reader: Reader<'_>,
    table: &'static str,
    row: Vec<(&'static str, Value)>,
    scopes: Vec<SelectStatement>,
) -> Result<Vec<Vec<bool>>, DbErr> {
    let backend = reader.backend();
    let with = one_row(table, row);
    let mut statements = Vec::with_capacity(scopes.len().div_ceil(SCOPES_PER_STATEMENT));
    let mut scopes = scopes.into_iter().peekable();
    while scopes.peek().is_some() {
        let mut statement = Query::select();
        let count = with_scopes(&mut statement, scopes.by_ref().take(SCOPES_PER_STATEMENT));
        statements.push((rendered(backend, &statement.with(with.clone())), count));
    }
    try_join_all(statements.into_iter().map(|(statement, count)| async move {
        let row = read_row(reader.into(), statement, "visibility").await?;
        match &row {
            Some(row) => (0..count).map(|i| admits(row, &column(i))).collect::<Result<_, _>>(),
            None => Ok(vec![false; count]),
        }
    }))
    .await
}

/// The one-row common table expression of `row` (columns by name and value), named like `table`.
pub(super) fn one_row(table: &'static str, row: Vec<(&'static str, Value)>) -> WithClause {
    let mut one_row = Query::select();
    for (column, value) in row {
        one_row.expr_as(Expr::val(value), Alias::new(column));
    }
    let mut cte = CommonTableExpression::new();
    cte.query(one_row).table_name(Alias::new(table));
    WithClause::new().cte(cte).to_owned()
}

/// `query` (with its common table expressions) as `backend` runs it.
pub(super) fn rendered(backend: DbBackend, query: &WithQuery) -> Statement {
    let (sql, values) = match backend {
        DbBackend::Postgres => query.build(PostgresQueryBuilder),
        DbBackend::MySql => query.build(MysqlQueryBuilder),
        _ => query.build(SqliteQueryBuilder),
    };
    Statement::from_sql_and_values(backend, sql, values)
}

/// Adds an `EXISTS` column per scope to `statement` (each scope's select list replaced by `1`, `LIMIT 1` as a
/// view's own read has it); returns how many.
fn with_scopes(statement: &mut SelectStatement, scopes: impl Iterator<Item = SelectStatement>) -> usize {
    let mut count = 0;
    for mut scope in scopes {
        scope.clear_selects().expr(Expr::cust("1")).limit(1);
        statement.expr_as(Expr::exists(scope), Alias::new(column(count)));
        count += 1;
    }
    count
}

fn column(i: usize) -> String {
    format!("__admits_{i}")
}

/// An `EXISTS` column: a boolean on PostgreSQL, an integer on SQLite and MariaDB / MySQL.
fn admits(row: &QueryResult, column: &str) -> Result<bool, DbErr> {
    if let Ok(admits) = row.try_get::<bool>("", column) {
        return Ok(admits);
    }
    row.try_get::<i64>("", column).or_else(|_| row.try_get::<i32>("", column).map(i64::from)).map(|v| v != 0)
}
