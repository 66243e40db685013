//! The blog as a child process (`blog_instance`) with its metrics listener, over a fresh seeded database (a SQLite
//! file unless a test names another backend): the observability tests (`metrics.rs`, `logs.rs`,
//! `studio_ui_runtime_browser.rs`) read what it exports and what it logs, each from a registry of its own process.

use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use viewset_tests::harness::{Backend, TestDb};

pub use viewset_tests::processes::{Process, free_port};

/// A directory of this test's own under the system's temporary directory, removed when dropped.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(what: &str) -> TempDir {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_nanos();
        let path = std::env::temp_dir().join(format!("viewset-{what}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).expect("create the temporary directory");
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The blog (`blog_instance`) over a fresh seeded SQLite file, serving on `port` and its metrics on `metrics`,
/// with `env` set; its standard output goes to `stdout`.
pub struct Blog {
    pub base: String,
    pub metrics: String,
    pub process: Process,
    _database: TestDb,
}

pub async fn blog(env: &[(&str, &str)], stdout: Stdio) -> Blog {
    blog_on(Backend::Sqlite, env, stdout).await
}

/// [`blog`] over a fresh seeded database of `backend`.
pub async fn blog_on(backend: Backend, env: &[(&str, &str)], stdout: Stdio) -> Blog {
    let (database, db) = TestDb::seeded_blog(backend).await;
    db.close().await.expect("close the test's connection");
    let (port, metrics_port) = (free_port(), free_port());
    let mut command = Command::new(env!("CARGO_BIN_EXE_blog_instance"));
    command
        .env("DATABASE_URL", &database.url)
        .env("SERVICE_BIND", format!("127.0.0.1:{port}"))
        .env("SERVICE_METRICS_ADDR", format!("127.0.0.1:{metrics_port}"))
        .env_remove("RUST_LOG")
        .env_remove("SERVICE_THROTTLE_ANON")
        .stdout(stdout);
    for (name, value) in env {
        command.env(name, value);
    }
    let process = Process(command.spawn().expect("start the blog"));
    let (base, metrics) = (format!("http://127.0.0.1:{port}"), format!("http://127.0.0.1:{metrics_port}/metrics"));
    // Ready when both listeners accept connections: no request is sent to the API (it would be counted).
    for _ in 0..200 {
        let up = |p: u16| std::net::TcpStream::connect(("127.0.0.1", p)).is_ok();
        if up(port) && up(metrics_port) {
            return Blog { base, metrics, process, _database: database };
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the blog never listened on {port} and {metrics_port}");
}

impl Blog {
    /// Stops the blog and returns what it wrote on its standard output (started with `Stdio::piped()`).
    pub fn output(mut self) -> String {
        let _ = self.process.0.kill();
        let mut text = String::new();
        if let Some(mut stdout) = self.process.0.stdout.take() {
            std::io::Read::read_to_string(&mut stdout, &mut text).expect("the blog's output");
        }
        text
    }
}
