//! The one statement of an aggregate: the list's select (its scope, filters and search, as
//! [`crate::access::scoped_list`] built it) with its columns, ordering and window replaced by the group keys, the
//! aggregates, `GROUP BY`, `HAVING`, the order and `LIMIT limit + 1` (the extra row says the answer was cut).
//! A plain function: compiled once, whatever the ViewSet.

use sea_orm::sea_query::{Alias, Condition, Expr, ExprTrait, Func, NullOrdering, Order, SelectStatement};
use sea_orm::{DbBackend, Statement};

use super::bucket::{self, quoted};
use super::params::{Column, Compare, Function, Number, Plan, Target};

/// The alias of the `i`th group key in the statement (the answer names it as written).
pub(crate) fn key_alias(i: usize) -> String {
    format!("g{i}")
}

/// The alias of the `i`th aggregate in the statement.
pub(crate) fn value_alias(i: usize) -> String {
    format!("v{i}")
}

/// The aggregate statement of `plan` over `select`, a select of `table` on `backend`.
pub(crate) fn build(mut select: SelectStatement, table: &str, plan: &Plan, backend: DbBackend) -> Statement {
    let qualified = |column: &Column| format!("{}.{}", quoted(backend, table), quoted(backend, column.name));
    let keys: Vec<Expr> = plan
        .keys
        .iter()
        .map(|key| match key.bucket {
            Some(b) => {
                Expr::cust(bucket::expression(backend, &qualified(&key.column), &key.column, b, plan.tz.as_ref()))
            }
            None => Expr::cust(qualified(&key.column)),
        })
        .collect();
    // `GROUP BY` and `ORDER BY` name a bucket in a zone by its place in the select (`GROUP BY 1`): its expression
    // holds the zone's offsets, written once.
    let grouped: Vec<Expr> = keys
        .iter()
        .zip(&plan.keys)
        .enumerate()
        .map(|(i, (expr, key))| match (key.bucket, &plan.tz) {
            (Some(_), Some(_)) => Expr::cust((i + 1).to_string()),
            _ => expr.clone(),
        })
        .collect();
    let values: Vec<Expr> = plan
        .values
        .iter()
        .map(|value| {
            let column = value.column.as_ref().map(qualified).unwrap_or_default();
            match value.function {
                Function::Count => Expr::cust("COUNT(*)"),
                Function::Sum => Func::sum(Expr::cust(column)).into(),
                // An average in double precision on every database (MariaDB's decimal average keeps 4 digits).
                Function::Avg => Expr::cust(match backend {
                    DbBackend::Postgres => format!("AVG(CAST({column} AS DOUBLE PRECISION))"),
                    DbBackend::MySql => format!("AVG({column} + 0E0)"),
                    _ => format!("AVG({column})"),
                }),
                Function::Min => Func::min(Expr::cust(column)).into(),
                Function::Max => Func::max(Expr::cust(column)).into(),
                Function::CountDistinct => Func::count_distinct(Expr::cust(column)).into(),
            }
        })
        .collect();
    select.clear_selects().clear_order_by().reset_limit().reset_offset();
    for (i, key) in keys.iter().enumerate() {
        select.expr_as(key.clone(), Alias::new(key_alias(i)));
    }
    for (i, value) in values.iter().enumerate() {
        select.expr_as(value.clone(), Alias::new(value_alias(i)));
    }
    select.add_group_by(grouped.iter().cloned());
    if !plan.having.is_empty() {
        let mut all = Condition::all();
        for term in &plan.having {
            let value = values[term.value].clone();
            let number = match term.number {
                Number::Int(n) => Expr::val(n),
                Number::Float(f) => Expr::val(f),
            };
            all = all.add(match term.compare {
                Compare::Exact => value.eq(number),
                Compare::Gt => value.gt(number),
                Compare::Gte => value.gte(number),
                Compare::Lt => value.lt(number),
                Compare::Lte => value.lte(number),
            });
        }
        select.cond_having(all);
    }
    // The order asked for, then every key ascending not named yet: the same groups in the same order everywhere.
    // NULLs first ascending and last descending, as the list orders them.
    let mut terms = plan.order.clone();
    for i in 0..keys.len() {
        if !terms.iter().any(|(target, _)| *target == Target::Key(i)) {
            terms.push((Target::Key(i), false));
        }
    }
    for (target, desc) in terms {
        let expr = match target {
            Target::Key(i) => grouped[i].clone(),
            Target::Value(i) => values[i].clone(),
        };
        let (order, nulls) = if desc { (Order::Desc, NullOrdering::Last) } else { (Order::Asc, NullOrdering::First) };
        select.order_by_expr_with_nulls(expr, order, nulls);
    }
    select.limit(plan.limit.saturating_add(1));
    backend.build(&select)
}
