//! The per-app migration graph on top of sea-orm-migration.
//!
//! Each migration has an app label, its sea-orm-migration name (the `version` recorded in `seaql_migrations`) and
//! the migrations it depends on. A head is a migration of an app that no other migration of that app depends on;
//! more than one head is a conflict to merge. Applied state is read from the real migrations table, read-only:
//! building or reading the graph never creates the table and never applies a migration. Applying is an explicit
//! call of your `Migrator::up`.

use std::collections::BTreeMap;

use sea_orm::sea_query::{Alias, Query};
use sea_orm::{ConnectionTrait, DatabaseConnection, DbErr};
use sea_orm_migration::{MigratorTrait, SchemaManager};
use serde_json::json;

use crate::protocol::{AppMigrations, MigrationConflict, MigrationsSummary};

/// One migration in the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationNode {
    /// The app it belongs to.
    pub app_label: String,
    /// Its name (sea-orm-migration's version string).
    pub name: String,
    /// Names of the migrations it depends on (any app).
    pub dependencies: Vec<String>,
    /// SHA-256 (hex) of its source file, when registered with [`MigrationGraph::source`].
    pub source_sha256: Option<String>,
}

crate::message_error::message_error! {
    /// A migration that cannot be added.
    GraphError
}

/// Migrations grouped by app, with dependencies.
///
/// ```
/// use viewset_studio::MigrationGraph;
/// let mut graph = MigrationGraph::new();
/// graph.add("shop", "m1_initial", &[]).unwrap();
/// graph.add("shop", "m2_price", &["m1_initial"]).unwrap();
/// graph.add("shop", "m2_stock", &["m1_initial"]).unwrap();
/// assert_eq!(graph.heads("shop"), vec!["m2_price", "m2_stock"]);
/// assert!(graph.add("shop", "m3", &["missing"]).is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MigrationGraph {
    nodes: Vec<MigrationNode>,
    table: Option<String>,
}

/// The applied migrations read from the migrations table: name → `applied_at` (seconds).
pub type AppliedState = BTreeMap<String, i64>;

impl MigrationGraph {
    /// An empty graph.
    pub fn new() -> Self {
        MigrationGraph::default()
    }

    /// Adds a migration; its dependencies must already be in the graph (so the graph has no cycles) and its name
    /// must be new.
    pub fn add(&mut self, app_label: &str, name: &str, dependencies: &[&str]) -> Result<&mut Self, GraphError> {
        if self.nodes.iter().any(|n| n.name == name) {
            return Err(GraphError(format!("migration `{name}` is registered twice")));
        }
        for dependency in dependencies {
            if !self.nodes.iter().any(|n| n.name == *dependency) {
                return Err(GraphError(format!(
                    "migration `{name}` of app `{app_label}` depends on `{dependency}`, which is not registered (add it first)"
                )));
            }
        }
        self.nodes.push(MigrationNode {
            app_label: app_label.to_string(),
            name: name.to_string(),
            dependencies: dependencies.iter().map(|d| d.to_string()).collect(),
            source_sha256: None,
        });
        Ok(self)
    }

    /// Records the source text of the registered migration `name` (embed it with `include_str!`), so that the
    /// migrations checksum changes when a migration's code is edited, not only when the graph does.
    ///
    /// ```
    /// use viewset_studio::MigrationGraph;
    /// let mut graph = MigrationGraph::new();
    /// graph.add("shop", "m1_initial", &[]).unwrap();
    /// let before = graph.checksum();
    /// graph.source("m1_initial", "create table items (id int)").unwrap();
    /// let edited = graph.clone().source("m1_initial", "create table items (id bigint)").unwrap().checksum();
    /// assert!(before != graph.checksum() && graph.checksum() != edited);
    /// assert!(graph.source("m9_missing", "").is_err());
    /// ```
    pub fn source(&mut self, name: &str, text: &str) -> Result<&mut Self, GraphError> {
        let Some(node) = self.nodes.iter_mut().find(|n| n.name == name) else {
            return Err(GraphError(format!("migration `{name}` is not registered: add it before its source")));
        };
        node.source_sha256 = Some(crate::checksum::sha256_hex(text.as_bytes()));
        Ok(self)
    }

    /// Adds every migration of `M` to `app_label` as a chain, each depending on the one before (the order of
    /// `M::migrations()`). Also takes `M`'s migrations table name.
    pub fn add_migrator<M: MigratorTrait>(&mut self, app_label: &str) -> Result<&mut Self, GraphError> {
        let table = M::migration_table_name().to_string();
        if let Some(existing) = &self.table
            && *existing != table
        {
            return Err(GraphError(format!(
                "app `{app_label}` records migrations in `{table}`, others in `{existing}`; use one table"
            )));
        }
        self.table = Some(table);
        let mut previous: Option<String> = None;
        for migration in M::migrations() {
            let name = migration.name().to_string();
            match &previous {
                Some(p) => self.add(app_label, &name, &[p.as_str()])?,
                None => self.add(app_label, &name, &[])?,
            };
            previous = Some(name);
        }
        Ok(self)
    }

    /// Every migration, in registration order.
    pub fn nodes(&self) -> &[MigrationNode] {
        &self.nodes
    }

    /// The migrations table (`seaql_migrations` unless a migrator says otherwise).
    pub fn table_name(&self) -> &str {
        self.table.as_deref().unwrap_or("seaql_migrations")
    }

    /// App labels in first-registration order.
    pub fn apps(&self) -> Vec<&str> {
        let mut apps: Vec<&str> = Vec::new();
        for node in &self.nodes {
            if !apps.contains(&node.app_label.as_str()) {
                apps.push(&node.app_label);
            }
        }
        apps
    }

    /// The migrations of `app` that no other migration of `app` depends on, sorted by name.
    pub fn heads(&self, app: &str) -> Vec<&str> {
        let of_app: Vec<&MigrationNode> = self.nodes.iter().filter(|n| n.app_label == app).collect();
        let mut heads: Vec<&str> = of_app
            .iter()
            .filter(|n| !of_app.iter().any(|other| other.dependencies.contains(&n.name)))
            .map(|n| n.name.as_str())
            .collect();
        heads.sort_unstable();
        heads
    }

    /// Canonical JSON of the graph, for the migrations checksum.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "table": self.table_name(),
            "migrations": self.nodes.iter().map(|n| json!({
                "app_label": n.app_label, "name": n.name, "dependencies": n.dependencies,
                "source_sha256": n.source_sha256,
            })).collect::<Vec<_>>(),
        })
    }

    /// SHA-256 of [`MigrationGraph::to_json`]: the graph and the registered migrations' source texts.
    pub fn checksum(&self) -> String {
        crate::checksum::checksum(&self.to_json())
    }

    /// Reads the applied migrations from the migrations table, without creating it (a missing table means
    /// nothing is applied).
    pub async fn applied(&self, db: &DatabaseConnection) -> Result<AppliedState, DbErr> {
        let table = self.table_name();
        if !SchemaManager::new(db).has_table(table).await? {
            return Ok(AppliedState::new());
        }
        // Built by sea-query, so the table's name is quoted as the backend quotes (backticks on MariaDB/MySQL).
        let select = Query::select()
            .columns([Alias::new("version"), Alias::new("applied_at")])
            .from(Alias::new(table))
            .to_owned();
        let rows = db.query_all_raw(db.get_database_backend().build(&select)).await?;
        let mut applied = AppliedState::new();
        for row in rows {
            let version: String = row.try_get("", "version")?;
            let at: i64 = row.try_get("", "applied_at")?;
            applied.insert(version, at);
        }
        Ok(applied)
    }

    /// The summary for `applied`.
    pub fn summary(&self, applied: &AppliedState) -> MigrationsSummary {
        let mut apps = Vec::new();
        let mut conflicts = Vec::new();
        for app in self.apps() {
            let nodes: Vec<&MigrationNode> = self.nodes.iter().filter(|n| n.app_label == app).collect();
            let done = nodes.iter().filter(|n| applied.contains_key(&n.name)).count() as u64;
            let heads: Vec<String> = self.heads(app).into_iter().map(str::to_string).collect();
            let has_conflicts = heads.len() > 1;
            if has_conflicts {
                conflicts.push(MigrationConflict {
                    app_label: app.to_string(),
                    heads: heads.clone(),
                    message: format!(
                        "app `{app}` has {} head migrations ({}); add a migration that depends on all of them to merge the branches",
                        heads.len(),
                        heads.join(", ")
                    ),
                });
            }
            apps.push(AppMigrations {
                app_label: app.to_string(),
                total: nodes.len() as u64,
                applied: done,
                pending: nodes.len() as u64 - done,
                has_conflicts,
                head_migrations: heads,
            });
        }
        let total = self.nodes.len() as u64;
        let applied_count = self.nodes.iter().filter(|n| applied.contains_key(&n.name)).count() as u64;
        MigrationsSummary {
            total_migrations: total,
            applied_migrations: applied_count,
            pending_migrations: total - applied_count,
            apps,
            conflicts,
            migrations_checksum: self.checksum(),
            last_applied: last_applied(self, applied),
        }
    }
}

/// The graph's migration applied last (latest `applied_at`, then the later one in the graph); empty when none.
fn last_applied(graph: &MigrationGraph, applied: &AppliedState) -> String {
    graph
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| applied.get(&n.name).map(|at| (*at, i, n.name.clone())))
        .max()
        .map(|(_, _, name)| name)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_heads_and_conflicts() {
        let mut g = MigrationGraph::new();
        g.add("accounts", "a1", &[]).unwrap();
        g.add("accounts", "a2", &["a1"]).unwrap();
        g.add("shop", "s1", &["a1"]).unwrap();
        g.add("shop", "s2", &["s1"]).unwrap();
        g.add("shop", "s3", &["s1"]).unwrap();
        let applied: AppliedState = [("a1".to_string(), 10), ("a2".to_string(), 11), ("s1".to_string(), 11)].into();
        let s = g.summary(&applied);
        assert_eq!((s.total_migrations, s.applied_migrations, s.pending_migrations), (5, 3, 2));
        assert_eq!(s.apps[0].head_migrations, vec!["a2"]);
        assert!(!s.apps[0].has_conflicts);
        assert_eq!(s.apps[1].head_migrations, vec!["s2", "s3"]);
        assert_eq!(s.conflicts.len(), 1);
        assert_eq!(s.last_applied, "s1");
        assert!(g.add("shop", "s2", &[]).is_err());
    }
}
