//! What the document says of one ViewSet, gathered from its type in one small generic function ([`Doc::of`]):
//! its configuration and every other fact the operations read (schemas, hooks, the paginator, the columns, who
//! may call anonymously). The operations, parameters and schemas are built from it by code compiled once, so each
//! ViewSet adds [`Doc::of`] to an application's build rather than the whole document's code (BENCHMARKS.md,
//! "Compile cost").

use sea_orm::sea_query::ColumnType;
use sea_orm::{ColumnTrait, EntityTrait, Iterable};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use crate::contract::config::Config;
use crate::contract::hooks::Hooks;
use crate::contract::paginator::Paginator;
use crate::contract::viewset::ActionInfo;
use crate::schema::{CreateSchema, UpdateSchema};
use crate::types::operation::Operation;

/// The operations whose security the document states (the actions' is always optional).
const SECURED: [Operation; 7] = [
    Operation::List,
    Operation::Create,
    Operation::Retrieve,
    Operation::Update,
    Operation::Delete,
    Operation::Stream,
    Operation::Aggregate,
];

/// One ViewSet as the document describes it.
pub(crate) struct Doc {
    /// Its configuration.
    pub config: &'static Config,
    /// Where its routes live (`ViewSet::prefix`).
    pub prefix: String,
    /// What its operation ids start with (`ViewSet::basename`).
    pub basename: String,
    /// Whether writes require `If-Match` (`Hooks::require_if_match`).
    pub require_if_match: bool,
    /// The schema of the lookup value.
    pub lookup: RefOr<Schema>,
    /// The read schemas of a list item and of a record.
    pub list_item: RefOr<Schema>,
    pub detail: RefOr<Schema>,
    /// The create and PATCH bodies.
    pub create: RefOr<Schema>,
    pub update: RefOr<Schema>,
    /// Its custom actions.
    pub actions: Vec<ActionInfo>,
    /// The paginator's query parameters and envelope fields.
    pub pagination_parameters: &'static [&'static str],
    pub pagination_fields: &'static [&'static str],
    /// Every model field with its column's type, in declaration order.
    pub columns: Vec<(&'static str, ColumnType)>,
    /// The router's exact-match filters (`Hooks::get_filter_fields`).
    pub filter_fields: Vec<&'static str>,
    /// The operations of [`SECURED`] that anonymous callers may call.
    anonymous: Vec<Operation>,
}

impl Doc {
    /// The description of `V`.
    pub(crate) fn of<V: Hooks>() -> Doc {
        // Loops, not adapters: an adapter over a closure is compiled again for every ViewSet.
        let fields = crate::types::columns::column_names::<V::Entity>();
        let mut columns = Vec::with_capacity(fields.len());
        for column in <V::Entity as EntityTrait>::Column::iter() {
            columns.push((fields[columns.len()], column.def().get_column_type().clone()));
        }
        let mut anonymous = Vec::new();
        for operation in SECURED {
            if crate::access::admits_anonymous::<V>(operation) {
                anonymous.push(operation);
            }
        }
        Doc {
            config: &V::CONFIG,
            prefix: V::prefix(),
            basename: V::basename(),
            require_if_match: V::require_if_match(),
            lookup: V::lookup_schema(),
            list_item: V::list_item_schema(),
            detail: V::detail_schema(),
            create: V::Create::openapi_schema(),
            update: V::Update::openapi_schema(),
            actions: V::actions(),
            pagination_parameters: V::Pagination::PARAMETERS,
            pagination_fields: V::Pagination::RESPONSE_FIELDS,
            columns,
            filter_fields: V::get_filter_fields(),
            anonymous,
        }
    }

    /// Whether anonymous callers may call `operation` (as [`crate::access::admits_anonymous`] told).
    pub(crate) fn admits_anonymous(&self, operation: Operation) -> bool {
        self.anonymous.contains(&operation)
    }

    /// Every model field name, in declaration order.
    pub(crate) fn field_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.columns.iter().map(|(field, _)| *field)
    }

    /// The column type of the model field `field`.
    pub(crate) fn column_type(&self, field: &str) -> Option<&ColumnType> {
        self.columns.iter().find(|(name, _)| *name == field).map(|(_, column_type)| column_type)
    }
}
