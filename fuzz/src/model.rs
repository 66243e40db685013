//! The model the targets drive: one column of every kind the query layer types (text with and without a length,
//! integers of three widths, bool, float and double, date, time, naive and UTC date-times, JSON), nullable and not,
//! one renamed column and one staff-only field; and four ViewSets over it, one per built-in paginator and one with
//! `bulk`.

use viewset_core::prelude::*;

/// `items`: the fuzzed entity.
pub mod item {
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    /// A record of every column kind.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "items")]
    pub struct Model {
        /// Auto-increment key (read-only).
        #[sea_orm(primary_key)]
        pub id: i32,
        /// At most 40 characters.
        #[sea_orm(column_type = "String(StringLen::N(40))")]
        pub title: String,
        /// Unbounded text.
        #[sea_orm(column_type = "Text")]
        pub body: String,
        /// 32-bit integer with a default.
        #[sea_orm(default_value = 0)]
        pub views: i32,
        /// 16-bit integer.
        pub small: i16,
        /// Nullable 64-bit integer.
        pub big: Option<i64>,
        /// Boolean with a default.
        #[sea_orm(default_value = false)]
        pub published: bool,
        /// Nullable double.
        pub rating: Option<f64>,
        /// Single-precision float.
        pub ratio: f32,
        /// Nullable date.
        pub born: Option<Date>,
        /// Nullable time of day.
        pub opens: Option<Time>,
        /// Nullable naive date-time.
        pub seen: Option<DateTime>,
        /// Server-set UTC time.
        #[viewset(read_only)]
        pub created_at: DateTimeUtc,
        /// Staff-only text.
        pub secret: Option<String>,
        /// A field whose column is named otherwise.
        #[sea_orm(column_name = "label_text")]
        pub label: Option<String>,
        /// Free-form JSON.
        pub meta: Option<Json>,
    }

    /// No relations.
    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// Limit/offset pagination, every backend, every field filterable (`meta` and `secret` included); aggregates over
/// every kind of column (`secret` staff-only, `born` a date, `seen` a naive date-time).
#[derive(ModelViewSet)]
#[viewset(
    model = item::Entity,
    prefix = "/items",
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["id", "title", "body", "views", "small", "big", "published", "rating", "ratio", "born",
        "opens", "seen", "created_at", "secret", "label", "meta"],
    search_fields = ["title", "body", "secret", "label"],
    ordering_fields = ["id", "title", "views", "small", "big", "published", "rating", "ratio", "born", "opens",
        "seen", "created_at", "secret", "label"],
    ordering = ["-views", "id"],
    staff_only_fields = ["secret"],
    max_limit = 50,
    stream_enabled = false,
    aggregates(
        group_by = ["published", "views", "created_at", "seen", "born", "secret", "rating"],
        sum = ["views", "big", "rating", "ratio", "small"],
        avg = ["views", "rating"],
        min = ["title", "born", "seen"],
        max = ["created_at", "rating", "secret"],
        count_distinct = ["title", "secret"],
        max_groups = 20,
    ),
)]
pub struct Items;

/// Page-number pagination with small pages.
#[derive(ModelViewSet)]
#[viewset(
    model = item::Entity,
    prefix = "/paged/items",
    basename = "paged_items",
    pagination_class = PageNumberPagination,
    filter_backends = [ServiceFilterBackend, OrderingFilter],
    filterable_fields = ["views", "big", "rating", "born", "seen", "title"],
    ordering_fields = ["id", "views", "rating", "born"],
    ordering = "-id",
    default_limit = 3,
    max_limit = 7,
    stream_enabled = false,
    // Three ViewSets over one table: one set of AI tools (`items_*`) is allowed, a second would collide.
    ai_exposed = false,
)]
pub struct PagedItems;

/// Keyset pagination over every orderable column, nullable ones included.
#[derive(ModelViewSet)]
#[viewset(
    model = item::Entity,
    prefix = "/cursor/items",
    basename = "cursor_items",
    pagination_class = CursorPagination,
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["views", "published", "rating", "title"],
    search_fields = ["title"],
    ordering_fields = ["id", "title", "views", "small", "big", "published", "rating", "ratio", "born", "opens",
        "seen", "created_at", "secret", "label"],
    ordering = "-id",
    staff_only_fields = ["secret"],
    default_limit = 2,
    max_limit = 5,
    stream_enabled = false,
    ai_exposed = false,
)]
pub struct CursorItems;

/// Bulk create and bulk delete (`bulk`, at most 8 rows or keys per request).
#[derive(ModelViewSet)]
#[viewset(
    model = item::Entity,
    prefix = "/bulk/items",
    basename = "bulk_items",
    staff_only_fields = ["secret"],
    bulk,
    max_bulk = 8,
    stream_enabled = false,
    ai_exposed = false,
)]
pub struct BulkItems;

/// The routes of the four ViewSets, as an application registers them.
pub fn api() -> Api {
    let mut api = Api::new();
    api.include::<Items>().expect("Items registers once");
    api.include::<PagedItems>().expect("PagedItems registers once");
    api.include::<CursorItems>().expect("CursorItems registers once");
    api.include::<BulkItems>().expect("BulkItems registers once");
    api
}
