//! A model whose fields are renamed with `#[sea_orm(column_name = ...)]`, served over the blog's `posts` table:
//! allowlists, query parameters, bodies, responses, cursors and stream events speak the field names
//! (`headline`, `content`, `is_live`, `writer_id`); SQL uses the column names (`title`, `body`, `published`,
//! `author_id`). On SQLite and PostgreSQL.

use axum::Router;
use reqwest::{Method, StatusCode};
use sea_orm::{ColumnTrait, QueryFilter, Select};
use serde_json::{Value, json};
use viewset_core::prelude::*;
use viewset_core::query::Filters;
use viewset_tests::harness::{Backend, SseClient, TestApp, TestDb, WAIT};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

mod story {
    use sea_orm::ActiveValue::Set;
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    /// A blog post under other field names.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "posts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        #[sea_orm(column_name = "title", column_type = "String(StringLen::N(200))")]
        pub headline: String,
        #[sea_orm(column_name = "body", column_type = "Text")]
        pub content: String,
        #[sea_orm(column_name = "published", default_value = false)]
        pub is_live: bool,
        #[sea_orm(default_value = 0)]
        pub views: i32,
        pub rating: Option<f64>,
        #[sea_orm(column_name = "author_id")]
        pub writer_id: i32,
        #[viewset(read_only)]
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    #[async_trait::async_trait]
    impl ActiveModelBehavior for ActiveModel {
        async fn before_save<C: ConnectionTrait>(mut self, _db: &C, insert: bool) -> Result<Self, DbErr> {
            if insert {
                self.created_at = Set(chrono::Utc::now());
            }
            Ok(self)
        }
    }
}

#[derive(ModelViewSet)]
#[viewset(
    model = story::Entity,
    prefix = "/api/stories",
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["is_live", "writer_id", "headline", "views"],
    search_fields = ["headline", "content"],
    ordering_fields = ["id", "headline", "views"],
    ordering = "-id",
    permission_classes = [IsAuthenticatedOrReadOnly],
)]
struct Stories;

#[derive(ModelViewSet)]
#[viewset(
    model = story::Entity,
    prefix = "/api/story-pages",
    pagination_class = CursorPagination,
    filter_backends = [OrderingFilter],
    ordering_fields = ["headline", "views", "id"],
    ordering = ["headline", "id"],
    stream_enabled = false,
)]
struct StoryPages;

/// Only live stories: a view whose condition is on a renamed column (`is_live` → `published`), so a deleted row's
/// last state must be mapped back from field names to columns to decide who saw it.
#[derive(ModelViewSet)]
#[viewset(model = story::Entity, prefix = "/api/live-stories", custom_hooks)]
struct LiveStories;

impl Hooks for LiveStories {
    fn get_queryset(request: &RequestContext, filters: &Filters) -> Result<Select<story::Entity>, ApiError> {
        Ok(viewset_core::viewset::base_queryset::<Self>(request, filters)?.filter(story::Column::IsLive.eq(true)))
    }
}

on_every_database!(app =>
    reads_filters_search_and_ordering,
    writes_with_field_names,
    cursor_walk_over_a_renamed_column,
    stream_events_use_field_names,
);

/// The blog's database, seeded, served through the three ViewSets over `story`.
async fn app(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let router = Router::new();
    let router =
        include_viewset::<LiveStories, _>(include_viewset::<StoryPages, _>(include_viewset::<Stories, _>(router)))
            .with_state(ServiceState::new(db.clone()))
            .layer(blog::auth::layer());
    TestApp::serve(router, db, database).await
}

fn headlines(body: &Value) -> Vec<String> {
    body["results"].as_array().expect("results").iter().map(|r| r["headline"].as_str().unwrap().to_string()).collect()
}

async fn reads_filters_search_and_ordering(app: TestApp) {
    let (status, one) = app.get("/api/stories/1").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(one["headline"], "Notes on the Analytical Engine");
    assert_eq!((one["is_live"].clone(), one["writer_id"].clone()), (json!(true), json!(1)));
    assert!(one.get("title").is_none() && one.get("published").is_none(), "field names only: {one}");

    let (status, live) = app.get("/api/stories/?is_live=true&ordering=headline").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headlines(&live), ["Computing Machinery and Intelligence", "Notes on the Analytical Engine"]);
    let (_, by_writer) = app.get("/api/stories/?writer_id=2&views__gte=100").await;
    assert_eq!(headlines(&by_writer), ["Computing Machinery and Intelligence"]);
    let (_, searched) = app.get("/api/stories/?search=DECISION").await;
    assert_eq!(headlines(&searched), ["On Computable Numbers"], "search reads the renamed `body` column");
    let (_, exact) = app.get("/api/stories/?headline=On%20Computable%20Numbers").await;
    assert_eq!(exact["count"], 1);
    // Column names are not fields: as filters they are not parameters of this API, as orderings they are invalid.
    let (_, by_column) = app.get("/api/stories/?published=false&author_id=1").await;
    assert_eq!(by_column["count"], 3);
    let (status, _) = app.get("/api/stories/?ordering=title").await;
    assert_eq!(status, StatusCode::OK);
}

async fn writes_with_field_names(app: TestApp) {
    let body = r#"{"headline": "Renamed", "content": "Columns differ", "writer_id": 2, "is_live": true}"#;
    let (status, created) = app.send(Method::POST, "/api/stories/", BOB, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!((created["headline"].clone(), created["is_live"].clone()), (json!("Renamed"), json!(true)));
    let path = format!("/api/stories/{}", created["id"]);
    let (status, patched) = app.send(Method::PATCH, &path, BOB, Some(r#"{"headline": "Renamed again"}"#)).await;
    assert_eq!(
        (status, patched["headline"].clone(), patched["content"].clone()),
        (StatusCode::OK, json!("Renamed again"), json!("Columns differ"))
    );
    let (status, refused) = app.send(Method::PATCH, &path, BOB, Some(r#"{"title": "x"}"#)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "a column name is not a body field: {refused}");
    let (status, _) = app.send(Method::DELETE, &path, BOB, None).await;
    assert_eq!(status, StatusCode::OK);
}

async fn cursor_walk_over_a_renamed_column(app: TestApp) {
    for i in 0..7 {
        let body = format!(r#"{{"headline": "Walk {i}", "content": "c", "writer_id": 1}}"#);
        app.send(Method::POST, "/api/stories/", BOB, Some(&body)).await;
    }
    let mut seen = Vec::new();
    let mut next = Some(format!("{}/api/story-pages/?limit=3", app.base));
    while let Some(url) = next {
        let page: Value = app.client().get(&url).send().await.unwrap().json().await.unwrap();
        seen.extend(headlines(&page));
        // `next` is the path and query of this API.
        next = page["next"].as_str().map(|link| format!("{}{link}", app.base));
    }
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted, "ordered by the renamed `title` column");
    assert_eq!(seen.len(), 10, "every row once: {seen:?}");
}

async fn stream_events_use_field_names(app: TestApp) {
    let mut stream = SseClient::connect(&app, "/api/live-stories/stream", None, None).await;
    stream.next(WAIT).await.expect("ready");
    app.send(Method::PATCH, "/api/stories/2", BOB, Some(r#"{"views": 301}"#)).await;
    let updated = stream.next(WAIT).await.expect("updated");
    assert_eq!((updated.event.as_str(), updated.data["pk"].clone()), ("updated", json!(2)));
    assert_eq!(updated.data["record"]["headline"], "Computing Machinery and Intelligence");
    app.send(Method::DELETE, "/api/stories/2", BOB, None).await;
    let deleted = stream.next(WAIT).await.expect("deleted: the snapshot's fields map back to columns");
    assert_eq!((deleted.event.as_str(), deleted.data["pk"].clone()), ("deleted", json!(2)));
}
