//! `GET /ai/schema/health`: what in the schema will hurt the API, each finding with a severity and its fix.
//!
//! - a column in `filterable_fields`, `ordering_fields`, the default `ordering` or `tenant_field` that no index
//!   starts with (`warning`: every such query reads the whole table); a `search_fields` column without one
//!   (`info`: a contains-match needs a trigram or full-text index, not a b-tree);
//! - a field of `aggregates(group_by = [...])` that no index starts with (`unindexed_group_by`): each aggregate
//!   grouped by it sorts or hashes every row it reads, and a time range over a bucketed field (`created_at__month`
//!   with `created_at__gte`) reads the whole table to find its rows. `warning` on a large table (at least
//!   [`LARGE_TABLE_ROWS`] rows by the database's statistics: PostgreSQL's and MariaDB's planner estimates, SQLite's
//!   `sqlite_stat1` after `ANALYZE`), `info` otherwise; the message says the estimate or that there is none;
//! - a foreign key no index starts with (`warning`: joins and deletes of the parent scan the child table);
//! - a ViewSet's table missing from the database (`error`);
//! - a ViewSet whose `permission_classes` admit anonymous callers to create, update or delete (`warning`);
//! - pending migrations (`warning`) and migration conflicts (`error`).
//!
//! Indexes and foreign keys are read from the database catalog ([`super::indexes`]), never from the models, so a
//! fix applied to the database clears its finding. Ordering needs no tie-breaker finding: the primary key always
//! ends the ordering (`viewset_core::query`). Exact-match router filters (every field by default) are not
//! reported: only the allowlists a ViewSet declares are its intent.

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::extract::State;
use sea_orm::DbBackend;
use serde_json::{Value, json};

use super::AiState;
use super::indexes::{self, TableCatalog};
use crate::reply::now;
use crate::studio::ViewSetFacts;

/// One finding.
struct Finding {
    code: &'static str,
    severity: Severity,
    subject: String,
    message: String,
    fix: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// `identifier` quoted as `backend` quotes it (backticks on MariaDB/MySQL, double quotes elsewhere).
fn quote(backend: DbBackend, identifier: &str) -> String {
    match backend {
        DbBackend::MySql => format!("`{}`", identifier.replace('`', "``")),
        _ => format!("\"{}\"", identifier.replace('"', "\"\"")),
    }
}

/// `CREATE INDEX` on `table (column)`, named after both.
fn create_index(backend: DbBackend, table: &str, column: &str) -> String {
    let q = |identifier: &str| quote(backend, identifier);
    format!("CREATE INDEX {} ON {} ({});", q(&format!("{table}_{column}_idx")), q(table), q(column))
}

/// The fix of a search column: a trigram index on PostgreSQL, full-text search on SQLite.
fn search_fix(backend: DbBackend, table: &str, column: &str) -> String {
    match backend {
        DbBackend::Postgres => format!(
            "CREATE EXTENSION IF NOT EXISTS pg_trgm; CREATE INDEX {} ON {} USING gin ({} gin_trgm_ops);",
            quote(backend, &format!("{table}_{column}_trgm_idx")),
            quote(backend, table),
            quote(backend, column)
        ),
        DbBackend::MySql => format!(
            "a contains-match cannot use a b-tree index: keep `{column}` in search_fields for small tables; a \
             FULLTEXT index serves word searches (MATCH … AGAINST), not contains-matches"
        ),
        _ => format!(
            "a contains-match cannot use a b-tree index: keep `{column}` in search_fields for small tables, or \
             serve large ones from an FTS5 table"
        ),
    }
}

/// From this many rows (the database's estimate) a table is large: an unindexed group key there is a `warning`.
pub(crate) const LARGE_TABLE_ROWS: u64 = 10_000;

/// The findings about the `group_by` fields of `facts` without an index.
fn group_by_findings(facts: &ViewSetFacts, catalog: &TableCatalog, backend: DbBackend, out: &mut Vec<Finding>) {
    let (table, name) = (&facts.table, facts.viewset);
    let size = match catalog.estimated_rows {
        Some(rows) => format!("`{table}` holds about {rows} rows by the database's statistics"),
        None => format!("the database has no statistics of `{table}`'s size yet (ANALYZE makes them)"),
    };
    let large = catalog.estimated_rows.is_some_and(|rows| rows >= LARGE_TABLE_ROWS);
    for (column, timed) in &facts.grouped {
        if catalog.leading.contains(column) || facts.primary_key.first() == Some(column) {
            continue;
        }
        let read = if *timed {
            format!(
                "each aggregate grouped by it sorts or hashes every row it reads, and a time range over its buckets \
                 (`{column}__month` with `{column}__gte`) reads the whole table to find its rows"
            )
        } else {
            "each aggregate grouped by it sorts or hashes every row it reads".to_string()
        };
        out.push(Finding {
            code: "unindexed_group_by",
            severity: if large { Severity::Warning } else { Severity::Info },
            subject: format!("{table}.{column}"),
            message: format!(
                "`{column}` is a group key of {name}'s aggregates but no index on `{table}` starts with it: {read}; \
                 {size}"
            ),
            fix: create_index(backend, table, column),
        });
    }
}

/// The findings about the indexes of `facts`' table.
fn index_findings(facts: &ViewSetFacts, catalog: &TableCatalog, backend: DbBackend, out: &mut Vec<Finding>) {
    let (table, name) = (&facts.table, facts.viewset);
    let indexed =
        |column: &str| catalog.leading.contains(column) || facts.primary_key.first().is_some_and(|k| k == column);
    let mut seen = BTreeSet::new();
    for (allowlist, column) in &facts.queried {
        let search = *allowlist == "search_fields";
        if indexed(column) || !seen.insert((search, column.clone())) {
            continue;
        }
        out.push(Finding {
            code: if search { "unindexed_search" } else { "unindexed_query_field" },
            severity: if search { Severity::Info } else { Severity::Warning },
            subject: format!("{table}.{column}"),
            message: if search {
                format!("`{column}` is in {name}'s search_fields; a contains-match on it reads the whole table")
            } else {
                format!("`{column}` is in {name}'s {allowlist} but no index on `{table}` starts with it: every such query reads the whole table")
            },
            fix: if search { search_fix(backend, table, column) } else { create_index(backend, table, column) },
        });
    }
    let unindexed: Vec<&str> = facts
        .orderable
        .iter()
        .filter(|c| !indexed(c) && !seen.contains(&(false, c.to_string())))
        .map(String::as_str)
        .collect();
    if !unindexed.is_empty() {
        out.push(Finding {
            code: "unindexed_ordering_all",
            severity: Severity::Info,
            subject: format!("{table}.*"),
            message: format!(
                "{name} allows ordering by every column (`ordering_fields = \"__all__\"`); without an index: {}",
                unindexed.join(", ")
            ),
            fix: "name the columns clients order by in ordering_fields, and index them".into(),
        });
    }
}

fn foreign_key_findings(table: &str, catalog: &TableCatalog, backend: DbBackend, out: &mut Vec<Finding>) {
    for (column, target) in &catalog.foreign_keys {
        if !catalog.leading.contains(column) {
            out.push(Finding {
                code: "unindexed_foreign_key",
                severity: Severity::Warning,
                subject: format!("{table}.{column}"),
                message: format!(
                    "the foreign key `{table}.{column}` → `{target}` has no index: joins on it and every delete \
                     or key change in `{target}` scan `{table}`"
                ),
                fix: create_index(backend, table, column),
            });
        }
    }
}

/// The handler.
pub(super) async fn handler(State(state): State<Arc<AiState>>) -> axum::Json<Value> {
    let inner = &state.inner;
    let studio = &inner.studio;
    let backend = inner.db.get_database_backend();
    let mut findings = Vec::new();
    let mut tables: BTreeSet<String> = studio.models.iter().map(|m| m.table_name.clone()).collect();
    tables.extend(studio.health.iter().map(|f| f.table.clone()));
    let mut unreadable = None;
    let mut catalogs = std::collections::BTreeMap::new();
    for table in &tables {
        match indexes::read(&inner.db, table).await {
            Ok(catalog) => {
                catalogs.insert(table.clone(), catalog);
            }
            Err(e) => {
                unreadable = Some(e.to_string());
                break;
            }
        }
    }
    if let Some(error) = &unreadable {
        findings.push(Finding {
            code: "catalog_unreadable",
            severity: Severity::Error,
            subject: "database".into(),
            message: format!("the database catalog could not be read: {error}"),
            fix: "check the database connection (GET /studio/health)".into(),
        });
    }
    for facts in &studio.health {
        let has_writes =
            studio.routes.iter().any(|r| r.owner == facts.viewset && matches!(r.method, "POST" | "PATCH" | "DELETE"));
        if has_writes && !facts.anonymous_writes.is_empty() {
            findings.push(Finding {
                code: "anonymous_writes",
                severity: Severity::Warning,
                subject: facts.viewset.to_string(),
                message: format!(
                    "{}'s permission_classes let anonymous callers {}",
                    facts.viewset,
                    facts.anonymous_writes.join(", ")
                ),
                fix: "add `permission_classes = [IsAuthenticatedOrReadOnly]` (or stricter) to its #[viewset(...)]"
                    .into(),
            });
        }
        match catalogs.get(&facts.table) {
            Some(catalog) if !catalog.exists => findings.push(Finding {
                code: "missing_table",
                severity: Severity::Error,
                subject: facts.table.clone(),
                message: format!("{} serves `{}`, which is not in the database", facts.viewset, facts.table),
                fix: "apply the migration that creates it".into(),
            }),
            Some(catalog) => {
                index_findings(facts, catalog, backend, &mut findings);
                group_by_findings(facts, catalog, backend, &mut findings);
            }
            None => {}
        }
    }
    for (table, catalog) in &catalogs {
        foreign_key_findings(table, catalog, backend, &mut findings);
    }
    migration_findings(&state, &mut findings).await;
    findings.sort_by(|a, b| (a.severity, a.code, &a.subject).cmp(&(b.severity, b.code, &b.subject)));
    findings.dedup_by(|a, b| (a.code, &a.subject) == (b.code, &b.subject));
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let status =
        [Severity::Error, Severity::Warning].into_iter().find(|s| count(*s) > 0).map_or("ok", Severity::as_str);
    axum::Json(json!({
        "generated_at": now(),
        "dialect": crate::database::dialect(backend),
        "status": status,
        "counts": {"error": count(Severity::Error), "warning": count(Severity::Warning), "info": count(Severity::Info)},
        "checked": {"tables": tables.len(), "viewsets": studio.health.len()},
        "findings": findings.iter().map(|f| json!({
            "code": f.code, "severity": f.severity.as_str(), "subject": f.subject, "message": f.message, "fix": f.fix,
        })).collect::<Vec<_>>(),
    }))
}

async fn migration_findings(state: &AiState, out: &mut Vec<Finding>) {
    let inner = &state.inner;
    let summary = inner.studio.migrations.summary(&inner.applied_or_last_known().await);
    for app in summary.apps.iter().filter(|a| a.pending > 0) {
        out.push(Finding {
            code: "pending_migrations",
            severity: Severity::Warning,
            subject: app.app_label.clone(),
            message: format!("app `{}` has {} of {} migrations not applied", app.app_label, app.pending, app.total),
            fix: "apply them (the application's migrator `up`)".into(),
        });
    }
    for conflict in &summary.conflicts {
        out.push(Finding {
            code: "migration_conflict",
            severity: Severity::Error,
            subject: conflict.app_label.clone(),
            message: conflict.message.clone(),
            fix: format!("add a migration that depends on {}", conflict.heads.join(" and ")),
        });
    }
}
