//! A page's rows are decoded into the model by position when they hold the entity's columns in the entity's
//! order, and by name otherwise (`viewset_core::schema::rows`). A model over the blog's `posts` table whose
//! fields are declared in another order than the table's columns, with a renamed column and a field sea-orm
//! ignores, is listed through a plain ViewSet (by position) and through one whose queryset selects the columns in
//! reverse (by name): every list item of both equals the record retrieved through the reversed one (by name; a
//! plain retrieve decodes by position too, since the lookup reads through the ViewSet's `decode_rows`). On SQLite
//! and PostgreSQL.

use axum::Router;
use reqwest::StatusCode;
use sea_orm::{EntityTrait, Iterable, QuerySelect, Select};
use viewset_core::prelude::*;
use viewset_core::query::Filters;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;

mod note {
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    /// A blog post, its fields in an order of their own.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "posts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        pub views: i32,
        #[sea_orm(column_name = "title")]
        pub headline: String,
        pub rating: Option<f64>,
        /// Not a column: every decoding leaves it empty.
        #[sea_orm(ignore)]
        pub excerpt: String,
        pub published: bool,
        pub author_id: i32,
        #[viewset(read_only)]
        pub created_at: DateTimeUtc,
        pub body: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[derive(ModelViewSet)]
#[viewset(model = note::Entity, prefix = "/api/notes", ordering = "id", stream_enabled = false)]
struct Notes;

/// The same columns selected in reverse order.
#[derive(ModelViewSet)]
#[viewset(
    model = note::Entity,
    prefix = "/api/reversed-notes",
    ordering = "id",
    stream_enabled = false,
    custom_hooks
)]
struct ReversedNotes;

impl Hooks for ReversedNotes {
    fn get_queryset(_request: &RequestContext, _filters: &Filters) -> Result<Select<note::Entity>, ApiError> {
        let mut columns: Vec<note::Column> = note::Column::iter().collect();
        columns.reverse();
        Ok(note::Entity::find().select_only().columns(columns))
    }
}

on_every_database!(app => list_items_equal_the_records_retrieved_alone);

async fn app(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let router = include_viewset::<ReversedNotes, _>(include_viewset::<Notes, _>(Router::new()))
        .with_state(ServiceState::new(db.clone()));
    TestApp::serve(router, db, database).await
}

async fn list_items_equal_the_records_retrieved_alone(app: TestApp) {
    for prefix in ["/api/notes", "/api/reversed-notes"] {
        let (status, page) = app.get(&format!("{prefix}/?limit=100")).await;
        assert_eq!(status, StatusCode::OK, "{prefix}: {page}");
        let items = page["results"].as_array().expect("results");
        assert_eq!(items.len() as u64, page["count"].as_u64().expect("count"), "{prefix}: one page holds them all");
        assert!(items.len() >= 3 && items.iter().any(|i| i["rating"].is_null()), "{prefix}: {page}");
        for item in items {
            let (status, alone) = app.get(&format!("/api/reversed-notes/{}", item["id"])).await;
            assert_eq!(status, StatusCode::OK, "{prefix}: {alone}");
            assert_eq!(item, &alone, "{prefix}: the list item and the record decoded by name");
            assert_eq!(item["excerpt"], "", "{prefix}: the ignored field keeps its default");
        }
        let first = &items[0];
        assert_eq!(
            (first["id"].as_i64(), first["headline"].as_str()),
            (Some(1), Some("Notes on the Analytical Engine"))
        );
        assert_eq!((first["published"].as_bool(), first["author_id"].as_i64()), (Some(true), Some(1)), "{first}");
    }
}
