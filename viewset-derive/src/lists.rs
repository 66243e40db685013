//! Attribute values that are a list or a single item: `["a", "b"]`, `"a"`, `[A, B]`, `A`.

use darling::FromMeta;
use syn::{Expr, ExprArray, Lit, LitStr};

/// String literals, each keeping its own span: `"a"` or `["a", "b"]`.
#[derive(Debug, Default, Clone)]
pub struct StrList(pub Vec<LitStr>);

/// Expressions, each keeping its own span: `A` or `[A, B::new(..)]`.
#[derive(Debug, Default, Clone)]
pub struct ExprList(pub Vec<Expr>);

fn items(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Array(ExprArray { elems, .. }) => elems.iter().collect(),
        Expr::Group(g) => items(&g.expr),
        other => vec![other],
    }
}

impl FromMeta for StrList {
    /// Left out: no items (so a list attribute needs no `#[darling(default)]`).
    fn from_none() -> Option<Self> {
        Some(StrList::default())
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let mut errors = darling::Error::accumulator();
        let mut out = Vec::new();
        for item in items(expr) {
            match item {
                Expr::Lit(lit) => match &lit.lit {
                    Lit::Str(s) => out.push(s.clone()),
                    other => errors
                        .push(darling::Error::custom("expected a string literal, e.g. \"title\"").with_span(other)),
                },
                other => {
                    errors.push(darling::Error::custom("expected a string literal, e.g. \"title\"").with_span(other))
                }
            }
        }
        errors.finish_with(StrList(out))
    }
}

impl FromMeta for ExprList {
    /// Left out: no items.
    fn from_none() -> Option<Self> {
        Some(ExprList::default())
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(ExprList(items(expr).into_iter().cloned().collect()))
    }
}
