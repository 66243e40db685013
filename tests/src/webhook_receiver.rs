//! The webhook receiver of the tests: `tests/webhooks/receiver.py`, which verifies every delivery with the official
//! Standard Webhooks library (`standardwebhooks` from PyPI) and answers as a test scripts it. Without Python and the
//! library a test is skipped, or fails when `VIEWSET_REQUIRE_WEBHOOKS=1` (as in CI); `VIEWSET_TEST_PYTHON` names
//! the interpreter (by default the CI's venv, `target/ci-venv`).

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::AsyncBufReadExt;

use crate::every_database::skip_unless_required;

/// A running receiver, stopped when dropped.
pub struct Receiver {
    /// Where deliveries go: `http://127.0.0.1:<port>/hooks`.
    pub url: String,
    _child: tokio::process::Child,
}

impl Receiver {
    /// Starts a receiver that accepts messages signed with any of `secrets` (`whsec_…`); `None` when skipped.
    pub async fn start(secrets: &[&str]) -> Option<Receiver> {
        let python = std::env::var("VIEWSET_TEST_PYTHON")
            .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../target/ci-venv/bin/python").to_owned());
        let usable = std::process::Command::new(&python)
            .args(["-c", "import standardwebhooks"])
            .output()
            .is_ok_and(|out| out.status.success());
        if !usable {
            skip_unless_required("VIEWSET_REQUIRE_WEBHOOKS", "no Python with `standardwebhooks` (VIEWSET_TEST_PYTHON)");
            return None;
        }
        let mut child = tokio::process::Command::new(python)
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/webhooks/receiver.py"))
            .arg(secrets.join(","))
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start the receiver");
        let stdout = child.stdout.take().expect("stdout");
        let mut port = String::new();
        tokio::io::BufReader::new(stdout).read_line(&mut port).await.expect("the receiver's port");
        Some(Receiver { url: format!("http://127.0.0.1:{}/hooks", port.trim()), _child: child })
    }

    /// The answers to the next deliveries: `[[status, {headers}, delay_seconds], …]` (then 200s).
    pub async fn script(&self, steps: Value) {
        let base = self.url.trim_end_matches("/hooks");
        let answer = reqwest::Client::new().post(format!("{base}/script")).body(steps.to_string()).send().await;
        assert_eq!(answer.expect("script").status(), 200);
    }

    /// Every delivery so far: `{"id", "verified", "status", "payload", "at"}`.
    pub async fn received(&self) -> Vec<Value> {
        let answer = reqwest::get(&self.url).await.expect("received");
        answer.json().await.expect("JSON")
    }

    /// The deliveries once `done` holds of them, or when `within` has passed.
    pub async fn wait_until(&self, within: Duration, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + within;
        loop {
            let received = self.received().await;
            if done(&received) || Instant::now() > deadline {
                return received;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The deliveries once there are `count` of them (within `within`).
    pub async fn wait_for(&self, count: usize, within: Duration) -> Vec<Value> {
        self.wait_until(within, |received| received.len() >= count).await
    }
}
