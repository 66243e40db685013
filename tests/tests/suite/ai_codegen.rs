//! The code generator over HTTP (`/ai/codegen/preview`, `/ai/patch/preview|apply`, `/ai/plan/preview|apply`), on
//! the blog with Studio and a scratch project written by `viewset new`, on SQLite and PostgreSQL: previews are
//! diffs with ids and write nothing; validation errors carry their `loc`; apply needs `"confirm": true`, the
//! development environment, unchanged files and paths inside the project, and `/ai/patch/apply` only of patch
//! operations; the endpoints are behind Studio's gate, and without a project directory they answer 409
//! `codegen_unavailable` naming the setting. The language-model provider and the acceptance build are in
//! `ai_codegen_provider.rs`.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_studio::{AI_CODEGEN_PATHS, CODEGEN_ENDPOINTS};
use viewset_tests::ai_client::ai_request;
use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{TOKEN, blog_with_authed_studio, blog_with_project, settings};

use crate::support::codegen;
use codegen::*;

on_every_database!(authed =>
    previews_give_diffs_and_ids_and_write_nothing,
    invalid_operations_are_422_with_locs,
    apply_needs_confirmation_and_unchanged_files,
    apply_never_writes_outside_the_project,
    patch_apply_applies_only_patch_operations,
    the_gate_guards_the_generator,
);
on_every_database!(staging => apply_only_in_development);
on_every_database!(blog_with_authed_studio => unavailable_without_a_project_dir);
on_every_database!(blog_sources => another_layout_is_refused);

async fn previews_give_diffs_and_ids_and_write_nothing(c: Codegen) {
    let before = read(&c.project.dir, "src/viewsets.rs");
    let (status, preview) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    let id = preview["preview_id"].as_str().unwrap();
    assert_eq!(id.len(), 64);
    let paths: Vec<&str> = preview["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    let migration = migration_file(2, "create_tags");
    assert_eq!(
        paths,
        [
            "src/entities.rs",
            "src/entities/books.rs",
            "src/entities/tags.rs",
            "src/lib.rs",
            "src/migration.rs",
            migration.as_str(),
            "src/viewsets.rs",
            "tests/tags.rs"
        ]
    );
    let entity = file(&preview, "src/entities/tags.rs");
    assert_eq!((&entity["action"], &entity["sha256_before"]), (&json!("create"), &Value::Null));
    let diff = entity["diff"].as_str().unwrap();
    assert!(diff.starts_with("--- /dev/null\n+++ b/src/entities/tags.rs\n@@"), "{diff}");
    assert!(diff.contains("+    pub label: String,") && diff.contains("+    pub book_id: Option<i32>,"), "{diff}");
    assert!(diff.contains("+    #[sea_orm(unique)]\n+    pub token: Option<Uuid>,"), "{diff}");
    assert!(
        diff.contains("+    #[sea_orm(column_type = \"Decimal(Some((19, 4)))\")]\n+    pub price: Decimal,"),
        "{diff}"
    );
    assert!(
        diff.contains("#[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]")
    );
    let lib = file(&preview, "src/lib.rs")["diff"].as_str().unwrap();
    assert!(
        !lib.contains("+pub mod entities;") && lib.contains("+    api.include::<viewsets::TagsViewSet>()?;"),
        "`viewset new` wrote `pub mod entities;` already: {lib}"
    );
    // The foreign key `book_id` is declared on both sides: the books' entity and ViewSet name their tags.
    let books = file(&preview, "src/entities/books.rs")["diff"].as_str().unwrap();
    assert!(books.contains("+    #[sea_orm(has_many = \"crate::entities::tags::Entity\")]\n+    Tags,"), "{books}");
    let viewsets = file(&preview, "src/viewsets.rs")["diff"].as_str().unwrap();
    assert!(viewsets.contains("+    relations(tags = crate::entities::tags::Entity),"), "{viewsets}");
    assert!(viewsets.contains("+    relations(book = crate::entities::books::Entity),"), "{viewsets}");
    let migrations = file(&preview, "src/migration.rs")["diff"].as_str().unwrap();
    let module = migration.trim_start_matches("src/migration/").trim_end_matches(".rs");
    assert!(migrations.contains(&format!("+mod {module};")), "{migrations}");
    assert!(preview["diff"].as_str().unwrap().contains("+++ b/src/viewsets.rs"));
    assert_eq!(preview["apply"]["body"], json!({"preview_id": id, "confirm": true}));
    assert_eq!(preview["apply"]["path"], "/ai/plan/apply", "a new_resource is not a patch");
    assert_eq!(preview["apply"]["allowed"], true);
    // Deterministic: the same operation on the same files is the same preview.
    let (_, again) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    assert_eq!((&again["preview_id"], &again["diff"]), (&preview["preview_id"], &preview["diff"]));
    assert!(!c.project.dir.join("src/entities/tags.rs").exists(), "a preview writes nothing");
    assert_eq!(read(&c.project.dir, "src/viewsets.rs"), before);

    let (status, patch) = post(&c.app, "/ai/patch/preview", json!({"operations": edits()})).await;
    assert_eq!(status, StatusCode::OK, "{patch}");
    let viewsets = file(&patch, "src/viewsets.rs")["diff"].as_str().unwrap();
    assert!(viewsets.contains(r#"+    search_fields = ["name", "description", "subtitle"],"#), "{viewsets}");
    assert!(viewsets.contains(r#"+    ordering_fields = ["id", "name", "archived"],"#), "{viewsets}");
    assert!(!viewsets.contains("-    filterable_fields"), "`archived` was filterable already: {viewsets}");
    assert_eq!(
        patch["steps"][3]["notes"][0],
        "BooksViewSet: `archived` is already in filterable_fields; nothing to change"
    );
    let entity = file(&patch, "src/entities/books.rs")["diff"].as_str().unwrap();
    assert!(entity.contains("+    pub subtitle: Option<String>,"), "{entity}");
    let migration = file(&patch, &migration_file(2, "add_books_subtitle"))["diff"].as_str().unwrap();
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
            tags(&|op| op["columns"][10]["max_length"] = json!(36)),
            json!(["body", "operation", "columns", 10, "max_length"]),
            "not_applicable",
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
            json!({"operations": [edits()[0].clone(), {"op": "add_to_allowlist", "viewset": "BooksViewSet", "allowlist": "search_fields", "field": "archived"}]}),
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
    assert!(!c.project.dir.join("src/entities/tags.rs").exists());
}

async fn apply_needs_confirmation_and_unchanged_files(c: Codegen) {
    let (_, preview) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    let id = preview["preview_id"].as_str().unwrap().to_string();
    for body in [json!({"preview_id": id}), json!({"preview_id": id, "confirm": false})] {
        let (status, answer) = post(&c.app, "/ai/plan/apply", body).await;
        assert_eq!((status, &answer["code"]), (StatusCode::BAD_REQUEST, &json!("confirmation_required")), "{answer}");
        assert!(answer["detail"].as_str().unwrap().contains("\"confirm\": true"));
    }
    let (status, answer) = post(&c.app, "/ai/plan/apply", json!({"preview_id": "0".repeat(64), "confirm": true})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::NOT_FOUND, &json!("unknown_preview")));

    // A file the preview read changed since: 409, nothing written.
    let viewsets = c.project.dir.join("src/viewsets.rs");
    let original = std::fs::read_to_string(&viewsets).unwrap();
    std::fs::write(&viewsets, format!("{original}\n// edited by hand\n")).unwrap();
    let (status, answer) = post(&c.app, "/ai/plan/apply", json!({"preview_id": id, "confirm": true})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::CONFLICT, &json!("changed_since_preview")), "{answer}");
    assert_eq!(answer["files"], json!(["src/viewsets.rs"]));
    let (status, _) =
        post(&c.app, "/ai/plan/apply", json!({"preview_id": id, "operations": [new_tags()], "confirm": true})).await;
    assert_eq!(status, StatusCode::CONFLICT, "the operations' id is recomputed on the files now");
    assert!(!c.project.dir.join("src/entities/tags.rs").exists());
    std::fs::write(&viewsets, &original).unwrap();

    // Unchanged again: apply writes exactly the previewed files.
    let (status, applied) = post(&c.app, "/ai/plan/apply", json!({"preview_id": id, "confirm": true})).await;
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
    let (status, _) = post(&c.app, "/ai/plan/apply", json!({"preview_id": id, "confirm": true})).await;
    assert_eq!(status, StatusCode::CONFLICT);
    // Operations without a preview: previewed and written in one step.
    let (status, applied) = post(&c.app, "/ai/patch/apply", json!({"operations": edits(), "confirm": true})).await;
    assert_eq!(status, StatusCode::OK, "{applied}");
    assert!(read(&c.project.dir, "src/entities/books.rs").contains("pub subtitle: Option<String>,"));
    assert!(c.project.dir.join(migration_file(3, "add_books_subtitle")).exists());
}

async fn apply_never_writes_outside_the_project(c: Codegen) {
    let (_, preview) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    let id = preview["preview_id"].as_str().unwrap();
    let outside = c.project.dir.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    // `src/entities/` (where `viewset new` wrote the books' entity) replaced by a link out of the project.
    let entities = c.project.dir.join("src/entities");
    std::fs::rename(&entities, c.project.dir.join("src/entities.kept")).unwrap();
    std::os::unix::fs::symlink(&outside, &entities).unwrap();
    let (status, answer) = post(&c.app, "/ai/plan/apply", json!({"preview_id": id, "confirm": true})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::FORBIDDEN, &json!("outside_project")), "{answer}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "nothing written outside");
    assert!(!read(&c.project.dir, "src/lib.rs").contains("TagsViewSet"), "nor inside");
    let (status, answer) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::FORBIDDEN, &json!("outside_project")), "{answer}");
    // A file that is a symlink out of the project is neither read nor written.
    std::fs::remove_file(&entities).unwrap();
    std::fs::rename(c.project.dir.join("src/entities.kept"), &entities).unwrap();
    let secret = outside.join("viewsets.rs");
    std::fs::write(&secret, "pub struct Secret;\n").unwrap();
    std::fs::remove_file(c.project.dir.join("src/viewsets.rs")).unwrap();
    std::os::unix::fs::symlink(&secret, c.project.dir.join("src/viewsets.rs")).unwrap();
    let (status, answer) = post(&c.app, "/ai/patch/preview", json!({"operations": edits()})).await;
    assert_eq!((status, &answer["code"]), (StatusCode::FORBIDDEN, &json!("outside_project")), "{answer}");
    assert!(!answer.to_string().contains("Secret"));
}

async fn patch_apply_applies_only_patch_operations(c: Codegen) {
    let (_, preview) = post(&c.app, "/ai/codegen/preview", json!({"operation": new_tags()})).await;
    let id = preview["preview_id"].as_str().unwrap();
    for (body, loc) in [
        (json!({"preview_id": id, "confirm": true}), json!(["body", "preview_id"])),
        (
            json!({"operations": [edits()[0].clone(), new_tags()], "confirm": true}),
            json!(["body", "operations", 1, "op"]),
        ),
    ] {
        let (status, answer) = post(&c.app, "/ai/patch/apply", body).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
        let detail = &answer["detail"][0];
        assert_eq!((&detail["loc"], &detail["type"]), (&loc, &json!("wrong_endpoint")), "{answer}");
        assert!(detail["msg"].as_str().unwrap().contains("/ai/plan/apply"), "{answer}");
    }
    assert!(!c.project.dir.join("src/entities/tags.rs").exists(), "nothing written");
    assert!(!read(&c.project.dir, "src/entities/books.rs").contains("subtitle"), "not even the patch before it");
    let (status, applied) = post(&c.app, "/ai/plan/apply", json!({"preview_id": id, "confirm": true})).await;
    assert_eq!(status, StatusCode::OK, "{applied}");
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
    assert!(!read(&c.project.dir, "src/entities/books.rs").contains("subtitle"));
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
    assert!(!read(&c.project.dir, "src/entities/books.rs").contains("subtitle"));
    let (_, handshake) = ai_request(&c.app, Method::GET, "/studio/handshake", true, None, None).await;
    let caps = handshake["capabilities"].as_array().unwrap();
    assert!(caps.contains(&json!("ai_codegen")) && !caps.contains(&json!("ai_patch")), "{caps:?}");
}

async fn unavailable_without_a_project_dir(app: TestApp) {
    for path in AI_CODEGEN_PATHS {
        let (status, body) = ai_request(&app, Method::POST, path, true, None, Some(&json!({}))).await;
        assert_eq!((status, &body["code"]), (StatusCode::CONFLICT, &json!("codegen_unavailable")), "{path}: {body}");
        assert!(body["detail"].as_str().unwrap().contains("Studio::project_dir"), "{path}: {body}");
        let (status, body) = ai_request(&app, Method::POST, path, false, None, Some(&json!({}))).await;
        assert_eq!((status, &body["code"]), (StatusCode::UNAUTHORIZED, &json!("not_authenticated")), "{path}");
        assert_eq!(ai_request(&app, Method::GET, path, true, None, None).await.0, StatusCode::METHOD_NOT_ALLOWED);
    }
    let (_, handshake) = ai_request(&app, Method::GET, "/studio/handshake", true, None, None).await;
    for (key, path) in CODEGEN_ENDPOINTS {
        assert_eq!(handshake["endpoints"][key], path, "announced at all times: {key}");
    }
    let caps = handshake["capabilities"].as_array().unwrap();
    for cap in ["ai_codegen", "ai_patch", "ai_planner"] {
        assert!(!caps.contains(&json!(cap)), "{cap}: the capabilities say what works");
    }
    assert_eq!(handshake["metadata"]["codegen_project_dir"], false);
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
