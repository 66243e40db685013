//! Reserved query names (issue 20 item 6): a model field named like a framework parameter (`count`, `page`, …,
//! `viewset_core::query::RESERVED_QUERY_NAMES`) is not one of the router's exact-match filters, so `?count=…` can
//! never silently filter rows. (Naming it in `filterable_fields` is a compile error: tests/ui/fail.) The blog's
//! `posts` table, with `views` served as a field named `count`, on SQLite and PostgreSQL.

use axum::Router;
use reqwest::StatusCode;
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, TestApp, TestDb, ids};
use viewset_tests::on_every_database;

mod counted {
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    /// A post whose view count is a field named `count`.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "posts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        pub title: String,
        #[sea_orm(column_name = "views")]
        pub count: i32,
        #[sea_orm(column_name = "author_id")]
        pub page: i32,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[derive(ModelViewSet)]
#[viewset(model = counted::Entity, prefix = "/api/counted", stream_enabled = false)]
struct Counted;

on_every_database!(app => reserved_names_are_not_router_filters);

async fn app(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let router = include_viewset::<Counted, _>(Router::new()).with_state(ServiceState::new(db.clone()));
    TestApp::serve(router, db, database).await
}

async fn reserved_names_are_not_router_filters(app: TestApp) {
    // Seed: post 2 has 300 views, the others 120 and 7; authors 1, 2, 2.
    let (status, all) = app.get("/api/counted/").await;
    assert_eq!((status, ids(&all).len()), (StatusCode::OK, 3), "{all}");
    // `count` is the paginator's count mode (`exact`, `estimated`, `none`), never a filter on the `count` field.
    let (status, body) = app.get("/api/counted/?count=300").await;
    assert_eq!(
        (status, body["detail"][0]["loc"][1].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("count")),
        "{body}"
    );
    let (status, body) = app.get("/api/counted/?count=exact").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(ids(&body).len(), 3, "`count` is reserved: not a filter: {body}");
    // `page` is reserved too (and not this paginator's parameter): ignored as a filter.
    let (_, body) = app.get("/api/counted/?page=1").await;
    assert_eq!(ids(&body).len(), 3, "{body}");
    // Unreserved fields still filter.
    let (_, body) = app.get("/api/counted/?title=On%20Computable%20Numbers").await;
    assert_eq!(ids(&body), vec![3], "{body}");
}
