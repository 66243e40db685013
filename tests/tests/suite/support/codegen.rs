//! Helpers of the code generator's HTTP tests (`ai_codegen.rs`, `ai_codegen_provider.rs`): the blog with Studio and
//! the generator on a fresh `viewset new books` project, requests, and the operations the tests send.
#![allow(dead_code)]

use std::path::Path;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_tests::ai_client::ai_request;
use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::studio_fixtures::{ScratchProject, TOKEN, blog_with_project, scratch_project, settings};

/// The blog with Studio and the code generator on a fresh `viewset new books` project.
pub struct Codegen {
    pub app: TestApp,
    pub project: ScratchProject,
}

pub const AUTH: [(&str, &str); 4] = [
    ("SERVICE_ENABLE_STUDIO", "true"),
    ("SERVICE_STUDIO_REQUIRE_AUTH", "true"),
    ("SERVICE_STUDIO_AUTH_TOKEN", TOKEN),
    ("SERVICE_STUDIO_ALLOWED_ORIGINS", "http://studio.local"),
];

pub async fn codegen_with(backend: Backend, extra: &[(&str, &str)]) -> Codegen {
    let project = scratch_project();
    let vars: Vec<(&str, &str)> = AUTH.iter().chain(extra).copied().collect();
    let app = blog_with_project(backend, settings(&vars), &project.dir).await;
    Codegen { app, project }
}

pub async fn authed(backend: Backend) -> Codegen {
    codegen_with(backend, &[]).await
}

pub async fn staging(backend: Backend) -> Codegen {
    codegen_with(backend, &[("SERVICE_ENVIRONMENT", "staging")]).await
}

pub async fn post(app: &TestApp, path: &str, body: Value) -> (StatusCode, Value) {
    ai_request(app, Method::POST, path, true, None, Some(&body)).await
}

/// A new table `tags` with every column type the generator writes and a foreign key to `books`.
pub fn new_tags() -> Value {
    json!({
        "op": "new_resource",
        "table": "tags",
        "columns": [
            {"name": "label", "type": "string", "max_length": 80, "unique": true, "doc": "The tag as shown."},
            {"name": "weight", "type": "integer", "default": 0},
            {"name": "views", "type": "big_integer", "default": 0},
            {"name": "score", "type": "float", "nullable": true},
            {"name": "notes", "type": "text", "nullable": true},
            {"name": "pinned", "type": "boolean", "default": false},
            {"name": "seen_at", "type": "date_time", "nullable": true},
            {"name": "due_on", "type": "date", "nullable": true},
            {"name": "extra", "type": "json", "nullable": true},
            {"name": "book_id", "type": "integer", "nullable": true, "references": {"table": "books"}},
            {"name": "token", "type": "uuid", "nullable": true, "unique": true},
            {"name": "price", "type": "decimal"}
        ],
        "viewset": {
            "filterable_fields": ["pinned", "book_id", "token", "price"],
            "search_fields": ["label", "notes"],
            "ordering_fields": ["id", "label", "weight", "price"],
            "ordering": ["-weight", "id"]
        }
    })
}

pub fn edits() -> Value {
    json!([
        {"op": "add_column", "table": "books", "column": {"name": "subtitle", "type": "string", "max_length": 120, "nullable": true}},
        {"op": "add_to_allowlist", "viewset": "BooksViewSet", "allowlist": "search_fields", "field": "subtitle"},
        {"op": "add_to_allowlist", "viewset": "BooksViewSet", "allowlist": "ordering_fields", "field": "archived"},
        {"op": "add_to_allowlist", "viewset": "BooksViewSet", "allowlist": "filterable_fields", "field": "archived"},
    ])
}

pub fn file<'a>(preview: &'a Value, path: &str) -> &'a Value {
    preview["files"].as_array().unwrap().iter().find(|f| f["path"] == path).unwrap_or_else(|| panic!("{path}"))
}

/// The path of the project's `n`th migration written today (`src/migration/m<YYYYMMDD>_<NNNNNN>_<suffix>.rs`).
pub fn migration_file(n: usize, suffix: &str) -> String {
    let date = viewset_studio::codegen::today_utc();
    format!("src/migration/{}.rs", viewset_studio::codegen::migration_name(&date, n, suffix))
}

pub fn read(project: &Path, path: &str) -> String {
    std::fs::read_to_string(project.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}
