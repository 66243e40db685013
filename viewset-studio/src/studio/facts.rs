//! What `/ai/schema/health` checks of each ViewSet, worked out once when the application registers it with
//! [`crate::Studio::viewset`] (the check itself, against the database catalog, is `crate::ai::health`).

use std::str::FromStr;

use sea_orm::{EntityName, EntityTrait, IdenStatic, Iterable, PrimaryKeyToColumn};
use viewset_core::viewset::OrderingFields;
use viewset_core::{Hooks, Operation};

/// What schema health checks of one ViewSet, worked out when it is registered with Studio.
#[derive(Debug, Clone)]
pub(crate) struct ViewSetFacts {
    /// The ViewSet's name.
    pub(crate) viewset: &'static str,
    /// Its table.
    pub(crate) table: String,
    /// The columns of its primary key.
    pub(crate) primary_key: Vec<String>,
    /// `(allowlist, column)` for every column the ViewSet queries by: an index should start with it.
    pub(crate) queried: Vec<(&'static str, String)>,
    /// Every column, when `ordering_fields = "__all__"` (each may be ordered by).
    pub(crate) orderable: Vec<String>,
    /// `(column, whether it has time buckets)` for every `aggregates(group_by = [...])` field: a `GROUP BY` on it
    /// (or a time range narrowing its buckets) wants an index that starts with it.
    pub(crate) grouped: Vec<(String, bool)>,
    /// The write operations an anonymous caller is admitted to.
    pub(crate) anonymous_writes: Vec<&'static str>,
}

impl ViewSetFacts {
    /// The ViewSet's name.
    pub(crate) fn viewset(&self) -> &'static str {
        self.viewset
    }

    /// The facts of `V`.
    pub(crate) fn of<V: Hooks>() -> Self {
        let c = V::CONFIG;
        let column = |field: &str| {
            <V::Entity as EntityTrait>::Column::from_str(field)
                .map_or_else(|_| field.to_string(), |c| c.as_str().into())
        };
        let mut queried: Vec<(&'static str, String)> = Vec::new();
        queried.extend(c.filterable_fields.iter().map(|f| ("filterable_fields", column(f))));
        if let OrderingFields::Only(fields) = c.ordering_fields {
            queried.extend(fields.iter().map(|f| ("ordering_fields", column(f))));
        }
        queried.extend(c.ordering.iter().map(|(f, _)| ("ordering", column(f))));
        queried.extend(c.tenant_field.iter().map(|f| ("tenant_field", column(f))));
        queried.extend(c.search_fields.iter().map(|f| ("search_fields", column(f))));
        let orderable = match c.ordering_fields {
            OrderingFields::All => <V::Entity as EntityTrait>::Column::iter().map(|c| c.as_str().to_string()).collect(),
            OrderingFields::Only(_) => Vec::new(),
        };
        let writes = [("create", Operation::Create), ("update", Operation::Update), ("delete", Operation::Delete)];
        ViewSetFacts {
            viewset: c.name,
            table: V::Entity::default().table_name().to_string(),
            primary_key: <V::Entity as EntityTrait>::PrimaryKey::iter()
                .map(|k| k.into_column().as_str().to_string())
                .collect(),
            queried,
            orderable,
            grouped: super::aggregates::group_keys::<V>().into_iter().map(|(f, timed)| (column(f), timed)).collect(),
            anonymous_writes: writes
                .into_iter()
                .filter(|(_, op)| viewset_core::access::admits_anonymous::<V>(*op))
                .map(|(name, _)| name)
                .collect(),
        }
    }
}
