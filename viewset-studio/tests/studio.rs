//! The `viewset-studio` CLI against the running blog example (Studio mounted, SQLite). Named `studio` so that
//! `cargo test -p viewset-studio -p viewset-tests --test studio` runs it with the HTTP tests.

use std::process::{Command, Output};

use viewset_tests::studio_fixtures::{TOKEN, settings, sqlite_app, with_auth};

const BIN: &str = env!("CARGO_BIN_EXE_viewset-studio");

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
    let app = sqlite_app(with_auth()).await;
    let output = cli(&["handshake", "--url", &app.base, "--token", TOKEN]).await;
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.contains("Studio handshake with"), "{stdout}");
    assert!(stdout.contains("Project:      blog 0.2.0"), "{stdout}");
    assert!(stdout.contains("sqlite connected"), "{stdout}");
    assert!(stdout.contains("read_schema, read_data, write_data, read_migrations"), "{stdout}");

    let output =
        cli(&["handshake", "--url", &app.base, "--token", TOKEN, "--origin", "http://studio.local", "--json"]).await;
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("--json prints JSON");
    assert_eq!(json["protocol_version"], "1.0");
    assert_eq!(json["project"]["name"], "blog");
    assert_eq!(json["endpoints"].as_object().unwrap().len(), viewset_studio::ENDPOINTS.len());
}

#[tokio::test]
async fn endpoints_lists_urls() {
    let app = sqlite_app(with_auth()).await;
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
    let app = sqlite_app(with_auth()).await;
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

    let off = sqlite_app(settings(&[])).await;
    let output = cli(&["endpoints", "--url", &off.base]).await;
    assert!(text(&output).1.contains("Studio is not mounted"), "{:?}", text(&output));

    // A port nobody listens on.
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let output = cli(&["handshake", "--url", &format!("http://{free}")]).await;
    let (_, stderr) = text(&output);
    assert!(!output.status.success());
    assert!(stderr.contains("could not connect"), "{stderr}");
}
