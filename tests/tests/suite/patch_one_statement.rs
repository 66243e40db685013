//! PATCH as one `UPDATE … RETURNING` (`access::update_in_scope`) when nothing needs the old row, and the same
//! answers as the read-then-write path: a record outside the row policies is a 404 and stays unwritten, an invalid
//! body is a 422 for a visible record and a 404 for an invisible one, an object permission or `save_hooks` keeps
//! the read. Every statement the server sends is recorded. On SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, DbBackend};
use viewset_core::prelude::*;
use viewset_tests::fixtures::paged::PublishedToAnonymous;
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, recording};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

/// `notes`: a model whose `ActiveModelBehavior` trims and upper-cases the title on every save.
mod note {
    use sea_orm::entity::prelude::*;

    #[derive(
        Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema,
    )]
    #[sea_orm(table_name = "notes")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        pub title: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    #[async_trait::async_trait]
    impl ActiveModelBehavior for ActiveModel {
        async fn before_save<C: ConnectionTrait>(mut self, _db: &C, _insert: bool) -> Result<Self, DbErr> {
            if let sea_orm::ActiveValue::Set(title) = &self.title {
                self.title = sea_orm::ActiveValue::Set(title.trim().to_uppercase());
            }
            Ok(self)
        }
    }
}

use blog::entities::post;

/// Drafts may not be written: an object permission, so PATCH reads the post first.
struct NoDrafts;
impl Permission for NoDrafts {
    fn has_permission(&self, _: &RequestContext) -> bool {
        true
    }
    fn has_object_permission(&self, _: &RequestContext, object: &dyn std::any::Any) -> bool {
        object.downcast_ref::<post::Model>().is_some_and(|p| p.published)
    }
}

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/scoped/posts", policy = [PublishedToAnonymous])]
struct ScopedPosts;

#[derive(ModelViewSet)]
#[viewset(model = post::Entity, prefix = "/checked/posts", permission_classes = [AllowAny, NoDrafts])]
struct CheckedPosts;

#[derive(ModelViewSet)]
#[viewset(model = note::Entity, prefix = "/hooked/notes", save_hooks)]
struct HookedNotes;

#[derive(ModelViewSet)]
#[viewset(model = note::Entity, prefix = "/plain/notes")]
struct PlainNotes;

async fn recorded(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let key = match db.get_database_backend() {
        DbBackend::Postgres => "SERIAL PRIMARY KEY",
        _ => "INTEGER PRIMARY KEY AUTOINCREMENT",
    };
    db.execute_unprepared(&format!("CREATE TABLE notes (id {key}, title TEXT NOT NULL)")).await.expect("notes");
    db.execute_unprepared("INSERT INTO notes (title) VALUES ('first')").await.expect("a note");
    let (recorded, statements) = recording(&db);
    let router = include_viewset::<ScopedPosts, _>(axum::Router::new());
    let router = include_viewset::<CheckedPosts, _>(router);
    let router = include_viewset::<HookedNotes, _>(router);
    let router = include_viewset::<PlainNotes, _>(router);
    let app = router.with_state(ServiceState::new(recorded)).layer(blog::auth::layer());
    (TestApp::serve(app, db, database).await, statements)
}

on_every_database!(not_mysql("counts one UPDATE … RETURNING per PATCH: MariaDB has no UPDATE … RETURNING (an UPDATE and a read in one transaction)"), recorded => one_statement_in_scope, reads_first_when_something_needs_the_row);

/// Sends a PATCH; its status, body and the statements it ran.
async fn patch(
    app: &TestApp,
    statements: &Statements,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (StatusCode, serde_json::Value, Vec<String>) {
    statements.lock().unwrap().clear();
    let (status, json) = app.send(Method::PATCH, path, token, Some(body)).await;
    (status, json, statements.lock().unwrap().clone())
}

async fn one_statement_in_scope((app, statements): (TestApp, Statements)) {
    // Published post 1, anonymously: one UPDATE … RETURNING, and the answer is the whole record.
    let (status, body, sql) = patch(&app, &statements, "/scoped/posts/1", None, r#"{"views": 121}"#).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["views"].as_i64(), body["title"].as_str()), (Some(121), Some("Notes on the Analytical Engine")));
    assert_eq!(sql.len(), 1, "{sql:?}");
    assert!(sql[0].starts_with("UPDATE") && sql[0].contains("RETURNING"), "{sql:?}");
    // Draft post 3 is outside the anonymous scope: 404, and nothing was written.
    let (status, body, _) = patch(&app, &statements, "/scoped/posts/3", None, r#"{"views": 999}"#).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (_, draft) = app.send(Method::GET, "/scoped/posts/3", BOB, None).await;
    assert_eq!(draft["views"], 7, "the draft was not written");
    // Signed in, the draft is in scope.
    let (status, body, sql) = patch(&app, &statements, "/scoped/posts/3", BOB, r#"{"views": 8}"#).await;
    assert_eq!((status, body["views"].as_i64(), sql.len()), (StatusCode::OK, Some(8), 1), "{body} {sql:?}");
    // A body of the wrong shape is refused before any lookup (422); a value failing the field's checks (a title
    // over 200 characters) is a 422 for a visible record and a 404 for an invisible or missing one, as before.
    let (status, body, sql) = patch(&app, &statements, "/scoped/posts/3", None, r#"{"views": "many"}"#).await;
    assert_eq!(
        (status, body["detail"][0]["loc"].clone(), sql.len()),
        (StatusCode::UNPROCESSABLE_ENTITY, serde_json::json!(["body", "views"]), 0),
        "{body}"
    );
    let long = format!(r#"{{"title": "{}"}}"#, "x".repeat(201));
    let too_long = long.as_str();
    let (status, body, sql) = patch(&app, &statements, "/scoped/posts/1", None, too_long).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["detail"][0]["loc"], serde_json::json!(["body", "title"]), "{body}");
    assert!(sql.iter().all(|s| s.starts_with("SELECT")), "{sql:?}");
    for path in ["/scoped/posts/3", "/scoped/posts/404"] {
        let (status, body, _) = patch(&app, &statements, path, None, too_long).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}: {body}");
    }
    // A database refusal (a foreign key to nothing, where enforced) is answered as on the usual path, never a 500.
    let (status, body, _) = patch(&app, &statements, "/scoped/posts/1", None, r#"{"author_id": 9999}"#).await;
    assert_ne!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
    // An empty body writes nothing and answers the record.
    let (status, body, sql) = patch(&app, &statements, "/scoped/posts/1", None, "{}").await;
    assert_eq!((status, body["views"].as_i64()), (StatusCode::OK, Some(121)), "{body}");
    assert!(sql.iter().all(|s| s.starts_with("SELECT")), "{sql:?}");
    // Without save_hooks the model's ActiveModelBehavior does not run: the title is stored as sent.
    let (status, body, sql) = patch(&app, &statements, "/plain/notes/1", None, r#"{"title": " sent "}"#).await;
    assert_eq!((status, body["title"].as_str(), sql.len()), (StatusCode::OK, Some(" sent "), 1), "{body}");
}

async fn reads_first_when_something_needs_the_row((app, statements): (TestApp, Statements)) {
    // An object permission sees the stored row: a draft is 403 and stays unwritten; a published post is written.
    let (status, body, sql) = patch(&app, &statements, "/checked/posts/3", None, r#"{"views": 999}"#).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(sql.iter().all(|s| s.starts_with("SELECT")), "{sql:?}");
    let (status, body, sql) = patch(&app, &statements, "/checked/posts/2", None, r#"{"views": 301}"#).await;
    assert_eq!((status, body["views"].as_i64()), (StatusCode::OK, Some(301)), "{body}");
    assert!(sql.len() >= 2 && sql[0].starts_with("SELECT"), "{sql:?}");
    // save_hooks: the ActiveModelBehavior runs on PATCH.
    let (status, body, sql) = patch(&app, &statements, "/hooked/notes/1", None, r#"{"title": " quiet "}"#).await;
    assert_eq!((status, body["title"].as_str()), (StatusCode::OK, Some("QUIET")), "{body}");
    assert!(sql.len() >= 2 && sql[0].starts_with("SELECT"), "{sql:?}");
    // If-Match keeps the locked read-compare-write.
    let response = app.client().get(format!("{}/hooked/notes/1", app.base)).send().await.expect("get");
    let tag = response.headers()["etag"].to_str().expect("etag").to_string();
    statements.lock().unwrap().clear();
    let response = app
        .client()
        .patch(format!("{}/plain/notes/1", app.base))
        .header("if-match", tag)
        .header("content-type", "application/json")
        .body(r#"{"title": "tagged"}"#)
        .send()
        .await
        .expect("patch");
    assert_eq!(response.status(), StatusCode::OK);
    assert!(statements.lock().unwrap().iter().any(|s| s.starts_with("SELECT")), "read under the lock");
}
