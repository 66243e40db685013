//! NATS for the cluster tests: the shared server at `VIEWSET_TEST_NATS_URL` (each test on a stream of its own,
//! [`stream_name`]), or a private `nats-server -js` on a free port with its own store ([`PrivateNats`]), stopped
//! and started by outage tests. Without `VIEWSET_TEST_NATS_URL` a NATS test prints that it was skipped, or fails
//! when `VIEWSET_REQUIRE_NATS=1` (as in CI).

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::every_database::skip_unless_required;

/// The shared NATS server's URL, or `None` with a note when `VIEWSET_TEST_NATS_URL` is unset; panics when
/// `VIEWSET_REQUIRE_NATS=1` and it is unset.
///
/// ```no_run
/// let Some(url) = viewset_tests::nats::require_nats() else { return };
/// assert!(url.starts_with("nats://"));
/// ```
pub fn require_nats() -> Option<String> {
    let url = std::env::var("VIEWSET_TEST_NATS_URL").ok().filter(|s| !s.is_empty());
    if url.is_none() {
        skip_unless_required("VIEWSET_REQUIRE_NATS", "VIEWSET_TEST_NATS_URL is not set");
    }
    url
}

/// A JetStream stream name no other test (or earlier run) uses: `viewset_<purpose>_<pid>_<random>`.
///
/// ```
/// let name = viewset_tests::nats::stream_name("doc");
/// assert!(name.starts_with("viewset_doc_") && !name.contains('.'));
/// ```
pub fn stream_name(purpose: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    format!("viewset_{purpose}_{}_{nanos}", std::process::id())
}

/// A private `nats-server -js` on a free loopback port, its store in a directory of its own; killed and its store
/// deleted when dropped.
pub struct PrivateNats {
    port: u16,
    store: std::path::PathBuf,
    server: Option<Child>,
}

impl PrivateNats {
    /// Starts one (an error when `nats-server` is not installed, for the test to skip or fail).
    ///
    /// ```no_run
    /// # async fn run() {
    /// let nats = viewset_tests::nats::PrivateNats::start("doc").await.expect("nats-server");
    /// assert!(nats.url().starts_with("nats://127.0.0.1:"));
    /// # }
    /// ```
    pub async fn start(purpose: &str) -> Result<PrivateNats, String> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        drop(listener);
        let store = std::env::temp_dir().join(stream_name(purpose));
        std::fs::create_dir_all(&store).map_err(|e| e.to_string())?;
        let mut nats = PrivateNats { port, store, server: None };
        nats.resume().await?;
        Ok(nats)
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Kills the server (`SIGKILL`, as a crash); its store stays.
    pub fn kill(&mut self) {
        if let Some(mut server) = self.server.take() {
            let _ = server.kill();
            let _ = server.wait();
        }
    }

    /// Starts the server again on the same port and store, and waits until it accepts connections.
    pub async fn resume(&mut self) -> Result<(), String> {
        let server = Command::new("nats-server")
            .args(["-js", "-a", "127.0.0.1", "-p", &self.port.to_string(), "-sd"])
            .arg(&self.store)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("nats-server: {e}"))?;
        self.server = Some(server);
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port)).await.is_ok() {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Err(format!("nats-server on port {} never accepted a connection", self.port))
    }
}

impl Drop for PrivateNats {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.store);
    }
}
