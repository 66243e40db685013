//! Values a JSON body carries that parse but no database stores (issue 14 item 4): a date outside 0001–9999 in a
//! body was a PostgreSQL 500. Now a 422 at the field (by its field name, not its column), nothing written, on
//! SQLite and PostgreSQL. The model serves the blog's `posts` table with a writable, renamed `created_at`.

use axum::Router;
use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

mod dated {
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    /// A post whose creation time the client sets.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "posts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        #[sea_orm(column_type = "String(StringLen::N(200))")]
        pub title: String,
        #[sea_orm(column_type = "Text")]
        pub body: String,
        pub author_id: i32,
        #[sea_orm(column_name = "created_at")]
        pub written_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[derive(ModelViewSet)]
#[viewset(model = dated::Entity, prefix = "/api/dated", stream_enabled = false)]
struct Dated;

on_every_database!(app => body_dates_outside_the_storable_range);

async fn app(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let router = include_viewset::<Dated, _>(Router::new()).with_state(ServiceState::new(db.clone()));
    TestApp::serve(router, db, database).await
}

async fn body_dates_outside_the_storable_range(app: TestApp) {
    let (_, before) = app.get("/api/dated/").await;
    // `+300000` is past chrono's own range: its parser refuses it (a 422 at the field, in serde's words); the others
    // parse, and were a PostgreSQL 500 (`-262143`) or stored on SQLite where PostgreSQL refused them.
    let cases = [
        ("-262143-01-01T00:00:00Z", true),
        ("+300000-01-01T00:00:00Z", false),
        ("0000-12-31T23:59:59Z", true),
        ("+10000-01-01T00:00:00Z", true),
    ];
    for (when, ours) in cases {
        let body = format!(r#"{{"title": "t", "body": "b", "author_id": 1, "written_at": "{when}"}}"#);
        let (status, answer) = app.send(Method::POST, "/api/dated/", BOB, Some(&body)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{when}: {answer}");
        let error = &answer["detail"][0];
        assert_eq!(error["loc"], serde_json::json!(["body", "written_at"]), "{when}: {answer}");
        if ours {
            assert!(error["msg"].as_str().unwrap().contains("between 0001-01-01 and 9999-12-31"), "{answer}");
        }
        let patch = format!(r#"{{"written_at": "{when}"}}"#);
        let (status, answer) = app.send(Method::PATCH, "/api/dated/1", BOB, Some(&patch)).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "PATCH {when}: {answer}");
    }
    let (_, after) = app.get("/api/dated/").await;
    assert_eq!(before, after, "nothing written");
    let (status, one) = app.get("/api/dated/1").await;
    assert_eq!(status, StatusCode::OK);
    assert_ne!(one["written_at"], Value::Null);
    // A date-time that does not parse names the accepted format (issue 15).
    let body = r#"{"title": "t", "body": "b", "author_id": 1, "written_at": "yesterday"}"#;
    let (status, answer) = app.send(Method::POST, "/api/dated/", BOB, Some(body)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let msg = answer["detail"][0]["msg"].as_str().unwrap_or_default();
    assert!(msg.starts_with("Input should be a date-time (RFC 3339"), "{answer}");
    // The edges are stored and read back.
    let body = r#"{"title": "edge", "body": "b", "author_id": 1, "written_at": "9999-12-31T00:00:00Z"}"#;
    let (status, created) = app.send(Method::POST, "/api/dated/", BOB, Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert!(created["written_at"].as_str().unwrap().starts_with("9999-12-31"), "{created}");
}
