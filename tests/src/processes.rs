//! Processes the cluster tests start: blog instances (the `blog_instance` binary) and their ports, each killed with
//! `SIGKILL` when its [`Process`] is dropped.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use reqwest::StatusCode;

/// A child process, killed (`SIGKILL`) when dropped.
pub struct Process(pub Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("addr").port()
}

/// Waits until `url` answers 200 (10 s at most).
pub async fn answering(client: &reqwest::Client, url: &str) {
    for _ in 0..100 {
        if client.get(url).send().await.is_ok_and(|r| r.status() == StatusCode::OK) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{url} never answered");
}

/// One blog instance (`binary`: the test's `env!("CARGO_BIN_EXE_blog_instance")`) on `port` over the database at
/// `url`, its event bus `bus` (a `SERVICE_EVENT_BUS`) on the stream `stream`, with the settings `extra`.
pub fn blog_instance(
    binary: &str,
    url: &str,
    port: u16,
    (bus, stream): (&str, &str),
    extra: &[(&str, &str)],
) -> Process {
    let child = Command::new(binary)
        .env("DATABASE_URL", url)
        .env("SERVICE_BIND", format!("127.0.0.1:{port}"))
        .env("SERVICE_EVENT_BUS", bus)
        .env("SERVICE_EVENT_STREAM", stream)
        .env("SERVICE_SECRET_KEY", "a shared key for every instance of this test")
        .envs(extra.iter().copied())
        .stdout(Stdio::null())
        .spawn()
        .expect("start a blog instance");
    Process(child)
}
