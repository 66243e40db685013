//! Substring matching that behaves the same on SQLite and PostgreSQL, always with bound parameters.
//!
//! Case-insensitive: `ILIKE` on PostgreSQL, `LOWER(col) LIKE LOWER(pattern)` elsewhere (sea-query's `ilike`
//! panics when built for SQLite). Case-sensitive: `LIKE` on PostgreSQL; on SQLite, whose `LIKE` ignores ASCII
//! case, `LIKE` plus an exact `instr()` check (literal needles only).

use sea_orm::sea_query::{Expr, ExprTrait, Func, LikeExpr};
use sea_orm::{ColumnTrait, DbBackend};

/// Whether `%` and `_` in the needle are wildcards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wildcards {
    /// `%` and `_` match themselves (the `contains` lookups).
    Literal,
    /// `%` and `_` keep their SQL meaning (`search`, as the spec says: it is `ILIKE` matching).
    Sql,
}

/// `col` contains `needle`.
pub fn text_match<C: ColumnTrait>(
    col: C,
    needle: &str,
    wildcards: Wildcards,
    insensitive: bool,
    backend: DbBackend,
) -> Expr {
    let column = Expr::col(col.as_column_ref());
    let body = match wildcards {
        Wildcards::Literal => needle.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"),
        Wildcards::Sql => needle.replace('\\', "\\\\"),
    };
    let like = |pattern: String| LikeExpr::new(format!("%{pattern}%")).escape('\\');
    match (backend, insensitive) {
        (DbBackend::Postgres, true) => {
            use sea_orm::sea_query::extension::postgres::PgExpr;
            column.ilike(like(body))
        }
        (_, true) => Expr::expr(Func::lower(column)).like(like(body.to_lowercase())),
        (DbBackend::Sqlite, false) if wildcards == Wildcards::Literal => {
            let exact = Expr::cust_with_exprs("instr(?, ?) > 0", [column.clone(), Expr::val(needle.to_string())]);
            column.like(like(body)).and(exact)
        }
        (_, false) => column.like(like(body)),
    }
}
