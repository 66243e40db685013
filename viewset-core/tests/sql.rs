//! The SQL each backend gets from the query layer: filters with every lookup, search, ordering and the row policies
//! (as sea-orm's own query-building tests do). A change in generated SQL shows up here as a readable diff.
//! PostgreSQL statements are built on a lazy pool that never connects, so no server is needed.
#![cfg(all(feature = "sqlite", feature = "postgres"))]

use sea_orm::{ColumnTrait, Condition, DatabaseConnection, DbBackend, QueryTrait, SqlxPostgresConnector};
use viewset_core::access::{self, Operation, Principal, RowPolicy};
use viewset_core::prelude::*;
use viewset_core::query::{Filters, QueryParams, apply_order, effective_order};

mod post {
    use sea_orm::entity::prelude::*;

    #[derive(
        Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema,
    )]
    #[sea_orm(table_name = "posts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        pub title: String,
        pub views: i32,
        pub published: bool,
        pub rating: Option<f64>,
        pub tenant_id: i32,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// Every backend, every allowlist.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
          filterable_fields = ["title", "views", "published", "rating"], search_fields = ["title"],
          ordering_fields = ["views", "rating", "id"], ordering = "-views")]
pub struct Posts;

/// Published rows only.
pub struct PublishedOnly;
impl RowPolicy for PublishedOnly {
    fn condition(&self, _: &RequestContext) -> Result<Option<Condition>, ApiError> {
        Ok(Some(Condition::all().add(post::Column::Published.eq(true))))
    }
}

/// The same rows, scoped to the caller's tenant and to published posts.
#[derive(ModelViewSet)]
#[viewset(model = post::Entity, filter_backends = [ServiceFilterBackend],
          filterable_fields = ["views"], tenant_field = "tenant_id", policy = [PublishedOnly])]
pub struct TenantPosts;

fn connection(backend: DbBackend) -> DatabaseConnection {
    match backend {
        DbBackend::Postgres => {
            let pool = sqlx::PgPool::connect_lazy("postgres://nobody@127.0.0.1:1/never").expect("a lazy pool");
            SqlxPostgresConnector::from_sqlx_postgres_pool(pool)
        }
        _ => sea_orm::Database::connect("sqlite::memory:").await_blocking(),
    }
}

trait AwaitBlocking {
    fn await_blocking(self) -> DatabaseConnection;
}
impl<F: std::future::Future<Output = Result<DatabaseConnection, sea_orm::DbErr>>> AwaitBlocking for F {
    fn await_blocking(self) -> DatabaseConnection {
        tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(self)).expect("sqlite in memory")
    }
}

/// The list SQL of `V` for `query` as `principal`, on `backend`.
fn list_sql<V: viewset_core::Hooks>(backend: DbBackend, query: &str, principal: Principal) -> Result<String, ApiError> {
    let mut request = RequestContext::new(connection(backend), Operation::List);
    request.query = QueryParams::parse(Some(query));
    request.principal = principal;
    access::admit::<V>(&mut request, Operation::List)?;
    let list = access::scoped_list::<V>(&request, &Filters::new())?;
    let order = effective_order::<V>(&list, &request);
    Ok(apply_order(list.select, &order, false).build(backend).to_string())
}

/// What follows `FROM "posts"` in the list SQL of `Posts` on both backends.
fn tails(query: &str) -> (String, String) {
    let tail = |backend| {
        let sql = list_sql::<Posts>(backend, query, Principal::anonymous()).expect("a valid query");
        sql.split_once(r#"FROM "posts""#).expect("a select from posts").1.trim().to_string()
    };
    (tail(DbBackend::Sqlite), tail(DbBackend::Postgres))
}

/// Cases whose SQL is the same on both backends.
const SAME: &[(&str, &str)] = &[
    ("", r#"ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    ("views=3", r#"WHERE "posts"."views" = 3 ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    ("views__exact=3", r#"WHERE "posts"."views" = 3 ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    // A float bound on an integer column becomes the equivalent integer bound.
    ("views__gt=2.5", r#"WHERE "posts"."views" > 2 ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    ("views__gte=2.5", r#"WHERE "posts"."views" >= 3 ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    ("views__lt=5", r#"WHERE "posts"."views" < 5 ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    ("views__lte=5", r#"WHERE "posts"."views" <= 5 ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    ("views__in=1,2,3", r#"WHERE "posts"."views" IN (1, 2, 3) ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    ("rating__isnull=true", r#"WHERE "posts"."rating" IS NULL ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    ("rating__isnull=no", r#"WHERE "posts"."rating" IS NOT NULL ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    ("rating=null", r#"WHERE "posts"."rating" IS NULL ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    ("published=yes", r#"WHERE "posts"."published" = TRUE ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    (
        "title=a&views=2",
        r#"WHERE "posts"."title" = 'a' AND "posts"."views" = 2 ORDER BY "posts"."views" DESC, "posts"."id" ASC"#,
    ),
    // Unrelated parameters (not shaped like a filter) are ignored.
    ("page=2&x=1&utm_source=y", r#"ORDER BY "posts"."views" DESC, "posts"."id" ASC"#),
    // Requested ordering replaces the default; NULL placement is spelled out for the nullable column only.
    ("ordering=rating,-id", r#"ORDER BY "posts"."rating" ASC NULLS FIRST, "posts"."id" DESC"#),
    ("ordering=-rating", r#"ORDER BY "posts"."rating" DESC NULLS LAST, "posts"."id" ASC"#),
    // Only invalid terms: no requested and no default ordering, the primary-key tie-breaker stays.
    ("ordering=nope", r#"ORDER BY "posts"."id" ASC"#),
];

#[tokio::test(flavor = "multi_thread")]
async fn filters_and_ordering_are_the_same_sql_on_both_backends() {
    for (query, expected) in SAME {
        let (sqlite, postgres) = tails(query);
        assert_eq!(sqlite, *expected, "SQLite, ?{query}");
        assert_eq!(postgres, *expected, "PostgreSQL, ?{query}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn text_matching_follows_the_backend() {
    let order = r#"ORDER BY "posts"."views" DESC, "posts"."id" ASC"#;
    // `contains` is literal: `%` and `_` match themselves (instr on SQLite, escaped LIKE on PostgreSQL, whose
    // default escape character is the backslash).
    let (sqlite, postgres) = tails("title__contains=50%_off");
    assert_eq!(sqlite, format!(r#"WHERE instr("posts"."title", '50%_off') > 0 {order}"#));
    assert_eq!(postgres, format!(r#"WHERE "posts"."title" LIKE E'%50\\%\\_off%' {order}"#));
    let (sqlite, postgres) = tails("title__icontains=Rust");
    // SQLite's LIKE folds ASCII case itself (and its LOWER() folds nothing more): no LOWER() on either side.
    assert_eq!(sqlite, format!(r#"WHERE "posts"."title" LIKE '%Rust%' ESCAPE '\' {order}"#));
    assert_eq!(postgres, format!(r#"WHERE "posts"."title" ILIKE '%Rust%' {order}"#));
    // `search` keeps `%` and `_` as wildcards (spec), case-insensitively.
    let (sqlite, postgres) = tails("search=ru_st");
    assert_eq!(sqlite, format!(r#"WHERE "posts"."title" LIKE '%ru_st%' ESCAPE '\' {order}"#));
    assert_eq!(postgres, format!(r#"WHERE "posts"."title" ILIKE '%ru_st%' {order}"#));
}

#[tokio::test(flavor = "multi_thread")]
async fn row_policies_come_after_every_client_condition() {
    let alice = Principal::user("alice").with_tenant("7");
    for backend in [DbBackend::Sqlite, DbBackend::Postgres] {
        // The tenant field cannot be filtered by the client; the tenant and the policy are always there.
        let sql = list_sql::<TenantPosts>(backend, "views=1&tenant_id=9", alice.clone()).unwrap();
        let tail = sql.split_once(r#"FROM "posts""#).unwrap().1.trim();
        assert_eq!(
            tail,
            r#"WHERE "posts"."views" = 1 AND "posts"."tenant_id" = 7 AND "posts"."published" = TRUE ORDER BY "posts"."id" ASC"#,
            "{backend:?}"
        );
        // A principal without a tenant is refused before any SQL is built.
        let denied = list_sql::<TenantPosts>(backend, "", Principal::user("bob"));
        assert!(matches!(denied, Err(ApiError::PermissionDenied(_))), "{backend:?}: {denied:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_values_are_422s_naming_the_parameter() {
    for query in
        ["views=x", "views__gt=abc", "published__gt=1", "views__contains=1", "views__regex=1", "rating__isnull=maybe"]
    {
        let err = list_sql::<Posts>(DbBackend::Sqlite, query, Principal::anonymous()).expect_err(query);
        let body = serde_json::to_string(&err.body()).unwrap();
        let param = query.split('=').next().unwrap();
        assert!(body.contains(&format!(r#"["query","{param}"]"#)), "{query}: {body}");
    }
}
