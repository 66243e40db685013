//! The workloads and what each server is asked for them.

#[allow(unused_imports)]
use super::*;

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
    pub(super) ping_if_idle: bool,
    pub(super) list_path: &'static str,
    pub(super) workloads: &'static [Workload],
    pub(super) variant: bool,
}

pub(super) fn specs() -> Vec<Spec> {
    use crate::RustKind::*;
    let all = &Workload::ALL;
    let rust = |name, label, kind| Spec {
        name,
        label,
        family: Family::Rust(kind),
        ping_if_idle: false,
        list_path: "/api/posts/",
        workloads: all,
        variant: false,
    };
    let python = |name, label, workers| Spec {
        name,
        label,
        family: Family::Python { workers },
        ping_if_idle: false,
        list_path: "/api/posts/",
        workloads: all,
        variant: false,
    };
    vec![
        rust("viewset", "viewset", Viewset),
        rust("seaorm", "axum + sea-orm (hand)", SeaOrm),
        rust("sqlx", "axum + sqlx (hand)", Sqlx),
        python("aksara-1w", "aksara 0.7.2, 1 worker", 1),
        python("aksara-2w", "aksara 0.7.2, 2 workers", 2),
        Spec {
            ping_if_idle: true,
            workloads: &[Workload::Retrieve, Workload::List, Workload::ListPlain],
            variant: true,
            ..rust("viewset-idleping", "viewset, pool pings only idle connections", Viewset)
        },
        Spec {
            list_path: "/api/posts-window/",
            workloads: &[Workload::List, Workload::ListPlain],
            variant: true,
            ..rust("sqlx-window", "axum + sqlx, list as one query with COUNT(*) OVER ()", Sqlx)
        },
    ]
}
