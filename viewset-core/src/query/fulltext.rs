//! `FullTextSearchFilter`: `?q=` as a web-search query (words, `"quoted phrases"`, `-excluded`, `or`) over the
//! `fulltext(fields = [...])` of a ViewSet, ranked. Beside [`SearchFilter`](super::SearchFilter), which stays the
//! spec's substring match.
//!
//! - PostgreSQL: `to_tsvector(language, fields) @@ websearch_to_tsquery(language, q)`, ordered by `ts_rank` (best
//!   first) when the client gives no `ordering`. For speed, create the matching expression index, e.g.
//!   `CREATE INDEX ON posts USING gin (to_tsvector('english'::regconfig, coalesce(title, '') || ' ' ||
//!   coalesce(body, '')))`.
//! - SQLite: through an FTS5 table the application provides (`fulltext(sqlite_table = "posts_fts")`), whose `rowid` is
//!   the primary key and whose columns are named as the fields (e.g. an external-content table kept in sync by
//!   triggers). `q` is translated to an FTS5 query of quoted terms (never FTS5 syntax from the client), ordered by
//!   FTS5's `rank` (bm25). Without the table `q` is a 422 `fulltext_unavailable`.
//! - MariaDB / MySQL: `MATCH (fields) AGAINST (q IN BOOLEAN MODE)` ([`boolean_mode_query`]: every term quoted, so
//!   nothing the client writes is an operator) on a `FULLTEXT` index over exactly the fields, which the application
//!   creates (e.g. `CREATE FULLTEXT INDEX posts_fulltext ON posts (title, body)`); ordered by the match's relevance.
//!   Without the index `q` is a 422 `fulltext_unavailable`. Words shorter than `innodb_ft_min_token_size` or on the
//!   stopword list are not indexed.
//!
//! Fields the caller may not see are left out of the match. Excluding alone (`-word` with nothing to find) matches
//! every row without the word on PostgreSQL and nothing on SQLite (FTS5 has no unary NOT) or MariaDB.
//!
//! ```
//! use viewset_core::query::{FullText, fts5_query};
//! const FT: FullText = FullText { fields: &["title", "body"], language: "english", sqlite_table: Some("posts_fts") };
//! assert_eq!(FT.fields.len(), 2);
//! assert_eq!(fts5_query(r#"rust "web api" -java or go"#, &["title"]).as_deref(),
//!     Some(r#"{title} : (("rust" AND "web api" NOT "java") OR ("go"))"#));
//! ```

use sea_orm::sea_query::Expr;
use sea_orm::{DbBackend, EntityTrait, Iterable, PrimaryKeyToColumn, QueryFilter};

use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::query::filter::FilterBackend;
use crate::request::RequestContext;
use crate::types::columns::column;
use crate::types::list_query::ListQuery;
use crate::types::list_query::{Computed, OrderTerm};
use crate::types::options::Direction;
use crate::types::value::check_text;

/// The query parameter of [`FullTextSearchFilter`].
pub const FULLTEXT_PARAM: &str = "q";

/// Ranked full-text search over `fulltext(fields = ...)` (`?q=...`).
#[derive(Debug, Clone, Copy, Default)]
pub struct FullTextSearchFilter;

impl FilterBackend for FullTextSearchFilter {
    fn filter_queryset<V: ViewSet>(
        mut query: ListQuery<V::Entity>,
        request: &RequestContext,
    ) -> Result<ListQuery<V::Entity>, ApiError> {
        let Some(config) = V::CONFIG.fulltext else { return Ok(query) };
        let Some(raw) = request.query.one(FULLTEXT_PARAM)?.map(str::trim).filter(|t| !t.is_empty()) else {
            return Ok(query);
        };
        request.query.limits().check_search(FULLTEXT_PARAM, raw)?;
        check_text(raw).map_err(|msg| ApiError::input(["query", FULLTEXT_PARAM], msg, "value_error"))?;
        let fields: Vec<&str> = config.fields.iter().copied().filter(|f| request.may_query(f)).collect();
        let key = <V::Entity as EntityTrait>::PrimaryKey::iter().next().map(|k| k.into_column());
        let (Some(key), false) = (key, fields.is_empty()) else {
            query.select = query.select.filter(Expr::value(false));
            return Ok(query);
        };
        let (matches, rank, direction) = match request.db.get_database_backend() {
            DbBackend::Postgres => {
                let (matches, rank) = postgres::<V::Entity>(&fields, config.language, raw)?;
                (matches, rank, Direction::Desc)
            }
            DbBackend::Sqlite if config.sqlite_table.is_some() => {
                let table = config.sqlite_table.unwrap_or_default();
                let Some(fts) = fts5_query(raw, &fields) else {
                    query.select = query.select.filter(Expr::value(false));
                    return Ok(query);
                };
                let id = Expr::col(sea_orm::ColumnTrait::as_column_ref(&key));
                let template = format!("? IN (SELECT rowid FROM \"{table}\" WHERE \"{table}\" MATCH ?)");
                let matches = Expr::cust_with_exprs(template, [id.clone(), Expr::val(fts.clone())]);
                let template = format!("(SELECT rank FROM \"{table}\" WHERE \"{table}\" MATCH ? AND rowid = ?)");
                (matches, Expr::cust_with_exprs(template, [Expr::val(fts), id]), Direction::Asc)
            }
            DbBackend::MySql => {
                let Some(against) = boolean_mode_query(raw) else {
                    query.select = query.select.filter(Expr::value(false));
                    return Ok(query);
                };
                let (matches, rank) = mysql::<V::Entity>(&fields, against);
                (matches, rank, Direction::Desc)
            }
            _ => {
                let msg = "full-text search is not available on this database (PostgreSQL, MariaDB / MySQL, or \
                           SQLite with `fulltext(sqlite_table = ...)`)";
                return Err(ApiError::input(["query", FULLTEXT_PARAM], msg, "fulltext_unavailable"));
            }
        };
        query.select = query.select.filter(matches);
        // Best match first unless the client orders; a keyset page may leave the rank out (same rows, other order).
        if request.query.get("ordering").is_none() {
            let computed = Computed { name: "rank", expr: rank, droppable: true };
            query.order.insert(0, OrderTerm { column: key, direction, computed: Some(computed) });
        }
        Ok(query)
    }
}

/// The match condition and the rank on PostgreSQL (placeholders `$n`; the query is bound). The document is written
/// as an expression index can repeat it: `to_tsvector('english'::regconfig, coalesce(title, '') || ' ' ||
/// coalesce(body, ''))` (the language is a plain name, checked, so it is written in the SQL as the index has it).
fn postgres<E: EntityTrait>(fields: &[&str], language: &str, raw: &str) -> Result<(Expr, Expr), ApiError> {
    if !language.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') || language.is_empty() {
        let msg = format!("the text search configuration `{language}` is not a plain name");
        return Err(ApiError::input(["query", FULLTEXT_PARAM], msg, "fulltext_unavailable"));
    }
    let mut exprs: Vec<Expr> = fields
        .iter()
        .filter_map(|f| column::<E>(f))
        .map(|c| Expr::col(sea_orm::ColumnTrait::as_column_ref(&c)))
        .collect();
    let text: Vec<String> = (1..=exprs.len()).map(|i| format!("coalesce(${i}, '')")).collect();
    let document = format!("to_tsvector('{language}'::regconfig, {})", text.join(" || ' ' || "));
    let search = format!("websearch_to_tsquery('{language}'::regconfig, ${})", exprs.len() + 1);
    exprs.push(Expr::val(raw.to_string()));
    let matches = Expr::cust_with_exprs(format!("{document} @@ {search}"), exprs.clone());
    Ok((matches, Expr::cust_with_exprs(format!("ts_rank({document}, {search})"), exprs)))
}

/// The match condition and the rank on MariaDB / MySQL: `MATCH (fields) AGAINST (? IN BOOLEAN MODE)`, which needs a
/// `FULLTEXT` index on exactly those columns (without one the database refuses the statement, answered as a 422
/// `fulltext_unavailable`).
fn mysql<E: EntityTrait>(fields: &[&str], against: String) -> (Expr, Expr) {
    let mut exprs: Vec<Expr> = fields
        .iter()
        .filter_map(|f| column::<E>(f))
        .map(|c| Expr::col(sea_orm::ColumnTrait::as_column_ref(&c)))
        .collect();
    let columns = vec!["?"; exprs.len()].join(", ");
    exprs.push(Expr::val(against));
    let matches = Expr::cust_with_exprs(format!("MATCH ({columns}) AGAINST (? IN BOOLEAN MODE)"), exprs);
    (matches.clone(), matches)
}

/// A web-search query (`rust "web api" -java or go`) as an FTS5 query over `columns`: every term a quoted FTS5
/// string (so nothing the client writes is FTS5 syntax), terms ANDed, `-term` excluded, `or` between alternatives.
/// `None` when nothing is left to find.
pub fn fts5_query(raw: &str, columns: &[&str]) -> Option<String> {
    let quote = |term: &Term| format!("\"{}\"", term.text.replace('"', "\"\""));
    let groups: Vec<String> = web_search(raw)
        .into_iter()
        .map(|(found, excluded)| {
            let excluded: String = excluded.iter().map(|e| format!(" NOT {}", quote(e))).collect();
            let found: Vec<String> = found.iter().map(quote).collect();
            format!("({}{excluded})", found.join(" AND "))
        })
        .collect();
    (!groups.is_empty()).then(|| format!("{{{}}} : ({})", columns.join(" "), groups.join(" OR ")))
}

/// A web-search query as a MariaDB / MySQL `MATCH … AGAINST (… IN BOOLEAN MODE)` string: each alternative a
/// parenthesized group of required (`+"term"`) and excluded (`-"term"`) quoted terms, so nothing the client writes
/// is an operator (a `"` inside a term, which boolean mode cannot escape, is dropped). A single word InnoDB does not
/// index by default (shorter than `innodb_ft_min_token_size`'s default 3 characters, or one of InnoDB's default
/// stopwords) is left out of the required words, as PostgreSQL leaves out its stopwords: required, it would match
/// nothing. `None` when nothing is left to find.
///
/// ```
/// use viewset_core::query::boolean_mode_query;
/// assert_eq!(boolean_mode_query(r#"the rust "web api" -java or python"#).as_deref(),
///     Some(r#"(+"rust" +"web api" -"java") (+"python")"#));
/// assert_eq!(boolean_mode_query("the or go"), None); // a stopword, a word shorter than 3 characters
/// ```
pub fn boolean_mode_query(raw: &str) -> Option<String> {
    let quote = |sign: char, term: &Term| {
        let text = term.text.replace('"', " ");
        let indexed = term.phrase || !(text.chars().count() < 3 || INNODB_STOPWORDS.contains(&&*text.to_lowercase()));
        (indexed && !text.trim().is_empty()).then(|| format!("{sign}\"{text}\""))
    };
    let groups: Vec<String> = web_search(raw)
        .into_iter()
        .filter_map(|(found, excluded)| {
            let found: Vec<String> = found.iter().filter_map(|t| quote('+', t)).collect();
            let excluded = excluded.iter().filter_map(|t| quote('-', t));
            (!found.is_empty())
                .then(|| format!("({})", found.into_iter().chain(excluded).collect::<Vec<_>>().join(" ")))
        })
        .collect();
    (!groups.is_empty()).then(|| groups.join(" "))
}

/// InnoDB's default full-text stopwords (`INFORMATION_SCHEMA.INNODB_FT_DEFAULT_STOPWORD`).
const INNODB_STOPWORDS: &[&str] = &[
    "a", "about", "an", "are", "as", "at", "be", "by", "com", "de", "en", "for", "from", "how", "i", "in", "is", "it",
    "la", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when", "where", "who", "will", "with", "und",
    "www",
];

/// One term of a web-search query: a word, or a `"quoted phrase"`.
struct Term {
    text: String,
    phrase: bool,
}

/// The alternatives (`or`) of a web-search query, each its found and excluded (`-term`) terms; alternatives with
/// nothing to find are left out.
fn web_search(raw: &str) -> Vec<(Vec<Term>, Vec<Term>)> {
    let mut groups: Vec<(Vec<Term>, Vec<Term>)> = vec![(Vec::new(), Vec::new())];
    let mut chars = raw.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let negated = c == '-';
        if negated {
            chars.next();
        }
        let phrase = chars.peek() == Some(&'"');
        let text: String = if phrase {
            chars.next();
            chars.by_ref().take_while(|&c| c != '"').collect()
        } else {
            let mut word = String::new();
            while let Some(&c) = chars.peek().filter(|c| !c.is_whitespace() && **c != '"') {
                word.push(c);
                chars.next();
            }
            if !negated && word.eq_ignore_ascii_case("or") {
                groups.push((Vec::new(), Vec::new()));
                continue;
            }
            word
        };
        if text.trim().is_empty() {
            continue;
        }
        let group = groups.last_mut().expect("one group at least");
        let term = Term { text, phrase };
        if negated { group.1.push(term) } else { group.0.push(term) }
    }
    groups.retain(|(found, _)| !found.is_empty());
    groups
}
