//! The code generator's language-model provider and its acceptance build, on SQLite and PostgreSQL: a prompt goes to
//! an OpenAI-compatible provider only when one is configured (a fake one on a loopback port here), its operations
//! are validated like a client's; without a provider nothing is called. The acceptance test applies a new resource
//! and edits to a scratch `viewset new` project over HTTP and compiles it.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_tests::ai_client::ai_request;
use viewset_tests::harness::Backend;
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::starter_target;

use crate::support::codegen;
use codegen::*;

on_every_database!(with_fake_provider => a_prompt_is_planned_by_the_provider);
on_every_database!(without_provider => a_prompt_without_provider_calls_nobody);

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
        post(&c.app, "/ai/plan/apply", json!({"preview_id": preview["preview_id"], "confirm": true})).await;
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
    let module = migration_file(4, "add_tags_colour");
    let module = module.trim_start_matches("src/migration/").trim_end_matches(".rs");
    assert!(migrations.contains(&format!("Box::new({module}::Migration)")), "{migrations}");

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
