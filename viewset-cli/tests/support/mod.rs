//! Helpers of the CLI's end-to-end tests: scratch directories, the `viewset` binary, cargo in `target/starter` (the
//! workspace's `Cargo.lock`, one target directory for every generated project), the project's server and curl.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().unwrap()
}

pub fn starter_target() -> PathBuf {
    repo().join("target").join("starter")
}

/// A fresh directory outside the repository (a project inside it would belong to its workspace), emptied first and
/// removed when the test ends.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("viewset-starter-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `viewset <args>` in `dir`.
pub fn viewset(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_viewset")).args(args).current_dir(dir).output().unwrap()
}

/// `viewset <args>` in `dir` with `env` and cargo's target in `target/starter` (for `viewset migrate`, which builds
/// and runs the project), which must succeed; its stdout.
pub fn viewset_ok_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_viewset"))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", starter_target())
        .env_remove("DATABASE_URL")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "viewset {args:?}: {stderr}");
    String::from_utf8(output.stdout).unwrap()
}

/// `viewset <args>` in `dir`, which must succeed; its stdout.
pub fn viewset_ok(dir: &Path, args: &[&str]) -> String {
    let output = viewset(dir, args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "viewset {args:?}: {stderr}");
    String::from_utf8(output.stdout).unwrap()
}

/// `viewset <args>` in `dir`, which must fail with one `error: ...` line (or several, one per invalid value); its
/// stderr.
pub fn viewset_refused(dir: &Path, args: &[&str]) -> String {
    let output = viewset(dir, args);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!output.status.success(), "viewset {args:?} should fail");
    assert!(stderr.starts_with("error: ") && output.stdout.is_empty(), "viewset {args:?}: {stderr}");
    stderr
}

/// `viewset new <name> <extra>` in `dir`, depending on this checkout (`--viewset`), with the workspace's `Cargo.lock`.
pub fn new_project(name: &str, extra: &[&str], dir: &Path) -> PathBuf {
    let checkout = repo().display().to_string();
    let args: Vec<&str> = ["new", name, "--viewset", &checkout].iter().chain(extra).copied().collect();
    viewset_ok(dir, &args);
    let project = dir.join(name);
    std::fs::copy(repo().join("Cargo.lock"), project.join("Cargo.lock")).unwrap();
    project
}

/// `cargo <args>` in `project`, with `env`, which must succeed.
pub fn cargo(project: &Path, args: &[&str], env: &[(&str, &str)]) {
    let started = std::time::Instant::now();
    let status = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(project)
        .env("CARGO_TARGET_DIR", starter_target())
        .env_remove("DATABASE_URL")
        .env_remove("TEST_DATABASE_URL")
        .envs(env.iter().copied())
        .status()
        .unwrap();
    assert!(status.success(), "cargo {args:?} in {}", project.display());
    eprintln!("cargo {args:?}: {:.1}s", started.elapsed().as_secs_f64());
}

/// The project's server, killed when the test ends (also when an assertion fails).
pub struct Server {
    child: std::process::Child,
    pub base: String,
}

impl Server {
    /// Starts the project's binary with `env` on a free port and waits for its `listening on` line.
    pub fn start(project: &Path, binary: &str, env: &[(&str, &str)], log: &Path) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let bind = format!("127.0.0.1:{port}");
        let mut child = Command::new(starter_target().join("debug").join(binary))
            .current_dir(project)
            .env_remove("DATABASE_URL")
            .env("BIND", &bind)
            .env("API_TOKEN", "change-me")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let server = Server { child, base: format!("http://{bind}") };
        let mut first = String::new();
        BufReader::new(stdout).read_line(&mut first).unwrap();
        let log = std::fs::read_to_string(log).unwrap_or_default();
        assert!(first.starts_with(&format!("listening on http://{bind}")), "{first:?}; server log:\n{log}");
        server
    }

    /// `method path` with a JSON `body`, authenticated when `token`: the status and the JSON answer (`Null` when
    /// empty).
    pub fn call(&self, method: &str, path: &str, body: Option<&Value>, token: bool) -> (u16, Value) {
        let url = format!("{}{path}", self.base);
        let mut args = vec!["-s", "-w", "\n%{http_code}", "-X", method, url.as_str()];
        if token {
            args.extend(["-H", "Authorization: Bearer change-me"]);
        }
        let text = body.map(Value::to_string);
        if let Some(text) = &text {
            args.extend(["-H", "Content-Type: application/json", "-d", text.as_str()]);
        }
        let output = Command::new("curl").args(&args).output().expect("curl is installed");
        assert!(output.status.success(), "curl {args:?}");
        let output = String::from_utf8(output.stdout).unwrap();
        let (json, status) = output.rsplit_once('\n').unwrap();
        let json = if json.is_empty() { Value::Null } else { serde_json::from_str(json).expect(json) };
        (status.parse().unwrap(), json)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `viewset generate ...` lines of the guide's `## Growing a project` block (viewset-core/docs/guide/start.md),
/// as arguments.
pub fn readme_generate_lines() -> Vec<Vec<String>> {
    let page = std::fs::read_to_string(repo().join("viewset-core/docs/guide/start.md")).unwrap();
    let section = &page[page.find("## Growing a project").expect("the guide's section")..];
    let block = &section[section.find("```sh\n").unwrap() + 6..];
    let block = &block[..block.find("```").unwrap()];
    block
        .lines()
        .map(|line| line.split('#').next().unwrap().trim())
        .filter_map(|line| line.strip_prefix("viewset generate "))
        .map(|rest| std::iter::once("generate").chain(rest.split_whitespace()).map(String::from).collect())
        .collect()
}

/// `VIEWSET_TEST_PG_URL`; `VIEWSET_REQUIRE_PG=1` (as in CI) makes a test that needs it fail instead of skipping.
pub fn postgres_url() -> Option<String> {
    server_url("VIEWSET_TEST_PG_URL", "VIEWSET_REQUIRE_PG")
}

/// `VIEWSET_TEST_MYSQL_URL` (`mysql://root@127.0.0.1:3306`); `VIEWSET_REQUIRE_MYSQL=1` (as in CI) makes a test that
/// needs it fail instead of skipping.
pub fn mysql_url() -> Option<String> {
    server_url("VIEWSET_TEST_MYSQL_URL", "VIEWSET_REQUIRE_MYSQL")
}

/// The server URL in `var` (without a trailing `/`); without one, a panic when `require` is `1`, else a skip notice.
fn server_url(var: &str, require: &str) -> Option<String> {
    let url = std::env::var(var).ok().filter(|u| !u.is_empty());
    if url.is_none() {
        let required = std::env::var(require).is_ok_and(|v| v == "1");
        assert!(!required, "{require}=1, but {var} is not set: this test would have been skipped");
        eprintln!("skipped: {var} is not set, so this test did not run ({require}=1 fails instead)");
    }
    url.map(|u| u.trim_end_matches('/').to_string())
}
