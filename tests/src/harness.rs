//! Runs an example app on a real TCP port against SQLite, PostgreSQL or MariaDB, for tests that send real requests.
//!
//! PostgreSQL tests read the server URL from `VIEWSET_TEST_PG_URL` (e.g. `postgres://postgres@127.0.0.1:5432`;
//! `.ci/run` sets it). Each test gets its own database, created here and dropped when the app is dropped. Whether
//! a PostgreSQL test runs at all is decided in [`crate::every_database`]: skipped with a note when the variable is
//! unset, a failure when `VIEWSET_REQUIRE_PG=1`. MariaDB tests do the same with `VIEWSET_TEST_MYSQL_URL` (e.g.
//! `mysql://root@127.0.0.1:3306`) and `VIEWSET_REQUIRE_MYSQL=1`.

use std::sync::atomic::{AtomicU32, Ordering};

use axum::Router;
use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, Database, DatabaseConnection};
use serde_json::Value;

/// The SQL a connection ran, in order, each statement with its values written in (see [`recording`]).
pub type Statements = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// `db` (cloned), and the [`Statements`] that every statement the store runs on this thread from now on is appended
/// to, for tests that check the SQL a request sends. They are read from the store's statement hook (its
/// `viewset::sql` spans), which sees every statement on the path production takes. A test's servers run on its own
/// thread (a current-thread runtime), so the recording is this thread's default subscriber for the rest of the test.
pub fn recording(db: &DatabaseConnection) -> (DatabaseConnection, Statements) {
    use tracing_subscriber::layer::SubscriberExt;
    anchor_interest();
    let statements = Statements::default();
    let subscriber = tracing_subscriber::registry().with(crate::sql_spans::SqlSpans::new(statements.clone()));
    // Kept for the rest of the thread, which is the rest of the test.
    std::mem::forget(tracing::subscriber::set_default(subscriber));
    (db.clone(), statements)
}

/// Registers, once per test process, a dispatcher that wants the hook's `viewset::sql` spans and is no thread's
/// default. tracing caches one interest per callsite, worked out when a thread first reaches it; while a single
/// dispatcher is registered it asks only that thread's own subscriber (tracing-core 0.1.36, `Rebuilder::JustOne`).
/// Without this, a test that records nothing and sent the process's first statement just after another test's
/// [`recording`] cached "never" for the hook's span, and the recording test saw no statement at all (`expand`'s
/// MariaDB case: once in CI, once in 32 runs of `cargo test --test expand` here). With two dispatchers registered
/// the interest is the union of all of them.
fn anchor_interest() {
    use tracing_subscriber::layer::SubscriberExt;
    static ANCHOR: std::sync::OnceLock<tracing::Dispatch> = std::sync::OnceLock::new();
    ANCHOR.get_or_init(|| {
        let unread = crate::sql_spans::SqlSpans::new(Statements::default());
        tracing::Dispatch::new(tracing_subscriber::registry().with(unread))
    });
}

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A fresh SQLite file.
    Sqlite,
    /// A fresh database on the server at `VIEWSET_TEST_PG_URL`.
    Postgres,
    /// A fresh database on the MariaDB (or MySQL) server at `VIEWSET_TEST_MYSQL_URL`.
    Mysql,
}

/// A test database: its URL and how to remove it.
pub struct TestDb {
    /// Connection URL.
    pub url: String,
    cleanup: Cleanup,
}

enum Cleanup {
    File(std::path::PathBuf),
    Postgres { admin_url: String, name: String },
    Mysql { admin_url: String, name: String },
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

fn unique_name() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("viewset_test_{}_{}_{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed), nanos % 1_000_000_000)
}

/// The PostgreSQL server URL, when configured.
pub fn postgres_url() -> Option<String> {
    std::env::var("VIEWSET_TEST_PG_URL").ok().filter(|s| !s.is_empty()).map(|s| s.trim_end_matches('/').to_string())
}

/// The MariaDB / MySQL server URL (`mysql://user@host:port`, no database), when configured.
pub fn mysql_url() -> Option<String> {
    std::env::var("VIEWSET_TEST_MYSQL_URL").ok().filter(|s| !s.is_empty()).map(|s| s.trim_end_matches('/').to_string())
}

impl TestDb {
    /// Creates an empty database. On PostgreSQL the test must have passed
    /// [`crate::every_database::require_postgres`] (or run through [`crate::on_every_database!`]); without a
    /// server this panics rather than skip.
    pub async fn create(backend: Backend) -> TestDb {
        let name = unique_name();
        match backend {
            Backend::Sqlite => {
                let path = std::env::temp_dir().join(format!("{name}.db"));
                TestDb { url: format!("sqlite://{}?mode=rwc", path.display()), cleanup: Cleanup::File(path) }
            }
            Backend::Postgres => {
                let server = postgres_url().expect("a PostgreSQL test ran without VIEWSET_TEST_PG_URL: gate it");
                TestDb::postgres_on(&server).await
            }
            Backend::Mysql => {
                let server = mysql_url().expect("a MariaDB test ran without VIEWSET_TEST_MYSQL_URL: gate it");
                TestDb::mysql_on(&server).await
            }
        }
    }

    /// Creates an empty `utf8mb4` database on the MariaDB / MySQL server at `server` (`mysql://user@host:port`);
    /// it is dropped with the `TestDb`. Its collation is `utf8mb4_bin`: text compares and sorts in byte order, as
    /// on the PostgreSQL test databases, so one expected order serves every backend (under a `_ci` collation
    /// `abc` and `ABC` tie; README "MariaDB / MySQL").
    pub async fn mysql_on(server: &str) -> TestDb {
        let name = unique_name();
        let admin_url = server.to_string();
        let admin = Database::connect(&admin_url).await.expect("connect to the MariaDB server");
        let create = format!("CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        admin.execute_unprepared(&create).await.expect("create test database");
        admin.close().await.ok();
        TestDb { url: format!("{server}/{name}"), cleanup: Cleanup::Mysql { admin_url, name } }
    }

    /// Creates an empty database on the PostgreSQL server at `server` (`postgres://user@host:port`), e.g. a
    /// [`crate::cluster::PrivateCluster`]; it is dropped with the `TestDb`.
    pub async fn postgres_on(server: &str) -> TestDb {
        let name = unique_name();
        let admin_url = format!("{server}/postgres");
        let admin = Database::connect(&admin_url).await.expect("connect to the PostgreSQL server");
        admin.execute_unprepared(&format!("CREATE DATABASE \"{name}\"")).await.expect("create test database");
        admin.close().await.ok();
        TestDb { url: format!("{server}/{name}"), cleanup: Cleanup::Postgres { admin_url, name } }
    }

    /// A fresh database with the blog's migrations applied, and a connection to it.
    pub async fn migrated_blog(backend: Backend) -> (TestDb, DatabaseConnection) {
        let database = TestDb::create(backend).await;
        let db = blog::connect_and_migrate(&database.url).await.expect("migrate the blog");
        (database, db)
    }

    /// [`TestDb::migrated_blog`] with the blog's seed (two authors, three posts).
    pub async fn seeded_blog(backend: Backend) -> (TestDb, DatabaseConnection) {
        let (database, db) = TestDb::migrated_blog(backend).await;
        blog::seed::seed_if_empty(&db).await.expect("seed the blog");
        (database, db)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        match &self.cleanup {
            Cleanup::File(path) => {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
                }
            }
            Cleanup::Postgres { admin_url, name } => {
                let (admin_url, name) = (admin_url.clone(), name.clone());
                // Drop runs inside the test's runtime: use a thread with its own runtime and wait for it.
                let dropper = std::thread::spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
                    rt.block_on(async {
                        if let Ok(admin) = Database::connect(&admin_url).await {
                            let _ = admin
                                .execute_unprepared(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                                .await;
                            admin.close().await.ok();
                        }
                    });
                });
                let _ = dropper.join();
            }
            Cleanup::Mysql { admin_url, name } => {
                let (admin_url, name) = (admin_url.clone(), name.clone());
                let dropper = std::thread::spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
                    rt.block_on(async {
                        if let Ok(admin) = Database::connect(&admin_url).await {
                            let _ = admin.execute_unprepared(&format!("DROP DATABASE IF EXISTS `{name}`")).await;
                            admin.close().await.ok();
                        }
                    });
                });
                let _ = dropper.join();
            }
        }
    }
}

/// A running app and a client for it.
pub struct TestApp {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// The app's database connection (for assertions that look at rows directly).
    pub db: DatabaseConnection,
    client: reqwest::Client,
    server: tokio::task::JoinHandle<()>,
    _database: TestDb,
}

impl TestApp {
    /// Serves the blog example, migrated and seeded, on `backend`.
    pub async fn blog(backend: Backend) -> TestApp {
        let (database, db) = TestDb::seeded_blog(backend).await;
        TestApp::serve(blog::app(db.clone()), db, database).await
    }

    /// Serves the blog, migrated but empty, plus the paginated ViewSets of [`crate::fixtures::paged`].
    pub async fn query_app(backend: Backend) -> TestApp {
        let (database, db) = TestDb::migrated_blog(backend).await;
        TestApp::serve(crate::fixtures::paged::app(db.clone()), db, database).await
    }

    /// [`TestApp::query_app`] over the blog's seed.
    pub async fn seeded_query_app(backend: Backend) -> TestApp {
        let (database, db) = TestDb::seeded_blog(backend).await;
        TestApp::serve(crate::fixtures::paged::app(db.clone()), db, database).await
    }

    /// Serves the tenants example, migrated and empty.
    pub async fn tenants(backend: Backend) -> TestApp {
        let database = TestDb::create(backend).await;
        let db = tenants::connect_and_migrate(&database.url).await.expect("migrate the tenants example");
        TestApp::serve(tenants::app(db.clone()), db, database).await
    }

    /// Serves `router` on an ephemeral loopback port.
    pub async fn serve(router: Router, db: DatabaseConnection, database: TestDb) -> TestApp {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let server = tokio::spawn(async move {
            // With the peer address, as the blog's `main` serves it (anonymous callers are throttled by it).
            let service = router.into_make_service_with_connect_info::<std::net::SocketAddr>();
            axum::serve(listener, service).await.expect("serve");
        });
        TestApp { base, db, client: reqwest::Client::new(), server, _database: database }
    }

    /// Sends a request with an optional bearer token and JSON body; returns status and parsed JSON body.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
    ) -> (StatusCode, Value) {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body.to_string());
        }
        let response = request.send().await.expect("request");
        let status = response.status();
        let content_type =
            response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
        let text = response.text().await.expect("body");
        let json = serde_json::from_str(&text)
            .unwrap_or_else(|_| panic!("{status} response to {path} is not JSON ({content_type}): {text:?}"));
        (status, json)
    }

    /// `GET path` anonymously.
    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.send(Method::GET, path, None, None).await
    }

    /// The raw client, for requests that need more control.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// The ids of a list response's `results`, in order.
pub fn ids(body: &Value) -> Vec<i64> {
    body["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results in {body}"))
        .iter()
        .map(|r| r["id"].as_i64().unwrap_or_else(|| panic!("no integer id in {r}")))
        .collect()
}

/// How long a test waits for a stream frame it expects.
pub const WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// How long a test listens to be sure no further frame comes.
pub const QUIET: std::time::Duration = std::time::Duration::from_millis(700);

pub use crate::sse::{Frame, SseClient};

/// Debian's Chromium, if installed.
pub fn chromium() -> Option<String> {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|bin| std::process::Command::new(bin).arg("--version").output().is_ok_and(|o| o.status.success()))
        .map(str::to_string)
}

/// Chromium, or `None` with a note; panics when `VIEWSET_REQUIRE_BROWSER=1` (as in CI) and it is missing.
pub fn require_chromium() -> Option<String> {
    let found = chromium();
    if found.is_none() {
        crate::every_database::skip_unless_required("VIEWSET_REQUIRE_BROWSER", "chromium is not installed");
    }
    found
}

/// Loads `url` in headless Chromium (with this workplace's flags and a fresh profile), lets its scripts run for
/// `budget_ms` of virtual time, and returns the rendered DOM; a stuck browser is killed after 40 s.
pub async fn rendered_dom(browser: String, url: String, budget_ms: u32) -> String {
    let profile = std::env::temp_dir().join(format!("viewset-chromium-{}-{}", std::process::id(), unique_name()));
    tokio::task::spawn_blocking(move || {
        let mut child = std::process::Command::new(browser)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            .args(["--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(format!("--virtual-time-budget={budget_ms}"))
            .args(["--dump-dom", &url])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("run chromium");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(40);
        while child.try_wait().ok().flatten().is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let _ = child.kill();
        let output = child.wait_with_output().expect("chromium output");
        let _ = std::fs::remove_dir_all(&profile);
        String::from_utf8_lossy(&output.stdout).into_owned()
    })
    .await
    .expect("join")
}
