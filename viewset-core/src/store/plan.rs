//! Which path each operation of a ViewSet takes, decided once from its configuration, its permissions and the
//! backend's capabilities. Every fast path of the store is a read of this plan; a new backend or a new kind of
//! statement changes the plan and the store, nothing above them.

use std::any::TypeId;
use std::mem::Discriminant;

use sea_orm::{DbBackend, EntityTrait, Iterable, PrimaryKeyToColumn};

use crate::contract::paginator::Paginator;
use crate::contract::permission::Permission;
use crate::contract::viewset::ViewSet;
use crate::memo::Memo;

/// How the store runs the operations of one ViewSet on one backend.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// use sea_orm::DbBackend;
/// use viewset_core::prelude::*;
/// use viewset_core::store::Plan;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, permission_classes = [IsAuthenticated])]
/// pub struct Posts;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, save_hooks)]
/// pub struct HookedPosts;
///
/// assert!(Plan::of::<Posts>(DbBackend::Postgres).update_in_one_statement);
/// assert!(!Plan::of::<HookedPosts>(DbBackend::Postgres).update_in_one_statement);
/// assert!(!Plan::of::<Posts>(DbBackend::MySql).insert_returning);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The scope is the default `get_queryset` (no `custom_hooks`): a list starts from the entity's pre-rendered
    /// column list and its page statement is the count's text with the ordering after it; a detail lookup with no
    /// required row policy for the caller is a statement built once.
    pub default_scope: bool,
    /// A PATCH without `If-Match` is one `UPDATE … WHERE <lookup> AND <required row policies> RETURNING *`:
    /// the default scope, no permission that checks objects, no `save_hooks`, the lookup field is the single-column
    /// primary key, and the backend writes `RETURNING`. Otherwise the record is read, checked, then written.
    pub update_in_one_statement: bool,
    /// A create reads its row back through `INSERT … RETURNING` (PostgreSQL, SQLite ≥ 3.35, MariaDB ≥ 10.5 when
    /// every connection reached MariaDB: `inserts_returning`); otherwise (MySQL) it is read again by key.
    pub insert_returning: bool,
    /// The CSV list is streamed in chunks of rows (its `list` is the default and its window is by limit/offset or
    /// page); otherwise the JSON page is converted.
    pub streams_csv: bool,
    /// A counted list with a search term (`search`, `q`) reads its page and the size of the filtered set in one
    /// statement on PostgreSQL and SQLite (`COUNT(*) OVER ()`): the search reads every matching row for the page
    /// anyway, so one scan replaces two (bench/notes/count-in-page.md: 1.7–1.9× the lists
    /// per second on PostgreSQL, 1.24× on SQLite, 0.57–0.66× on MariaDB, which keeps two statements). The default
    /// scope with the built-in filter backends only, whose selects have no `DISTINCT` for the window to count
    /// before. Without a search term (where an index can end the page early) the count is its own statement.
    pub window_count: bool,
}

/// The plan of each ViewSet and backend, worked out on first use.
static PLANS: Memo<(TypeId, Discriminant<DbBackend>, bool), Plan> = Memo::new();

impl Plan {
    /// The plan of `V` on `backend` (worked out once, then read from a process-wide cache).
    pub fn of<V: ViewSet>(backend: DbBackend) -> Plan {
        let key = (TypeId::of::<V>(), std::mem::discriminant(&backend), inserts_returning(backend));
        if let Some(plan) = PLANS.read().get(&key) {
            return *plan;
        }
        let plan = Plan::work_out::<V>(backend);
        PLANS.insert(key, plan);
        plan
    }

    fn work_out<V: ViewSet>(backend: DbBackend) -> Plan {
        let config = &V::CONFIG;
        let returning = backend.support_returning();
        let default_scope = !config.custom_hooks;
        Plan {
            default_scope,
            update_in_one_statement: default_scope
                && !config.save_hooks
                && returning
                && lookup_is_key::<V>()
                && !checks_objects::<V>(),
            insert_returning: inserts_returning(backend),
            streams_csv: default_scope && !V::Pagination::PARAMETERS.contains(&"cursor"),
            window_count: default_scope && backend != DbBackend::MySql && builtin_backends(config.filter_backends),
        }
    }
}

/// Whether `backend` writes `INSERT … RETURNING`: PostgreSQL and SQLite (as sea-orm says), MariaDB (≥ 10.5) when
/// every MariaDB / MySQL connection of the process reached MariaDB (read at connect, `store/mysql.rs`). sea-orm's
/// own `support_returning` stays false there, as MariaDB has no `UPDATE … RETURNING`.
pub(crate) fn inserts_returning(backend: DbBackend) -> bool {
    #[cfg(feature = "mysql")]
    if backend == DbBackend::MySql {
        return super::mysql::mariadb_only();
    }
    backend.support_returning()
}

/// Whether every filter backend is one of core's (by name, as the derive records them).
fn builtin_backends(names: &[&str]) -> bool {
    const BUILT_IN: [&str; 5] =
        ["ServiceFilterBackend", "DjangoFilterBackend", "SearchFilter", "OrderingFilter", "FullTextSearchFilter"];
    names.iter().all(|name| BUILT_IN.contains(name))
}

/// Whether a permission of `V` looks at records ([`Permission::checks_objects`]).
fn checks_objects<V: ViewSet>() -> bool {
    let mut checks = false;
    let _ = V::permission_classes(&mut |p: &dyn Permission| {
        checks |= p.checks_objects();
        Ok(())
    });
    checks
}

/// Whether the lookup field of `V` is its single-column primary key (so at most one row matches).
pub(super) fn lookup_is_key<V: ViewSet>() -> bool {
    let mut keys = <V::Entity as EntityTrait>::PrimaryKey::iter();
    match (keys.next(), keys.next()) {
        (Some(key), None) => {
            crate::types::columns::field_name::<V::Entity>(key.into_column()) == V::CONFIG.lookup_field
        }
        _ => false,
    }
}
