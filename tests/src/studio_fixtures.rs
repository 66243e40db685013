//! Fixtures of the Studio tests: two more apps with migrations (`accounts`, a chain; `catalog`, branched into two
//! heads), the blog served with Studio mounted, and a TCP proxy that can cut the database away.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use reqwest::StatusCode;
use sea_orm::{ConnectOptions, Database, DatabaseConnection};
use sea_orm_migration::prelude::*;
use serde_json::Value;
use viewset_studio::{MigrationGraph, StudioSettings};

use crate::harness::{Backend, TestApp, TestDb};

/// A migration that creates a one-column table named after itself.
pub struct Named(pub &'static str);

impl MigrationName for Named {
    fn name(&self) -> &str {
        self.0
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Named {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(self.0)
                    .if_not_exists()
                    .col(ColumnDef::new("id").integer().not_null().primary_key())
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.drop_table(Table::drop().table(self.0).to_owned()).await
    }
}

/// The migrations the tests apply explicitly: the blog's (sea-orm-migration refuses a table that records
/// migrations it does not know), all of `accounts` and the root of `catalog`.
pub struct AppliedPart;

impl MigratorTrait for AppliedPart {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        let mut all = blog::migrations::Migrator::migrations();
        all.push(Box::new(Named("accounts_m0001_users")));
        all.push(Box::new(Named("accounts_m0002_profiles")));
        all.push(Box::new(Named("catalog_m0001_items")));
        all
    }
}

/// The blog's graph plus `accounts` (a chain of two) and `catalog` (a root and two heads that both depend on it).
pub fn two_app_graph() -> MigrationGraph {
    let mut graph = blog::migration_graph();
    graph.add("accounts", "accounts_m0001_users", &[]).unwrap();
    graph.add("accounts", "accounts_m0002_profiles", &["accounts_m0001_users"]).unwrap();
    graph.add("catalog", "catalog_m0001_items", &["accounts_m0001_users"]).unwrap();
    graph.add("catalog", "catalog_m0002_add_price", &["catalog_m0001_items"]).unwrap();
    graph.add("catalog", "catalog_m0002_add_stock", &["catalog_m0001_items"]).unwrap();
    graph
}

/// Settings from `SERVICE_*` pairs.
pub fn settings(vars: &[(&str, &str)]) -> StudioSettings {
    StudioSettings::from_vars(vars.iter().map(|(k, v)| (String::from(*k), String::from(*v)))).expect("valid settings")
}

/// Serves the blog (migrated, seeded) with Studio mounted per `settings`.
pub async fn blog_with_studio(backend: Backend, settings: StudioSettings) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let state = viewset_core::ServiceState::new(db.clone());
    let router = blog::app_with_studio(state, settings).expect("Studio settings are valid");
    TestApp::serve(router, db, database).await
}

/// The blog with Studio mounted per [`with_auth`]: a setup for [`crate::on_every_database!`].
pub async fn blog_with_authed_studio(backend: Backend) -> TestApp {
    blog_with_studio(backend, with_auth()).await
}

/// Connects with short timeouts, so a cut database shows up within seconds.
pub async fn connect_quickly(url: &str) -> DatabaseConnection {
    let mut options = ConnectOptions::new(url.to_string());
    options
        .sqlx_logging(false)
        .connect_timeout(std::time::Duration::from_secs(2))
        .acquire_timeout(std::time::Duration::from_secs(2));
    Database::connect(options).await.expect("connect through the proxy")
}

/// A TCP proxy on a loopback port that forwards to `upstream` until it is cut.
pub struct CuttableProxy {
    /// The proxy's port.
    pub port: u16,
    open: Arc<AtomicBool>,
    connections: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>>,
    acceptor: tokio::task::JoinHandle<()>,
}

impl CuttableProxy {
    /// Starts forwarding to `upstream` (`host:port`).
    pub async fn start(upstream: String) -> CuttableProxy {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let open = Arc::new(AtomicBool::new(true));
        let connections: Arc<Mutex<Vec<tokio::task::JoinHandle<()>>>> = Arc::default();
        let (open2, connections2) = (open.clone(), connections.clone());
        let acceptor = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !open2.load(Ordering::SeqCst) {
                    drop(client); // the database is "away": refuse by closing at once
                    continue;
                }
                let upstream = upstream.clone();
                let task = tokio::spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect(&upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                connections2.lock().unwrap().push(task);
            }
        });
        CuttableProxy { port, open, connections, acceptor }
    }

    /// Closes every forwarded connection and refuses new ones.
    pub fn cut(&self) {
        self.open.store(false, Ordering::SeqCst);
        for task in self.connections.lock().unwrap().drain(..) {
            task.abort();
        }
    }

    /// Forwards new connections again.
    pub fn restore(&self) {
        self.open.store(true, Ordering::SeqCst);
    }
}

impl Drop for CuttableProxy {
    fn drop(&mut self) {
        self.cut();
        self.acceptor.abort();
    }
}

/// The Studio token of the tests.
pub const TOKEN: &str = "studio-test-token";

/// What a Studio path answers a caller the gate admitted, in these fixtures: 200, but `/studio/webhooks`, which
/// answers 409 `webhooks_unavailable` since no fixture registers webhooks (`studio_webhooks.rs` does).
///
/// ```
/// use reqwest::StatusCode;
/// use viewset_tests::studio_fixtures::admitted;
/// assert_eq!((admitted("/studio/health"), admitted("/studio/webhooks")), (StatusCode::OK, StatusCode::CONFLICT));
/// ```
pub fn admitted(path: &str) -> reqwest::StatusCode {
    if path == viewset_studio::paths::WEBHOOKS { reqwest::StatusCode::CONFLICT } else { reqwest::StatusCode::OK }
}

/// `GET path` with optional bearer token, Origin and cookie: status and raw body.
pub async fn request(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    origin: Option<&str>,
    cookie: Option<&str>,
) -> (StatusCode, String) {
    let mut request = app.client().get(format!("{}{path}", app.base));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let response = request.send().await.expect("request");
    (response.status(), response.text().await.expect("body"))
}

/// `GET path` with the token; asserts 200 and parses JSON.
pub async fn json(app: &TestApp, path: &str) -> Value {
    let (status, body) = request(app, path, Some(TOKEN), None, None).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|_| panic!("{path} is not JSON: {body}"))
}

/// The `code` of a JSON error body.
pub fn code(body: &str) -> String {
    serde_json::from_str::<Value>(body).expect("JSON error body")["code"].as_str().unwrap_or_default().to_string()
}

/// Studio enabled with auth and two allowed origins.
pub fn with_auth() -> StudioSettings {
    settings(&[
        ("SERVICE_ENABLE_STUDIO", "true"),
        ("SERVICE_STUDIO_REQUIRE_AUTH", "true"),
        ("SERVICE_STUDIO_AUTH_TOKEN", TOKEN),
        ("SERVICE_STUDIO_ALLOWED_ORIGINS", "http://studio.local,https://dev.example.com"),
    ])
}

/// The blog with Studio on SQLite.
pub async fn sqlite_app(settings: StudioSettings) -> TestApp {
    blog_with_studio(Backend::Sqlite, settings).await
}

/// The repository's root (where the workspace's `Cargo.toml` and `Cargo.lock` are).
pub fn repository() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().expect("the repository")
}

/// The target directory shared by generated projects (`viewset-cli/tests/new.rs` builds there too).
pub fn starter_target() -> std::path::PathBuf {
    repository().join("target").join("starter")
}

/// A project written by `viewset new books` (the real generator: `cargo run -p viewset-cli`, built in
/// [`starter_target`]) outside the repository (a project inside it would belong to its workspace), with the
/// workspace's `Cargo.lock`; removed when dropped.
pub struct ScratchProject {
    /// The project's directory (`…/books`).
    pub dir: std::path::PathBuf,
    base: std::path::PathBuf,
}

impl Drop for ScratchProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// A fresh `viewset new books` project.
pub fn scratch_project() -> ScratchProject {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let base = std::env::temp_dir().join(format!("viewset-codegen-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).expect("create the scratch directory");
    let output = std::process::Command::new(env!("CARGO"))
        .args(["run", "--quiet", "-p", "viewset-cli", "--", "new", "books", "--resource", "books", "--dir"])
        .arg(&base)
        .current_dir(repository())
        .env("CARGO_TARGET_DIR", starter_target())
        .output()
        .expect("run cargo");
    assert!(output.status.success(), "viewset new: {}", String::from_utf8_lossy(&output.stderr));
    let dir = base.join("books").canonicalize().expect("the project");
    std::fs::copy(repository().join("Cargo.lock"), dir.join("Cargo.lock")).expect("copy Cargo.lock");
    ScratchProject { dir, base }
}

/// Serves the blog (migrated, seeded) with Studio per `settings` and the code generator on `project`.
pub async fn blog_with_project(backend: Backend, settings: StudioSettings, project: &std::path::Path) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let router = blog::studio(settings).project_dir(project).mount(blog::app(db.clone()), db.clone()).expect("valid");
    TestApp::serve(router, db, database).await
}

/// The secret that signs the UI tests' Studio sessions.
pub const UI_SECRET: &str = "studio-ui-test-secret-0123456789";

/// Studio with auth, two allowed origins and a session secret (the web UI's sign-in needs one).
pub fn ui_settings() -> StudioSettings {
    let mut s = with_auth();
    s.studio_secret_token = Some(UI_SECRET.into());
    s
}

/// The blog with Studio per [`ui_settings`].
pub async fn blog_with_ui(backend: Backend) -> TestApp {
    blog_with_studio(backend, ui_settings()).await
}

/// The blog (migrated and seeded) with Studio over [`two_app_graph`] (five migrations of two more apps pending, one
/// app with two heads) and the migrator [`AppliedPart`] registered (it knows three of them).
pub async fn blog_with_pending_migrations(backend: Backend) -> TestApp {
    pending_migrations_app(backend, ui_settings()).await
}

/// [`blog_with_pending_migrations`] with other settings.
pub async fn pending_migrations_app(backend: Backend, settings: StudioSettings) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let studio = blog::studio(settings).apps(["blog", "accounts", "catalog"]).migrations(two_app_graph());
    let router = studio.migrator::<AppliedPart>().mount(blog::app(db.clone()), db.clone()).unwrap();
    TestApp::serve(router, db, database).await
}
