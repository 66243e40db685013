//! Studio over real HTTP against the blog example: each endpoint's fields and types, health through a database
//! outage, the migration graph of two more apps (one branched), and checksums across instances and processes.
//! The gating checks are in `studio_gating.rs`.

use reqwest::StatusCode;
use sea_orm::DbBackend;
use serde_json::Value;
use viewset_studio::Studio;
use viewset_tests::every_database::require_postgres;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::{
    AppliedPart, CuttableProxy, TOKEN, blog_with_authed_studio, code, connect_quickly, json, request, sqlite_app,
    two_app_graph, with_auth,
};

/// The blog's migrations (its own and the framework's tables), and the last of them.
const BLOG_MIGRATIONS: usize = blog::migrations::SOURCES.len();
const N64: u64 = BLOG_MIGRATIONS as u64;
const LAST_BLOG_MIGRATION: &str = blog::migrations::SOURCES[BLOG_MIGRATIONS - 1].0;

on_every_database!(blog_with_authed_studio => endpoint_shapes);
on_every_database!(blog_with_two_more_apps => two_apps);

fn is_iso_utc(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.ends_with('Z') && chrono::DateTime::parse_from_rfc3339(s).is_ok())
}

fn is_sha256(v: &Value) -> bool {
    v.as_str().is_some_and(|s| s.len() == 64 && s.chars().all(|c| c.is_ascii_hexdigit() && !c.is_uppercase()))
}

fn assert_database_status(db: &Value, dialect: &str) {
    assert_eq!(db["connected"], true, "{db}");
    assert_eq!(db["dialect"], dialect);
    assert!(db["pool_size"].as_u64().is_some_and(|n| n >= 1), "{db}");
    assert!(db["pool_available"].is_u64(), "{db}");
    assert!(db["latency_ms"].as_f64().is_some_and(|l| l >= 0.0), "{db}");
    assert!(db["last_error"].is_null());
    assert_eq!(db.as_object().unwrap().len(), 6, "{db}");
}

fn assert_checksums(c: &Value) {
    for key in ["schema_checksum", "migrations_checksum", "settings_checksum", "routes_checksum"] {
        assert!(is_sha256(&c[key]), "{key}: {c}");
    }
}

async fn endpoint_shapes(app: TestApp) {
    let dialect = match app.db.get_database_backend() {
        DbBackend::Sqlite => "sqlite",
        DbBackend::Postgres => "postgresql",
        _ => "mysql",
    };

    let h = json(&app, "/studio/handshake").await;
    assert_eq!(h["protocol_version"], "1.0");
    assert!(is_iso_utc(&h["timestamp"]), "{}", h["timestamp"]);
    let p = &h["project"];
    assert_eq!(p["name"], "blog");
    assert_eq!(p["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(p["service_version"], viewset_studio::SERVICE_VERSION);
    assert!(p["python_version"].as_str().is_some_and(|v| v.starts_with("1.")), "{p}");
    assert_eq!(p["python_version"], p["rust_version"]);
    assert_eq!(p["debug_mode"], false);
    assert_eq!(p["environment"], "development");
    assert_database_status(&h["database"], dialect);
    let caps: Vec<&str> = h["capabilities"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(
        caps,
        ["read_schema", "read_data", "write_data", "read_migrations", "ai_tools", "ai_query", "admin_access"]
    );
    assert_checksums(&h["checksums"]);
    let endpoints = h["endpoints"].as_object().unwrap();
    assert_eq!(endpoints.len(), 12, "the spec's twelve keys, whatever this process serves");
    for (key, path) in viewset_studio::ENDPOINTS {
        assert_eq!(endpoints[key], path, "{key}");
    }
    assert!(h["metadata"].is_object());

    let s = json(&app, "/studio/context/summary").await;
    for (key, expected) in [
        ("app_count", 1),
        ("model_count", 3),
        ("viewset_count", 3),
        ("ai_tool_count", blog::api().tools().len()),
        ("migration_count", BLOG_MIGRATIONS),
        ("pending_migrations", 0),
    ] {
        assert_eq!(s[key], expected, "{key}: {s}");
    }
    assert_eq!(s["route_count"], blog::api().routes().len());
    assert_database_status(&s["database_status"], dialect);
    let m = &s["migration_status"];
    assert_eq!((m["total"].as_u64(), m["applied"].as_u64(), m["pending"].as_u64()), (Some(N64), Some(N64), Some(0)));
    assert_eq!(m["has_conflicts"], false);
    assert_eq!(m["last_applied"], LAST_BLOG_MIGRATION);
    let models = s["models"].as_array().unwrap();
    let post = models.iter().find(|m| m["table_name"] == "posts").expect("posts model");
    assert_eq!(post["name"], "Post");
    assert_eq!(post["field_count"], 9);
    assert_eq!(post["has_relations"], true);
    assert!(models.iter().any(|m| m["table_name"] == "authors" && m["field_count"] == 3));
    assert_eq!(s["checksums"], h["checksums"]);

    let health = json(&app, "/studio/health").await;
    assert_eq!(health["status"], "healthy");
    assert_eq!(health["service_version"], viewset_studio::SERVICE_VERSION);
    assert_database_status(&health["database"], dialect);
    assert!(is_iso_utc(&health["timestamp"]));

    let ms = json(&app, "/studio/migrations/summary").await;
    assert_eq!((ms["total_migrations"].as_u64(), ms["applied_migrations"].as_u64()), (Some(N64), Some(N64)));
    assert_eq!(ms["pending_migrations"], 0);
    assert_eq!(ms["apps"][0]["app_label"], "blog");
    assert_eq!(ms["apps"][0]["head_migrations"], serde_json::json!([LAST_BLOG_MIGRATION]));
    assert_eq!(ms["conflicts"], serde_json::json!([]));
    assert_eq!(ms["migrations_checksum"], h["checksums"]["migrations_checksum"]);
    assert_eq!(ms["last_applied"], LAST_BLOG_MIGRATION);

    let schema = json(&app, "/studio/schema/handshake").await;
    assert_eq!(schema["title"], "StudioHandshake");
    assert_eq!(schema["type"], "object");
    let mut required: Vec<&str> = schema["required"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    required.sort_unstable();
    assert_eq!(required, ["capabilities", "checksums", "database", "project"]);
    // Every field the handshake carries is described by the schema.
    for key in h.as_object().unwrap().keys() {
        assert!(schema["properties"].get(key).is_some(), "{key} missing from the schema");
    }

    let (status, page) = request(&app, "/studio/ui", Some(TOKEN), None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("<script type=\"module\" src=\"/studio/ui/assets/app.js\">"), "{page}");
}

// ---------------------------------------------------------------------------------------------------------------
// Health through an outage (PostgreSQL behind a proxy we cut; the shared server keeps running)

#[tokio::test]
async fn health_degrades_when_the_database_goes_away_and_recovers() {
    let Some(server) = require_postgres() else { return };
    let (database, migrated) = TestDb::migrated_blog(Backend::Postgres).await;
    migrated.close().await.ok();
    // postgres://user@host:port → host:port
    let after_scheme = server.split_once("://").map_or(server.as_str(), |(_, rest)| rest);
    let host_port = after_scheme.rsplit_once('@').map_or(after_scheme, |(_, h)| h).split('/').next().unwrap();
    let proxy = CuttableProxy::start(host_port.to_string()).await;
    let proxied = database.url.replacen(host_port, &format!("127.0.0.1:{}", proxy.port), 1);
    let db = connect_quickly(&proxied).await;
    let router = blog::mount_studio(blog::app(db.clone()), db.clone(), with_auth()).unwrap();
    let app = TestApp::serve(router, db, database).await;

    let health = json(&app, "/studio/health").await;
    assert_eq!(health["status"], "healthy", "{health}");
    assert_eq!(json(&app, "/studio/context/summary").await["migration_status"]["applied"], BLOG_MIGRATIONS);

    proxy.cut();
    let health = json(&app, "/studio/health").await;
    assert_eq!(health["status"], "degraded", "{health}");
    assert_eq!(health["database"]["connected"], false);
    assert!(health["database"]["last_error"].as_str().is_some_and(|e| !e.is_empty()), "{health}");
    assert!(health["database"]["latency_ms"].is_null());
    let handshake = json(&app, "/studio/handshake").await;
    assert_eq!(handshake["database"]["connected"], false);
    let caps = handshake["capabilities"].as_array().unwrap();
    assert!(
        !caps.iter().any(|c| c == "read_data" || c == "write_data" || c == "ai_query" || c == "admin_access"),
        "no data capability (nor the Model Browser's writes) without a database: {caps:?}"
    );
    // The context summary still answers, with the migration counts last read beside the database status; the
    // migrations summary, which cannot read the table, says so.
    let summary = json(&app, "/studio/context/summary").await;
    assert_eq!(summary["database_status"]["connected"], false);
    assert_eq!(summary["migration_status"]["applied"], BLOG_MIGRATIONS);
    let (status, body) = request(&app, "/studio/migrations/summary", Some(TOKEN), None, None).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(code(&body), "database_unavailable");

    proxy.restore();
    let mut status = Value::Null;
    for _ in 0..30 {
        status = json(&app, "/studio/health").await;
        if status["status"] == "healthy" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(status["status"], "healthy", "back without restart: {status}");
    assert_eq!(status["database"]["connected"], true);
    assert_eq!(json(&app, "/studio/migrations/summary").await["applied_migrations"], BLOG_MIGRATIONS);
}

// ---------------------------------------------------------------------------------------------------------------
// Migration graph: two more apps, one branched into two heads

/// The blog (migrated, not seeded) with Studio over [`two_app_graph`]; nothing of the two apps applied yet.
async fn blog_with_two_more_apps(backend: Backend) -> TestApp {
    let (database, db) = TestDb::migrated_blog(backend).await;
    let studio = Studio::new(with_auth()).project("fixture", "0.0.1").apps(["blog", "accounts", "catalog"]);
    let router = studio.migrations(two_app_graph()).mount(blog::app(db.clone()), db.clone()).unwrap();
    TestApp::serve(router, db, database).await
}

async fn two_apps(app: TestApp) {
    use sea_orm_migration::MigratorTrait;

    // Registering the graph applied nothing.
    let before = json(&app, "/studio/migrations/summary").await;
    assert_eq!(
        (before["total_migrations"].as_u64(), before["applied_migrations"].as_u64()),
        (Some(N64 + 5), Some(N64))
    );

    // Applying is an explicit call.
    AppliedPart::up(&app.db, None).await.unwrap();
    let s = json(&app, "/studio/migrations/summary").await;
    assert_eq!(s["total_migrations"], BLOG_MIGRATIONS + 5);
    assert_eq!(s["applied_migrations"], BLOG_MIGRATIONS + 3);
    assert_eq!(s["pending_migrations"], 2);
    let apps = s["apps"].as_array().unwrap();
    let labels: Vec<&str> = apps.iter().map(|a| a["app_label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["blog", "accounts", "catalog"]);
    let app_of = |label: &str| apps.iter().find(|a| a["app_label"] == label).unwrap().clone();
    let accounts = app_of("accounts");
    assert_eq!(
        (accounts["total"].as_u64(), accounts["applied"].as_u64(), accounts["pending"].as_u64()),
        (Some(2), Some(2), Some(0))
    );
    assert_eq!(accounts["has_conflicts"], false);
    assert_eq!(accounts["head_migrations"], serde_json::json!(["accounts_m0002_profiles"]));
    let catalog = app_of("catalog");
    assert_eq!(
        (catalog["total"].as_u64(), catalog["applied"].as_u64(), catalog["pending"].as_u64()),
        (Some(3), Some(1), Some(2))
    );
    assert_eq!(catalog["has_conflicts"], true);
    assert_eq!(catalog["head_migrations"], serde_json::json!(["catalog_m0002_add_price", "catalog_m0002_add_stock"]));
    let conflicts = s["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0]["app_label"], "catalog");
    assert_eq!(conflicts[0]["heads"], catalog["head_migrations"]);
    assert!(conflicts[0]["message"].as_str().unwrap().contains("merge"), "{}", conflicts[0]);
    assert_eq!(s["last_applied"], "catalog_m0001_items");
    assert!(is_sha256(&s["migrations_checksum"]));

    let summary = json(&app, "/studio/context/summary").await;
    assert_eq!(summary["app_count"], 3);
    assert_eq!(summary["migration_count"], BLOG_MIGRATIONS + 5);
    assert_eq!(summary["pending_migrations"], 2);
    assert_eq!(summary["migration_status"]["has_conflicts"], true);
}

// ---------------------------------------------------------------------------------------------------------------
// Checksums

async fn checksums_of(app: &TestApp) -> Value {
    json(app, "/studio/handshake").await["checksums"].clone()
}

/// `debug_panels` and `admin_access` name web-UI panels (DESIGN.md: debug mode with the UI's Query Explorer; a
/// Model Browser that may write): with the UI mounted, `admin_access` comes with `write_data`, and `debug_panels`
/// only in debug mode.
#[tokio::test]
async fn ui_capabilities_follow_debug_mode_and_write_data() {
    let caps_of = |handshake: &Value| -> Vec<String> {
        handshake["capabilities"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect()
    };
    let mut debug = with_auth();
    debug.debug = true;
    let caps = caps_of(&json(&sqlite_app(debug).await, "/studio/handshake").await);
    assert!(["write_data", "admin_access", "debug_panels"].iter().all(|c| caps.contains(&c.to_string())), "{caps:?}");
    let caps = caps_of(&json(&sqlite_app(with_auth()).await, "/studio/handshake").await);
    assert!(caps.contains(&"admin_access".to_string()) && !caps.contains(&"debug_panels".to_string()), "{caps:?}");
}

#[tokio::test]
async fn checksums_are_stable_across_instances_and_change_with_the_app() {
    let a = checksums_of(&sqlite_app(with_auth()).await).await;
    let b = checksums_of(&sqlite_app(with_auth()).await).await;
    assert_eq!(a, b, "two instances of the same app");

    // A (non-secret) setting.
    let mut debug = with_auth();
    debug.debug = true;
    let c = checksums_of(&sqlite_app(debug).await).await;
    assert_ne!(c["settings_checksum"], a["settings_checksum"]);
    assert_eq!((&c["schema_checksum"], &c["routes_checksum"]), (&a["schema_checksum"], &a["routes_checksum"]));
    // Secret values never enter it: another token, same checksum.
    let mut other_token = with_auth();
    other_token.studio_auth_token = Some("another-secret".into());
    assert_eq!(blog::studio(other_token).checksums(), blog::studio(with_auth()).checksums());

    let base = blog::studio(with_auth()).checksums();
    // A route.
    let routed = blog::studio(with_auth()).route("GET", "/api/extra", "manual", "extra").checksums();
    assert_ne!(routed.routes_checksum, base.routes_checksum);
    assert_eq!(routed.schema_checksum, base.schema_checksum);
    // A model.
    let modelled = blog::studio(with_auth()).model::<viewset_tests::fixtures::article::Entity>("Article").checksums();
    assert_ne!(modelled.schema_checksum, base.schema_checksum);
    // A migration.
    let mut graph = blog::migration_graph();
    graph.add("blog", "m0003_more", &["m0002_create_posts"]).unwrap();
    let migrated = blog::studio(with_auth()).migrations(graph).checksums();
    assert_ne!(migrated.migrations_checksum, base.migrations_checksum);
    assert_eq!(migrated.settings_checksum, base.settings_checksum);
    // The served values are the computed ones.
    assert_eq!(a["schema_checksum"], base.schema_checksum);
    assert_eq!(a["routes_checksum"], base.routes_checksum);
}

/// Runs in a child process (see below): prints the checksums a fresh blog-with-Studio serves.
#[tokio::test]
async fn checksums_child() {
    if std::env::var("STUDIO_CHECKSUM_CHILD").is_err() {
        return;
    }
    let checksums = checksums_of(&sqlite_app(with_auth()).await).await;
    println!("CHECKSUMS={checksums}");
}

#[tokio::test]
async fn checksums_are_stable_across_processes() {
    let exe = std::env::current_exe().unwrap();
    let run = move || {
        let output = std::process::Command::new(&exe)
            .args([
                concat!(module_path!(), "::checksums_child").trim_start_matches("suite::"),
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("STUDIO_CHECKSUM_CHILD", "1")
            .output()
            .expect("run the child process");
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        let line = stdout
            .lines()
            .find_map(|l| l.split_once("CHECKSUMS=").map(|(_, rest)| rest.split_whitespace().next().unwrap_or("")))
            .unwrap_or_else(|| panic!("{stdout}"));
        serde_json::from_str::<Value>(line).unwrap()
    };
    let (first, second) = tokio::task::spawn_blocking(move || (run(), run())).await.unwrap();
    assert_eq!(first, second);
    assert_eq!(first, checksums_of(&sqlite_app(with_auth()).await).await);
}

/// Issue 20 item 2: `migrations_checksum` covers the migration files (embedded at build time), so editing a
/// migration's code changes it, while building the graph again (a restart) gives the same value.
#[test]
fn migrations_checksum_covers_the_files() {
    let graph = blog::migration_graph();
    assert!(graph.nodes().iter().all(|n| n.source_sha256.is_some()), "every blog migration has its source");
    assert_eq!(graph.checksum(), blog::migration_graph().checksum(), "a restart keeps the checksum");
    let (name, text) = blog::migrations::SOURCES[1];
    let mut edited = blog::migration_graph();
    edited.source(name, &format!("{text}\n// an edit")).expect("registered");
    assert_ne!(edited.checksum(), graph.checksum(), "an edited migration changes the checksum");
}
