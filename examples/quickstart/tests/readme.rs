//! The README's quick start is this crate: its `[dependencies]` and `src/main.rs` are the README's blocks, and the
//! README's `curl` calls, run against this binary on a fresh SQLite file, answer what the README shows.
//! Needs `curl` (a failure, not a skip, without it).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

const README: &str = include_str!("../../../README.md");
const MAIN: &str = include_str!("../src/main.rs");
const MANIFEST: &str = include_str!("../Cargo.toml");
/// The README's path to a checkout of the repository, and this crate's.
const README_PATH: &str = r#"path = "../viewset/viewset-core""#;
const CRATE_PATH: &str = r#"path = "../../viewset-core""#;

/// The fenced blocks of the README's `## Quick start` section, as (info string, text).
fn quick_start_blocks() -> Vec<(String, String)> {
    let start = README.find("\n## Quick start\n").expect("the README has a `## Quick start` section");
    let section = &README[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |end| end + 3)];
    let mut blocks = Vec::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let text: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            blocks.push((info.to_string(), text.join("\n") + "\n"));
        }
    }
    blocks
}

fn block(info: &str) -> String {
    let found: Vec<String> = quick_start_blocks().into_iter().filter(|(i, _)| i == info).map(|(_, t)| t).collect();
    assert_eq!(found.len(), 1, "one ```{info} block in the quick start");
    found.into_iter().next().unwrap()
}

#[test]
fn main_rs_is_the_readme_block() {
    assert_eq!(
        block("rust,ignore"),
        MAIN,
        "README quick start `src/main.rs` and examples/quickstart/src/main.rs differ"
    );
}

#[test]
fn dependencies_are_the_readme_block() {
    let start = MANIFEST.find("[dependencies]\n").unwrap();
    let end = MANIFEST[start..].find("\n\n").map_or(MANIFEST.len(), |e| start + e + 1);
    let ours = MANIFEST[start..end].replace(CRATE_PATH, README_PATH);
    assert_eq!(block("toml"), ours, "README quick start `[dependencies]` and examples/quickstart/Cargo.toml differ");
}

/// The server on a free port in a fresh directory; killed on drop.
struct Server {
    child: Child,
    bind: String,
    _dir: TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn start() -> Server {
    let dir = std::env::temp_dir().join(format!("viewset-quickstart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let bind = format!("127.0.0.1:{port}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .current_dir(&dir)
        .env("BIND", &bind)
        .env_remove("DATABASE_URL")
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the quickstart binary");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with(&format!("listening on http://{bind}")), "unexpected first line: {first:?}");
    Server { child, bind, _dir: TempDir(dir) }
}

/// The README's `$ curl ...` commands (a trailing `\` continues one) with the JSON each is shown to answer.
fn calls() -> Vec<(String, String)> {
    let text = block("console");
    let mut calls: Vec<(String, String)> = Vec::new();
    let mut continued = false;
    for line in text.lines() {
        if let Some(command) = line.strip_prefix("$ ") {
            calls.push((command.trim_end_matches('\\').to_string(), String::new()));
            continued = line.ends_with('\\');
        } else if continued {
            calls.last_mut().unwrap().0.push_str(line.trim_end_matches('\\'));
            continued = line.ends_with('\\');
        } else if let Some((_, answer)) = calls.last_mut() {
            answer.push_str(line);
        }
    }
    calls
}

#[test]
fn curl_calls_answer_as_the_readme_shows() {
    let server = start();
    let calls = calls();
    assert!(calls.len() >= 6, "the quick start shows its calls: {calls:?}");
    for (command, shown) in calls {
        let command = command.replace("127.0.0.1:3000", &server.bind);
        let output = Command::new("bash").arg("-c").arg(&command).output().expect("curl is installed");
        assert!(output.status.success(), "{command}: {}", String::from_utf8_lossy(&output.stderr));
        let got: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{command}: not JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)));
        let shown: serde_json::Value =
            serde_json::from_str(&shown).unwrap_or_else(|e| panic!("README answer of {command} is not JSON ({e})"));
        assert_eq!(got, shown, "{command}");
    }
}
