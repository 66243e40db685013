//! Many-to-many relations (issue #69, goal 1), declared once as the model's sea-orm `Related` impl with `via` and
//! named in `relations(labels = label::Entity)`: `?labels__name=` and `?labels__id__in=` filter through the join
//! table (a note with two matching labels appears and counts once), `?expand=labels` embeds each note's labels in one
//! statement for the page, and both go through the label ViewSet's own policy (a secret label is invisible to a
//! caller its row policy hides it from). On SQLite, PostgreSQL and MariaDB.

use reqwest::{Method, StatusCode};
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};
use viewset_core::ServiceState;
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, recording};
use viewset_tests::identities::blog::ALICE;
use viewset_tests::on_every_database;

pub mod note {
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

    /// Notes and labels through `note_labels`.
    impl Related<super::label::Entity> for Entity {
        fn to() -> RelationDef {
            super::note_label::Relation::Label.def()
        }
        fn via() -> Option<RelationDef> {
            Some(super::note_label::Relation::Note.def().rev())
        }
    }

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod label {
    use sea_orm::entity::prelude::*;

    #[derive(
        Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema,
    )]
    #[sea_orm(table_name = "labels")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        pub name: String,
        pub secret: bool,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod note_label {
    use sea_orm::entity::prelude::*;

    #[derive(
        Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema,
    )]
    #[sea_orm(table_name = "note_labels")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub note_id: i32,
        #[sea_orm(primary_key, auto_increment = false)]
        pub label_id: i32,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {
        #[sea_orm(belongs_to = "super::note::Entity", from = "Column::NoteId", to = "super::note::Column::Id")]
        Note,
        #[sea_orm(belongs_to = "super::label::Entity", from = "Column::LabelId", to = "super::label::Column::Id")]
        Label,
    }

    impl ActiveModelBehavior for ActiveModel {}
}

/// Secret labels are seen by staff only.
pub struct SecretToStaff;

impl RowPolicy for SecretToStaff {
    fn condition(&self, request: &RequestContext) -> Result<Option<sea_orm::Condition>, ApiError> {
        use sea_orm::ColumnTrait;
        Ok((!request.principal.is_staff).then(|| sea_orm::Condition::all().add(label::Column::Secret.eq(false))))
    }
}

#[derive(ModelViewSet)]
#[viewset(model = label::Entity, prefix = "/labels", permission_classes = [AllowAny], policy = [SecretToStaff])]
pub struct Labels;

#[derive(ModelViewSet)]
#[viewset(
    model = note::Entity,
    prefix = "/notes",
    permission_classes = [AllowAny],
    filter_backends = [ServiceFilterBackend],
    relations(labels = label::Entity),
    filterable_fields = ["title", "labels__name", "labels__id"],
    expandable = ["labels"],
    ordering = "id",
)]
pub struct Notes;

/// Notes 1 (rust, web), 2 (rust), 3 (none), 4 (hidden: a secret label only); labels 1 rust, 2 web, 3 hidden (secret).
async fn notes(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    for sql in [
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, title VARCHAR(100) NOT NULL)",
        "CREATE TABLE labels (id INTEGER PRIMARY KEY, name VARCHAR(50) NOT NULL, secret BOOLEAN NOT NULL)",
        "CREATE TABLE note_labels (note_id INTEGER NOT NULL, label_id INTEGER NOT NULL, PRIMARY KEY (note_id, label_id))",
        "INSERT INTO notes (id, title) VALUES (1, 'both'), (2, 'rust only'), (3, 'bare'), (4, 'hidden only')",
        "INSERT INTO labels (id, name, secret) VALUES (1, 'rust', FALSE), (2, 'web', FALSE), (3, 'hidden', TRUE)",
        "INSERT INTO note_labels (note_id, label_id) VALUES (1, 1), (1, 2), (2, 1), (4, 3)",
    ] {
        db.execute_unprepared(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    let (recorded, statements) = recording(&db);
    let mut api = Api::new();
    api.include::<Notes>().expect("registers").include::<Labels>().expect("registers");
    let router = api.into_router().with_state(ServiceState::new(recorded)).layer(blog::auth::layer());
    (TestApp::serve(router, db, database).await, statements)
}

on_every_database!(notes =>
    filters_go_through_the_join_table_once,
    expand_embeds_each_notes_labels_in_one_statement,
    the_label_policy_holds_through_the_relation,
);

fn ids(body: &Value) -> Vec<i64> {
    body["results"].as_array().unwrap_or_else(|| panic!("{body}")).iter().map(|n| n["id"].as_i64().unwrap()).collect()
}

async fn filters_go_through_the_join_table_once((app, _): (TestApp, Statements)) {
    let (_, rust) = app.get("/notes/?labels__name=rust").await;
    assert_eq!((ids(&rust), rust["count"].as_i64()), (vec![1, 2], Some(2)), "{rust}");
    // Note 1 has both labels: it appears, and counts, once.
    let (_, either) = app.get("/notes/?labels__id__in=1,2").await;
    assert_eq!((ids(&either), either["count"].as_i64()), (vec![1, 2], Some(2)), "{either}");
    let (_, web) = app.get("/notes/?labels__name__icontains=WE&title=both").await;
    assert_eq!(ids(&web), vec![1]);
    // In an `or=` group too.
    let (_, grouped) = app.get("/notes/?or=(labels__name.web,title.bare)").await;
    assert_eq!(ids(&grouped), vec![1, 3], "{grouped}");
    // Hostile: more values than `max_in_values`, a lookup that does not exist, a path through no relation.
    let many = (1..=10_000).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    for (query, kind) in [
        (format!("labels__id__in={many}"), "too_many_values"),
        ("labels__name__regex=r".to_string(), "unsupported_lookup"),
        ("tags__name=rust".to_string(), "unknown_filter"),
    ] {
        let (status, body) = app.get(&format!("/notes/?{query}")).await;
        assert_eq!((status, &body["detail"][0]["type"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!(kind)), "{body}");
    }
}

async fn expand_embeds_each_notes_labels_in_one_statement((app, statements): (TestApp, Statements)) {
    statements.lock().unwrap().clear();
    let (status, page) = app.get("/notes/?expand=labels").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let names = |note: &Value| -> Vec<String> {
        note["labels"].as_array().expect("an array").iter().map(|l| l["name"].as_str().unwrap().to_string()).collect()
    };
    let results = page["results"].as_array().unwrap();
    let by_id: Vec<(i64, Vec<String>)> = results.iter().map(|n| (n["id"].as_i64().unwrap(), names(n))).collect();
    let expected = [(1, vec!["rust", "web"]), (2, vec!["rust"]), (3, vec![]), (4, vec![])];
    let expected: Vec<(i64, Vec<String>)> =
        expected.into_iter().map(|(id, l)| (id, l.into_iter().map(String::from).collect())).collect();
    assert_eq!(by_id, expected);
    let through = statements.lock().unwrap().iter().filter(|s| s.contains("note_labels")).count();
    assert_eq!(through, 1, "one statement for the labels of the whole page: {:?}", statements.lock().unwrap());
    // The document types the relation as an array of the label ViewSet's records.
    let mut api = Api::new();
    api.include::<Notes>().expect("registers").include::<Labels>().expect("registers");
    let doc = serde_json::to_value(api.openapi("notes", "1")).expect("a document");
    let labels = &doc["paths"]["/notes/{pk}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["properties"]
        ["labels"];
    assert_eq!(labels["items"]["$ref"], "#/components/schemas/labels_record", "{labels}");
}

async fn the_label_policy_holds_through_the_relation((app, _): (TestApp, Statements)) {
    // Anonymous: the secret label is neither embedded nor matched.
    let (_, hidden) = app.get("/notes/?labels__name=hidden").await;
    assert_eq!(hidden["count"], 0, "{hidden}");
    let (_, note) = app.get("/notes/4?expand=labels").await;
    assert_eq!(note["labels"], json!([]), "{note}");
    // Staff see it through the same relation.
    let (_, hidden) = app.send(Method::GET, "/notes/?labels__name=hidden", ALICE, None).await;
    assert_eq!(ids(&hidden), vec![4]);
    let (_, note) = app.send(Method::GET, "/notes/4?expand=labels", ALICE, None).await;
    assert_eq!(note["labels"], json!([{"id": 3, "name": "hidden", "secret": true}]), "{note}");
}
