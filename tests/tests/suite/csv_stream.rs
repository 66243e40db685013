//! A CSV list is streamed from the database in chunks of `CSV_CHUNK_ROWS`: a window of many chunks equals the JSON
//! page row for row (order, fields, embedded relations across chunk boundaries), and memory holds one chunk. On
//! SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_core::pagination::CSV_CHUNK_ROWS;
use viewset_core::prelude::*;
use viewset_tests::datagen::{Rng, insert_posts};
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;

/// Posts in windows of up to 1,000.
#[derive(ModelViewSet)]
#[viewset(model = blog::entities::post::Entity, prefix = "/export/posts", max_limit = 1000, expandable = ["author"])]
pub struct ExportPosts;

async fn export_app(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    insert_posts(&db, 700, &mut Rng::new(11)).await;
    let mut api = Api::new();
    api.include::<ExportPosts>().unwrap().include::<blog::viewsets::AuthorViewSet>().unwrap();
    let router = api.into_router().with_state(ServiceState::new(db.clone())).layer(blog::auth::layer());
    TestApp::serve(router, db, database).await
}

on_every_database!(export_app => many_chunks_equal_the_json_page);

fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

async fn many_chunks_equal_the_json_page(app: TestApp) {
    const { assert!(CSV_CHUNK_ROWS < 300, "the window below spans several chunks") };
    let query = "ordering=-views,id&limit=650&offset=20&fields=id,title,views,author_id&expand=author";
    let (status, page) = app.send(Method::GET, &format!("/export/posts/?{query}"), Some("bob-token"), None).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let records = page["results"].as_array().unwrap();
    assert_eq!(records.len(), 650);
    let response = app
        .client()
        .get(format!("{}/export/posts/?{query}&format=csv", app.base))
        .bearer_auth("bob-token")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers().get("content-length").is_none(), "streamed, not buffered");
    let csv = response.text().await.unwrap();
    let lines: Vec<&str> = csv.strip_suffix("\r\n").unwrap().split("\r\n").collect();
    assert_eq!(lines[0], "id,title,views,author_id,author");
    assert_eq!(lines.len(), 651, "a header and every row of the window");
    for (line, record) in lines[1..].iter().zip(records) {
        let id = cell(&record["id"]);
        assert!(line.starts_with(&format!("{id},")), "{line} is not the record {record}");
        let author = record["author"].to_string().replace('"', "\"\"");
        assert!(line.ends_with(&format!(",\"{author}\"")), "the embedded author of {id}: {line}");
    }
    // Past the end: the header only; a failing request is still a JSON error.
    let past = app.client().get(format!("{}/export/posts/?offset=5000&format=csv&fields=id", app.base)).send().await;
    assert_eq!(past.unwrap().text().await.unwrap(), "id\r\n");
    let (status, body) = app.send(Method::GET, "/export/posts/?limit=5000&format=csv", None, None).await;
    assert_eq!((status, &body["detail"][0]["loc"][1]), (StatusCode::UNPROCESSABLE_ENTITY, &Value::from("limit")));
}
