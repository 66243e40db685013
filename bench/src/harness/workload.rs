//! The workloads and what each server is asked for them.

use serde::{Deserialize, Serialize};

/// The workloads, in the order they run on each server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Workload {
    Retrieve,
    List,
    ListPlain,
    Patch,
    Create,
    DeepOffset,
    DeepCursor,
}

impl Workload {
    pub const ALL: [Workload; 7] = [
        Workload::Retrieve,
        Workload::List,
        Workload::ListPlain,
        Workload::Patch,
        Workload::Create,
        Workload::DeepOffset,
        Workload::DeepCursor,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Workload::Retrieve => "retrieve",
            Workload::List => "list",
            Workload::ListPlain => "list_plain",
            Workload::Patch => "patch",
            Workload::Create => "create",
            Workload::DeepOffset => "deep_offset",
            Workload::DeepCursor => "deep_cursor",
        }
    }
    pub(super) fn deep(self) -> bool {
        matches!(self, Workload::DeepOffset | Workload::DeepCursor)
    }
}

/// The collection path every server serves the list workloads at.
pub const LIST_PATH: &str = "/api/posts/";
/// The list workload's query: a filter, a search and an ordering, a page of 20.
pub const LIST_QUERY: &str = "?published=true&search=a&ordering=-views&limit=20";
/// The same without the search (whose `ILIKE` scans make the list database-bound): a filter and an ordering.
pub const LIST_PLAIN_QUERY: &str = "?author_id=3&ordering=-views&limit=20";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    Rust(crate::RustKind),
    Python { workers: u32 },
}

/// One server configuration under test.
#[derive(Debug, Clone)]
pub(super) struct Spec {
    pub(super) name: &'static str,
    pub(super) label: &'static str,
    pub(super) family: Family,
}

/// The servers a run on `backend` compares.
pub(super) fn specs(backend: super::options::Backend) -> Vec<Spec> {
    use crate::RustKind::*;
    let rust = |name, label, kind| Spec { name, label, family: Family::Rust(kind) };
    let python = |name, label, workers| Spec { name, label, family: Family::Python { workers } };
    if backend == super::options::Backend::Mariadb {
        return vec![
            rust("viewset", "viewset", Viewset),
            rust("sqlx-mysql", "axum + sqlx MySQL driver (hand)", SqlxMysql),
        ];
    }
    vec![
        rust("viewset", "viewset", Viewset),
        rust("seaorm", "axum + sea-orm (hand)", SeaOrm),
        rust("sqlx", "axum + sqlx (hand)", Sqlx),
        python("aksara-1w", "aksara 0.7.2, 1 worker", 1),
        python("aksara-2w", "aksara 0.7.2, 2 workers", 2),
    ]
}
