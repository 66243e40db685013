//! The code generator over HTTP (`/ai/codegen/preview`, `/ai/patch/preview|apply`, `/ai/plan/preview|apply`), on
//! the blog with Studio and a scratch project written by `viewset new`, on SQLite and PostgreSQL: previews are
//! diffs with ids and write nothing; validation errors carry their `loc`; apply needs `"confirm": true`, the
//! development environment, unchanged files and paths inside the project; the endpoints exist only with a project
//! directory and behind Studio's gate; a prompt goes to a language-model provider only when one is configured (a
//! fake one here). The acceptance test applies a new resource and edits to a scratch project and compiles it.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_studio::{AI_CODEGEN_PATHS, CODEGEN_ENDPOINTS};
use viewset_tests::ai_client::ai_request;
use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{
    ScratchProject, TOKEN, blog_with_authed_studio, blog_with_project, scratch_project, settings, starter_target,
};

on_every_database!(authed =>
    previews_give_diffs_and_ids_and_write_nothing,
    invalid_operations_are_422_with_locs,
    apply_needs_confirmation_and_unchanged_files,
    apply_never_writes_outside_the_project,
    the_gate_guards_the_generator,
);
on_every_database!(staging => apply_only_in_development);
on_every_database!(blog_with_authed_studio => absent_without_a_project_dir);
on_every_database!(blog_sources => another_layout_is_refused);
on_every_database!(with_fake_provider => a_prompt_is_planned_by_the_provider);
on_every_database!(without_provider => a_prompt_without_provider_calls_nobody);

/// The blog with Studio and the code generator on a fresh `viewset new books` project.
struct Codegen {
    app: TestApp,
    project: ScratchProject,
}

const AUTH: [(&str, &str); 4] = [
    ("SERVICE_ENABLE_STUDIO", "true"),
    ("SERVICE_STUDIO_REQUIRE_AUTH", "true"),
    ("SERVICE_STUDIO_AUTH_TOKEN", TOKEN),
    ("SERVICE_STUDIO_ALLOWED_ORIGINS", "http://studio.local"),
];

async fn codegen_with(backend: Backend, extra: &[(&str, &str)]) -> Codegen {
    let project = scratch_project();
    let vars: Vec<(&str, &str)> = AUTH.iter().chain(extra).copied().collect();
    let app = blog_with_project(backend, settings(&vars), &project.dir).await;
    Codegen { app, project }
}

async fn authed(backend: Backend) -> Codegen {
    codegen_with(backend, &[]).await
}

async fn staging(backend: Backend) -> Codegen {
    codegen_with(backend, &[("SERVICE_ENVIRONMENT", "staging")]).await
}

async fn post(app: &TestApp, path: &str, body: Value) -> (StatusCode, Value) {
    ai_request(app, Method::POST, path, true, None, Some(&body)).await
}

/// A new table `tags` with every column type the generator writes and a foreign key to `books`.
fn new_tags() -> Value {
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
            {"name": "book_id", "type": "integer", "nullable": true, "references": {"table": "books"}}
        ],
        "viewset": {
            "filterable_fields": ["pinned", "book_id"],
            "search_fields": ["label", "notes"],
            "ordering_fields": ["id", "label", "weight"],
            "ordering": ["-weight", "id"]
        }
    })
}

fn edits() -> Value {
    json!([
        {"op": "add_column", "table": "books", "column": {"name": "subtitle", "type": "string", "max_length": 120, "nullable": true}},
        {"op": "add_to_allowlist", "viewset": "BooksViewSet", "allowlist": "search_fields", "field": "subtitle"},
        {"op": "add_to_allowlist", "viewset": "BooksViewSet", "allowlist": "ordering_fields", "field": "done"},
        {"op": "add_to_allowlist", "viewset": "BooksViewSet", "allowlist": "filterable_fields", "field": "done"},
    ])
}

fn file<'a>(preview: &'a Value, path: &str) -> &'a Value {
    preview["files"].as_array().unwrap().iter().find(|f| f["path"] == path).unwrap_or_else(|| panic!("{path}"))
}

fn read(project: &Path, path: &str) -> String {
    std::fs::read_to_string(project.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

async fn previews_give_diffs_and_ids_and_write_nothing(c: Codegen) {
    let before = read(&c.project.dir, "src/viewsets.rs");
    let (status, preview) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    let id = preview["preview_id"].as_str().unwrap();
    assert_eq!(id.len(), 64);
    let paths: Vec<&str> = preview["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "src/entities.rs",
            "src/entities/tags.rs",
            "src/lib.rs",
            "src/migration.rs",
            "src/migration/m0002_create_tags.rs",
            "src/viewsets.rs"
        ]
    );
    let entity = file(&preview, "src/entities/tags.rs");
    assert_eq!((&entity["action"], &entity["sha256_before"]), (&json!("create"), &Value::Null));
    let diff = entity["diff"].as_str().unwrap();
    assert!(diff.starts_with("--- /dev/null\n+++ b/src/entities/tags.rs\n@@"), "{diff}");
    assert!(diff.contains("+    pub label: String,") && diff.contains("+    pub book_id: Option<i32>,"), "{diff}");
    assert!(
        diff.contains("#[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]")
    );
    let lib = file(&preview, "src/lib.rs")["diff"].as_str().unwrap();
    assert!(
        lib.contains("+pub mod entities;") && lib.contains("+    api.include::<viewsets::TagsViewSet>()?;"),
        "{lib}"
    );
    let migrations = file(&preview, "src/migration.rs")["diff"].as_str().unwrap();
    assert!(migrations.contains("+mod m0002_create_tags;"), "{migrations}");
    assert!(preview["diff"].as_str().unwrap().contains("+++ b/src/viewsets.rs"));
    assert_eq!(preview["apply"]["body"], json!({"preview_id": id, "confirm": true}));
    assert_eq!(preview["apply"]["allowed"], true);
    // Deterministic: the same operation on the same files is the same preview.
    let (_, again) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    assert_eq!((&again["preview_id"], &again["diff"]), (&preview["preview_id"], &preview["diff"]));
    assert!(!c.project.dir.join("src/entities").exists(), "a preview writes nothing");
    assert_eq!(read(&c.project.dir, "src/viewsets.rs"), before);

    let (status, patch) = post(&c.app, "/ai/patch/preview", json!({"operations": edits()})).await;
    assert_eq!(status, StatusCode::OK, "{patch}");
    let viewsets = file(&patch, "src/viewsets.rs")["diff"].as_str().unwrap();
    assert!(viewsets.contains(r#"+    search_fields = ["name", "description", "subtitle"],"#), "{viewsets}");
    assert!(viewsets.contains(r#"+    ordering_fields = ["id", "name", "done"],"#), "{viewsets}");
    assert!(!viewsets.contains("-    filterable_fields"), "`done` was filterable already: {viewsets}");
    assert_eq!(
        patch["steps"][3]["notes"][0],
        "BooksViewSet: `done` is already in filterable_fields; nothing to change"
    );
    let entity = file(&patch, "src/entity.rs")["diff"].as_str().unwrap();
    assert!(entity.contains("+    pub subtitle: Option<String>,"), "{entity}");
    let migration = file(&patch, "src/migration/m0002_add_books_subtitle.rs")["diff"].as_str().unwrap();
    assert!(migration.contains("Table::alter()") && migration.contains(".add_column("), "{migration}");
    assert_ne!(patch["preview_id"], preview["preview_id"]);

    let (_, handshake) = ai_request(&c.app, Method::GET, "/studio/handshake", true, None, None).await;
    let caps: Vec<&str> = handshake["capabilities"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    for cap in ["ai_codegen", "ai_patch", "ai_planner"] {
        assert!(caps.contains(&cap), "{cap} in {caps:?}");
    }
    for (key, path) in CODEGEN_ENDPOINTS {
        assert_eq!(handshake["endpoints"][key], path);
    }
    assert_eq!(handshake["metadata"]["ai_planner_provider"], false);
}

async fn invalid_operations_are_422_with_locs(c: Codegen) {
    let tags = |f: &dyn Fn(&mut Value)| {
        let mut op = new_tags();
        f(&mut op);
        json!({"operation": op})
    };
    let cases: Vec<(&str, Value, Value, &str)> = vec![
        (
            "/ai/codegen/preview",
            tags(&|op| op["table"] = json!("Tags")),
            json!(["body", "operation", "table"]),
            "invalid_identifier",
        ),
        (
            "/ai/codegen/preview",
            tags(&|op| op["table"] = json!("../evil")),
            json!(["body", "operation", "table"]),
            "invalid_identifier",
        ),
        (
            "/ai/codegen/preview",
            tags(&|op| op["table"] = json!("books")),
            json!(["body", "operation", "table"]),
            "already_exists",
        ),
        (
            "/ai/codegen/preview",
            tags(&|op| op["columns"][0]["name"] = json!("type")),
            json!(["body", "operation", "columns", 0, "name"]),
            "invalid_identifier",
        ),
        (
            "/ai/codegen/preview",
            tags(&|op| op["columns"][1]["name"] = json!("ordering")),
            json!(["body", "operation", "columns", 1, "name"]),
            "invalid_identifier",
        ),
        (
            "/ai/codegen/preview",
            tags(&|op| op["columns"][1]["type"] = json!("uuid")),
            json!(["body", "operation", "columns", 1, "type"]),
            "unsupported_type",
        ),
        (
            "/ai/codegen/preview",
            tags(&|op| op["columns"][9]["references"]["table"] = json!("nope")),
            json!(["body", "operation", "columns", 9, "references"]),
            "unknown_table",
        ),
        (
            "/ai/codegen/preview",
            tags(&|op| op["viewset"]["search_fields"][0] = json!("weight")),
            json!(["body", "operation", "viewset", "search_fields", 0]),
            "not_text",
        ),
        (
            "/ai/codegen/preview",
            tags(&|op| op["viewset"]["name"] = json!("BooksViewSet")),
            json!(["body", "operation", "viewset", "name"]),
            "already_exists",
        ),
        (
            "/ai/codegen/preview",
            tags(&|op| op["columns"][0]["colour"] = json!(1)),
            json!(["body", "operation"]),
            "invalid_body",
        ),
        (
            "/ai/patch/preview",
            json!({"operations": [{"op": "add_to_allowlist", "viewset": "Nope", "allowlist": "search_fields", "field": "name"}]}),
            json!(["body", "operations", 0, "viewset"]),
            "unknown_viewset",
        ),
        (
            "/ai/patch/preview",
            json!({"operations": [edits()[0].clone(), {"op": "add_to_allowlist", "viewset": "BooksViewSet", "allowlist": "search_fields", "field": "done"}]}),
            json!(["body", "operations", 1, "field"]),
            "not_text",
        ),
        (
            "/ai/patch/preview",
            json!({"operations": [{"op": "add_column", "table": "books", "column": {"name": "pages", "type": "integer"}}]}),
            json!(["body", "operations", 0, "column", "default"]),
            "default_required",
        ),
        (
            "/ai/patch/preview",
            json!({"operations": [new_tags()]}),
            json!(["body", "operations", 0, "op"]),
            "wrong_endpoint",
        ),
        ("/ai/plan/preview", json!({"operations": []}), json!(["body", "operations"]), "operation_count"),
    ];
    for (path, body, loc, kind) in cases {
        let (status, answer) = post(&c.app, path, body.clone()).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}: {answer}");
        let detail = answer["detail"].as_array().unwrap_or_else(|| panic!("{answer}"));
        let found = detail.iter().find(|d| d["type"] == kind).unwrap_or_else(|| panic!("{kind} in {answer}"));
        let got = found["loc"].as_array().unwrap();
        assert_eq!(&got[..loc.as_array().unwrap().len()], loc.as_array().unwrap().as_slice(), "{answer}");
    }
    assert!(!c.project.dir.join("src/entities").exists());
}

async fn apply_needs_confirmation_and_unchanged_files(c: Codegen) {
    let (_, preview) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    let id = preview["preview_id"].as_str().unwrap().to_string();
    for body in [json!({"preview_id": id}), json!({"preview_id": id, "confirm": false})] {
        let (status, answer) = post(&c.app, "/ai/patch/apply", body).await;
        assert_eq!((status, &answer["code"]), (StatusCode::BAD_REQUEST, &json!("confirmation_required")), "{answer}");
        assert!(answer["detail"].as_str().unwrap().contains("\"confirm\": true"));
    }
    let (status, answer) =
        post(&c.app, "/ai/patch/apply", json!({"preview_id": "0".repeat(64), "confirm": true})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::NOT_FOUND, &json!("unknown_preview")));

    // A file the preview read changed since: 409, nothing written.
    let viewsets = c.project.dir.join("src/viewsets.rs");
    let original = std::fs::read_to_string(&viewsets).unwrap();
    std::fs::write(&viewsets, format!("{original}\n// edited by hand\n")).unwrap();
    let (status, answer) = post(&c.app, "/ai/patch/apply", json!({"preview_id": id, "confirm": true})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::CONFLICT, &json!("changed_since_preview")), "{answer}");
    assert_eq!(answer["files"], json!(["src/viewsets.rs"]));
    let (status, _) =
        post(&c.app, "/ai/plan/apply", json!({"preview_id": id, "operations": [new_tags()], "confirm": true})).await;
    assert_eq!(status, StatusCode::CONFLICT, "the operations' id is recomputed on the files now");
    assert!(!c.project.dir.join("src/entities").exists());
    std::fs::write(&viewsets, &original).unwrap();

    // Unchanged again: apply writes exactly the previewed files.
    let (status, applied) = post(&c.app, "/ai/patch/apply", json!({"preview_id": id, "confirm": true})).await;
    assert_eq!(status, StatusCode::OK, "{applied}");
    assert_eq!(applied["applied"], true);
    for f in applied["files"].as_array().unwrap() {
        let path = f["path"].as_str().unwrap();
        assert_eq!(f["sha256"], file(&preview, path)["sha256_after"], "{path}");
        assert!(c.project.dir.join(path).is_file(), "{path}");
    }
    assert!(read(&c.project.dir, "src/entities/tags.rs").contains("#[sea_orm(table_name = \"tags\")]"));
    let leftovers: Vec<_> = std::fs::read_dir(c.project.dir.join("src"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file is left: {leftovers:?}");
    // Applied once: the same preview is now out of date.
    let (status, _) = post(&c.app, "/ai/patch/apply", json!({"preview_id": id, "confirm": true})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    // Operations without a preview: previewed and written in one step.
    let (status, applied) = post(&c.app, "/ai/patch/apply", json!({"operations": edits(), "confirm": true})).await;
    assert_eq!(status, StatusCode::OK, "{applied}");
    assert!(read(&c.project.dir, "src/entity.rs").contains("pub subtitle: Option<String>,"));
    assert!(c.project.dir.join("src/migration/m0003_add_books_subtitle.rs").exists());
}

async fn apply_never_writes_outside_the_project(c: Codegen) {
    let (_, preview) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    let id = preview["preview_id"].as_str().unwrap();
    let outside = c.project.dir.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, c.project.dir.join("src/entities")).unwrap();
    let (status, answer) = post(&c.app, "/ai/patch/apply", json!({"preview_id": id, "confirm": true})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::FORBIDDEN, &json!("outside_project")), "{answer}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "nothing written outside");
    assert!(!read(&c.project.dir, "src/lib.rs").contains("entities"), "nor inside");
    let (status, answer) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::FORBIDDEN, &json!("outside_project")), "{answer}");
    // A file that is a symlink out of the project is neither read nor written.
    std::fs::remove_file(c.project.dir.join("src/entities")).unwrap();
    let secret = outside.join("viewsets.rs");
    std::fs::write(&secret, "pub struct Secret;\n").unwrap();
    std::fs::remove_file(c.project.dir.join("src/viewsets.rs")).unwrap();
    std::os::unix::fs::symlink(&secret, c.project.dir.join("src/viewsets.rs")).unwrap();
    let (status, answer) = post(&c.app, "/ai/patch/preview", json!({"operations": edits()})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::FORBIDDEN, &json!("outside_project")), "{answer}");
    assert!(!answer.to_string().contains("Secret"));
}

async fn the_gate_guards_the_generator(c: Codegen) {
    for path in AI_CODEGEN_PATHS {
        let (status, body) = ai_request(&c.app, Method::POST, path, false, None, Some(&json!({}))).await;
        assert_eq!((status, &body["code"]), (StatusCode::UNAUTHORIZED, &json!("not_authenticated")), "{path}");
        let response = c
            .app
            .client()
            .post(format!("{}{path}", c.app.base))
            .header("x-studio-token", TOKEN)
            .header("origin", "http://evil.example")
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path}");
        let (status, _) = ai_request(&c.app, Method::GET, path, true, None, None).await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{path}");
    }
    let (status, _) = ai_request(
        &c.app,
        Method::POST,
        "/ai/patch/apply",
        false,
        None,
        Some(&json!({"operations": edits(), "confirm": true})),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(!read(&c.project.dir, "src/entity.rs").contains("subtitle"));
}

async fn apply_only_in_development(c: Codegen) {
    let (status, preview) = post(&c.app, "/ai/patch/preview", json!({"operations": edits()})).await;
    assert_eq!(status, StatusCode::OK, "previews work in every environment: {preview}");
    assert_eq!(preview["apply"]["allowed"], false);
    let id = preview["preview_id"].as_str().unwrap();
    for path in ["/ai/patch/apply", "/ai/plan/apply"] {
        let (status, answer) = post(&c.app, path, json!({"preview_id": id, "confirm": true})).await;
        assert_eq!((status, &answer["code"]), (StatusCode::FORBIDDEN, &json!("not_development")), "{answer}");
    }
    assert!(!read(&c.project.dir, "src/entity.rs").contains("subtitle"));
    let (_, handshake) = ai_request(&c.app, Method::GET, "/studio/handshake", true, None, None).await;
    let caps = handshake["capabilities"].as_array().unwrap();
    assert!(caps.contains(&json!("ai_codegen")) && !caps.contains(&json!("ai_patch")), "{caps:?}");
}

async fn absent_without_a_project_dir(app: TestApp) {
    for path in AI_CODEGEN_PATHS {
        let (status, _) = ai_request(&app, Method::POST, path, true, None, Some(&json!({}))).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
    let (_, handshake) = ai_request(&app, Method::GET, "/studio/handshake", true, None, None).await;
    for (key, _) in CODEGEN_ENDPOINTS {
        assert!(handshake["endpoints"].get(key).is_none(), "{key}");
    }
    let caps = handshake["capabilities"].as_array().unwrap();
    for cap in ["ai_codegen", "ai_patch", "ai_planner"] {
        assert!(!caps.contains(&json!(cap)), "{cap}");
    }
}

/// The blog's own sources as the project directory: not the layout `viewset new` writes.
async fn blog_sources(backend: Backend) -> TestApp {
    let blog = viewset_tests::studio_fixtures::repository().join("examples/blog");
    blog_with_project(backend, settings(&AUTH), &blog).await
}

async fn another_layout_is_refused(app: TestApp) {
    let (status, answer) = post(&app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::CONFLICT, &json!("unsupported_layout")), "{answer}");
    assert!(answer["detail"].as_str().unwrap().contains("viewset new"), "{answer}");
    let missing =
        blog::studio(settings(&AUTH)).project_dir("/nonexistent/project").mount(axum::Router::new(), app.db.clone());
    assert!(missing.unwrap_err().to_string().contains("/nonexistent/project"));
}

/// A request the fake provider received: its `Authorization` header and JSON body.
type Seen = (Option<String>, Value);

/// A fake OpenAI-compatible provider on a loopback port: counts requests, keeps them, answers `content`.
#[derive(Clone)]
struct FakeProvider {
    url: String,
    requests: Arc<AtomicUsize>,
    seen: Arc<Mutex<Vec<Seen>>>,
    content: Arc<Mutex<String>>,
}

impl FakeProvider {
    async fn start() -> FakeProvider {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let fake = FakeProvider {
            url,
            requests: Arc::default(),
            seen: Arc::default(),
            content: Arc::new(Mutex::new(String::new())),
        };
        let state = fake.clone();
        let app = axum::Router::new().route(
            "/v1/chat/completions",
            axum::routing::post(move |headers: axum::http::HeaderMap, body: axum::Json<Value>| {
                let state = state.clone();
                async move {
                    state.requests.fetch_add(1, Ordering::SeqCst);
                    let auth = headers.get("authorization").map(|v| v.to_str().unwrap().to_string());
                    state.seen.lock().unwrap().push((auth, body.0));
                    let content = state.content.lock().unwrap().clone();
                    axum::Json(json!({"id": "x", "object": "chat.completion", "choices": [
                        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
                    ]}))
                }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        fake
    }
}

async fn with_fake_provider(backend: Backend) -> (Codegen, FakeProvider) {
    let fake = FakeProvider::start().await;
    let vars = [
        ("SERVICE_AI_PROVIDER_URL", fake.url.as_str()),
        ("SERVICE_AI_MODEL", "fake-model"),
        ("SERVICE_AI_API_KEY", "sk-fake-secret"),
    ];
    (codegen_with(backend, &vars).await, fake)
}

async fn without_provider(backend: Backend) -> (Codegen, FakeProvider) {
    (authed(backend).await, FakeProvider::start().await)
}

async fn a_prompt_is_planned_by_the_provider((c, fake): (Codegen, FakeProvider)) {
    let planned = json!({"operations": [
        {"op": "new_resource", "table": "labels", "columns": [{"name": "text", "type": "text"}]},
        {"op": "add_to_allowlist", "viewset": "LabelsViewSet", "allowlist": "search_fields", "field": "text"}
    ]});
    *fake.content.lock().unwrap() = format!("```json\n{planned}\n```");
    let (status, plan) = post(&c.app, "/ai/plan/preview", json!({"prompt": "Add searchable labels"})).await;
    assert_eq!(status, StatusCode::OK, "{plan}");
    assert_eq!((&plan["source"], &plan["model"]), (&json!("provider"), &json!("fake-model")));
    assert_eq!(plan["provider_operations"], planned["operations"], "the model's proposal, as it answered");
    assert_eq!(plan["operations"][1], planned["operations"][1], "then validated like any operations");
    assert_eq!(plan["operations"][0]["columns"][0]["nullable"], false, "with the defaults applied");
    assert_eq!(plan["steps"].as_array().unwrap().len(), 2);
    assert!(plan["diff"].as_str().unwrap().contains("+    search_fields = [\"text\"],"), "{}", plan["diff"]);
    assert_eq!(fake.requests.load(Ordering::SeqCst), 1);
    let (auth, request) = fake.seen.lock().unwrap()[0].clone();
    assert_eq!(auth.as_deref(), Some("Bearer sk-fake-secret"));
    assert_eq!(request["model"], "fake-model");
    let system = request["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("\"new_resource\"") && system.contains("\"add_column\""), "the schema: {system}");
    assert!(system.contains("BooksViewSet") && system.contains("books"), "the project: {system}");
    assert_eq!(request["messages"][1]["content"], "Add searchable labels");

    let (status, applied) =
        post(&c.app, "/ai/plan/apply", json!({"preview_id": plan["preview_id"], "confirm": true})).await;
    assert_eq!(status, StatusCode::OK, "{applied}");
    assert!(read(&c.project.dir, "src/viewsets.rs").contains("pub struct LabelsViewSet;"));

    // The key is never shown: not in the handshake, the context, or the settings.
    for path in ["/studio/handshake", "/ai/context/full", "/studio/context/summary"] {
        let (_, body) = ai_request(&c.app, Method::GET, path, true, None, None).await;
        assert!(!body.to_string().contains("sk-fake-secret"), "{path}");
    }
    let (_, handshake) = ai_request(&c.app, Method::GET, "/studio/handshake", true, None, None).await;
    assert_eq!(handshake["metadata"]["ai_planner_provider"], true);

    // A proposal that does not validate is a 422 located in the provider's answer.
    *fake.content.lock().unwrap() =
        json!({"operations": [{"op": "add_column", "table": "nope", "column": {"name": "x", "type": "integer", "nullable": true}}]}).to_string();
    let (status, answer) = post(&c.app, "/ai/plan/preview", json!({"prompt": "something"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(answer["detail"][0]["loc"], json!(["provider", "operations", 0, "table"]));
    assert!(answer["provider_operations"].is_array());
    *fake.content.lock().unwrap() = "I cannot do that.".into();
    let (status, answer) = post(&c.app, "/ai/plan/preview", json!({"prompt": "something"})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::BAD_GATEWAY, &json!("provider_error")), "{answer}");
}

async fn a_prompt_without_provider_calls_nobody((c, fake): (Codegen, FakeProvider)) {
    let (status, answer) = post(&c.app, "/ai/plan/preview", json!({"prompt": "Add tags to books"})).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(answer["detail"][0]["type"], "no_provider");
    assert_eq!(answer["detail"][0]["loc"], json!(["body", "prompt"]));
    assert!(answer["detail"][0]["msg"].as_str().unwrap().contains("SERVICE_AI_PROVIDER_URL"));
    assert_eq!(fake.requests.load(Ordering::SeqCst), 0, "nothing called out");
    let (status, plan) = post(&c.app, "/ai/plan/preview", json!({"operations": edits()})).await;
    assert_eq!(
        (status, &plan["source"]),
        (StatusCode::OK, &json!("operations")),
        "a plan of operations needs no provider"
    );
}

fn run(project: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO"))
        .args(args)
        .current_dir(project)
        .env("CARGO_TARGET_DIR", starter_target())
        .env_remove("DATABASE_URL")
        .output()
        .expect("run cargo")
}

/// Acceptance: a new entity + ViewSet + migration and edits (a column on the new and on the existing entity, an
/// allowlist), previewed and applied over HTTP into a scratch `viewset new` project, which then compiles (all
/// targets, with the project's own test) and is formatted as rustfmt formats the templates.
#[tokio::test]
async fn generated_code_compiles() {
    let c = authed(Backend::Sqlite).await;
    let (status, preview) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    let (status, applied) =
        post(&c.app, "/ai/patch/apply", json!({"preview_id": preview["preview_id"], "confirm": true})).await;
    assert_eq!(status, StatusCode::OK, "{applied}");
    let mut operations = edits().as_array().unwrap().clone();
    operations.push(
        json!({"op": "add_column", "table": "tags", "column": {"name": "colour", "type": "string", "default": "blue"}}),
    );
    operations.push(json!({"op": "add_to_allowlist", "viewset": "TagsViewSet", "allowlist": "filterable_fields", "field": "colour"}));
    let (status, plan) = post(&c.app, "/ai/plan/preview", json!({"operations": operations})).await;
    assert_eq!(status, StatusCode::OK, "{plan}");
    let (status, applied) =
        post(&c.app, "/ai/plan/apply", json!({"preview_id": plan["preview_id"], "confirm": true})).await;
    assert_eq!(status, StatusCode::OK, "{applied}");
    let migrations = read(&c.project.dir, "src/migration.rs");
    assert!(migrations.contains("Box::new(m0004_add_tags_colour::Migration)"), "{migrations}");

    let project = c.project.dir.clone();
    let check =
        tokio::task::spawn_blocking(move || run(&project, &["check", "--quiet", "--all-targets"])).await.unwrap();
    assert!(check.status.success(), "the generated project compiles:\n{}", String::from_utf8_lossy(&check.stderr));
    // Formatted as rustfmt formats the templates (the repository's rustfmt.toml); `src/lib.rs` brings every module.
    let fmt = std::process::Command::new("rustfmt")
        .args(["--edition", "2024", "--check", "--config", "max_width=120,use_small_heuristics=Max", "src/lib.rs"])
        .current_dir(&c.project.dir)
        .output()
        .expect("rustfmt is installed");
    assert!(fmt.status.success(), "rustfmt leaves it as written:\n{}", String::from_utf8_lossy(&fmt.stdout));
}
