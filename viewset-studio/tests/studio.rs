//! The `viewset-studio` CLI against the running blog example (Studio mounted, SQLite). Named `studio` so that
//! `cargo test -p viewset-studio -p viewset-tests --test studio` runs it with the HTTP tests.

use std::process::{Command, Output};

use viewset_studio::StudioSettings;

const TOKEN: &str = "cli-test-token";
const BIN: &str = env!("CARGO_BIN_EXE_viewset-studio");

struct Running {
    base: String,
    server: tokio::task::JoinHandle<()>,
    file: std::path::PathBuf,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.server.abort();
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.file.display()));
        }
    }
}

async fn blog(vars: &[(&str, &str)]) -> Running {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let file = std::env::temp_dir().join(format!("viewset_studio_cli_{}_{nanos}.db", std::process::id()));
    let db = blog::connect_and_migrate(&format!("sqlite://{}?mode=rwc", file.display())).await.unwrap();
    let settings = StudioSettings::from_vars(vars.iter().map(|(k, v)| (String::from(*k), String::from(*v)))).unwrap();
    let router = blog::mount_studio(blog::app(db.clone()), db, settings).unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let server = tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    Running { base, server, file }
}

fn with_auth() -> Vec<(&'static str, &'static str)> {
    vec![
        ("SERVICE_ENABLE_STUDIO", "true"),
        ("SERVICE_STUDIO_REQUIRE_AUTH", "true"),
        ("SERVICE_STUDIO_AUTH_TOKEN", TOKEN),
        ("SERVICE_STUDIO_ALLOWED_ORIGINS", "http://studio.local"),
    ]
}

/// Runs the CLI off the runtime's threads (the server keeps serving meanwhile).
async fn cli(args: &[&str]) -> Output {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        Command::new(BIN).args(&args).env_remove("SERVICE_STUDIO_AUTH_TOKEN").output().expect("run the CLI")
    })
    .await
    .unwrap()
}

fn text(output: &Output) -> (String, String) {
    (String::from_utf8_lossy(&output.stdout).into(), String::from_utf8_lossy(&output.stderr).into())
}

#[tokio::test]
async fn handshake_readable_and_json() {
    let app = blog(&with_auth()).await;
    let output = cli(&["handshake", "--url", &app.base, "--token", TOKEN]).await;
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("Studio handshake with"), "{stdout}");
    assert!(stdout.contains("Project:      blog 0.1.0"), "{stdout}");
    assert!(stdout.contains("sqlite connected"), "{stdout}");
    assert!(stdout.contains("read_schema, read_data, write_data, read_migrations"), "{stdout}");

    let output =
        cli(&["handshake", "--url", &app.base, "--token", TOKEN, "--origin", "http://studio.local", "--json"]).await;
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("--json prints JSON");
    assert_eq!(json["protocol_version"], "1.0");
    assert_eq!(json["project"]["name"], "blog");
    assert_eq!(json["endpoints"].as_object().unwrap().len(), 12);
}

#[tokio::test]
async fn endpoints_lists_urls() {
    let app = blog(&with_auth()).await;
    let output = cli(&["endpoints", "--url", &format!("{}/", app.base), "--token", TOKEN]).await;
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    for path in viewset_studio::STUDIO_PATHS {
        assert!(stdout.contains(&format!("{}{path}", app.base)), "{path} in {stdout}");
    }
    assert!(stdout.contains(&format!("{}/ai/context/full", app.base)), "{stdout}");
}

#[tokio::test]
async fn clear_errors_for_401_403_404_and_refused() {
    let app = blog(&with_auth()).await;
    for args in [vec!["--token", "wrong"], vec![]] {
        let mut all = vec!["handshake", "--url", app.base.as_str()];
        all.extend(args.iter());
        let output = cli(&all).await;
        let (_, stderr) = text(&output);
        assert!(!output.status.success());
        assert!(stderr.contains("401 Unauthorized"), "{stderr}");
    }
    let output = cli(&["handshake", "--url", &app.base, "--token", TOKEN, "--origin", "http://evil.example"]).await;
    let (_, stderr) = text(&output);
    assert!(!output.status.success());
    assert!(stderr.contains("403 Forbidden") && stderr.contains("http://evil.example"), "{stderr}");

    let off = blog(&[]).await;
    let output = cli(&["endpoints", "--url", &off.base]).await;
    assert!(text(&output).1.contains("Studio is not mounted"), "{:?}", text(&output));

    // A port nobody listens on.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let output = cli(&["handshake", "--url", &format!("http://{free}")]).await;
    let (_, stderr) = text(&output);
    assert!(!output.status.success());
    assert!(stderr.contains("could not connect"), "{stderr}");
}
