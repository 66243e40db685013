//! `viewset new` end to end: the project it writes builds, passes its own test, starts on SQLite and answers over
//! HTTP as its README lines say; `--postgres`'s project compiles. The projects build in `target/starter` with the
//! workspace's `Cargo.lock` (the versions this repository is tested with). Needs `cargo` and `curl`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().unwrap()
}

/// A fresh directory outside the repository (a project inside it would belong to its workspace), emptied first and
/// removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
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

/// The project's server, killed when the test ends (also when an assertion fails).
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn new_project(name: &str, extra: &[&str], dir: &Path) -> PathBuf {
    let output =
        Command::new(env!("CARGO_BIN_EXE_viewset")).args(["new", name, "--dir"]).arg(dir).args(extra).output().unwrap();
    assert!(output.status.success(), "viewset new: {}", String::from_utf8_lossy(&output.stderr));
    let project = dir.join(name);
    std::fs::copy(repo().join("Cargo.lock"), project.join("Cargo.lock")).unwrap();
    project
}

fn cargo(project: &Path, args: &[&str]) {
    let status = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(project)
        .env("CARGO_TARGET_DIR", repo().join("target").join("starter"))
        .env_remove("DATABASE_URL")
        .status()
        .unwrap();
    assert!(status.success(), "cargo {args:?} in {}", project.display());
}

fn curl(args: &[&str]) -> serde_like::Json {
    let output = Command::new("curl").arg("-s").args(args).output().expect("curl is installed");
    assert!(output.status.success(), "curl {args:?}");
    serde_like::Json(String::from_utf8(output.stdout).unwrap())
}

/// Just enough of the answers to assert on, without a JSON dependency in this crate.
mod serde_like {
    #[derive(Debug)]
    pub struct Json(pub String);
    impl Json {
        pub fn has(&self, fragment: &str) -> bool {
            self.0.contains(fragment)
        }
    }
}

#[test]
fn the_sqlite_project_builds_tests_and_serves() {
    let dir = Scratch::new("sqlite");
    let project = new_project("demo-app", &[], &dir.0);
    // A second `new` with the same name refuses instead of overwriting.
    let again = Command::new(env!("CARGO_BIN_EXE_viewset")).args(["new", "demo-app", "--dir"]).arg(&dir.0).output();
    assert!(!again.unwrap().status.success());

    cargo(&project, &["build", "--quiet"]);
    cargo(&project, &["test", "--quiet"]);

    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let bind = format!("127.0.0.1:{port}");
    let mut server = Command::new(repo().join("target/starter/debug/demo-app"))
        .current_dir(&project)
        .env("BIND", &bind)
        .env("API_TOKEN", "change-me")
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(dir.0.join("server.log")).unwrap())
        .spawn()
        .unwrap();
    let stdout = server.stdout.take().unwrap();
    let _server = Server(server);
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first).unwrap();
    assert!(first.starts_with(&format!("listening on http://{bind}")), "{first:?}");

    let url = format!("http://{bind}/api/demo_app/");
    let list = curl(&["-w", " %{http_code}", &url]);
    assert!(list.has(r#""count":0"#) && list.0.ends_with(" 200"), "{list:?}");
    let json = "Content-Type: application/json";
    let created = curl(&[
        "-w",
        " %{http_code}",
        "-X",
        "POST",
        &url,
        "-H",
        json,
        "-H",
        "Authorization: Bearer change-me",
        "-d",
        r#"{"name":"first"}"#,
    ]);
    assert!(
        created.has(r#""name":"first""#) && created.has(r#""done":false"#) && created.0.ends_with(" 201"),
        "{created:?}"
    );
    let refused =
        curl(&["-w", " %{http_code}", "-X", "POST", &url, "-H", json, "-H", "Authorization: Bearer wrong", "-d", "{}"]);
    assert!(refused.has("invalid_token") && refused.0.ends_with(" 401"), "{refused:?}");
    let list = curl(&[&format!("{url}?search=fir")]);
    assert!(list.has(r#""count":1"#), "{list:?}");
}

#[test]
fn the_postgres_project_compiles() {
    let dir = Scratch::new("postgres");
    let project = new_project("pg-app", &["--postgres"], &dir.0);
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains(r#"features = ["postgres", "docs"]"#) && manifest.contains("sqlx-postgres"),
        "{manifest}"
    );
    cargo(&project, &["check", "--quiet", "--all-targets"]);
}
