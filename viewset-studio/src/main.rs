//! `viewset-studio`: talks to the Studio endpoints of a running viewset application.
//!
//! ```text
//! viewset-studio handshake --url http://127.0.0.1:8000 [--token T] [--origin O] [--json]
//! viewset-studio endpoints --url http://127.0.0.1:8000 [--token T] [--origin O]
//! ```
//!
//! Its one request is a plain HTTP/1.1 `GET` (hyper's client connection; `http://` only), so the binary links no
//! HTTP client library of its own.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::header::{ACCEPT, AUTHORIZATION, HOST, ORIGIN};
use hyper::{Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use viewset_studio::Handshake;
use viewset_studio::paths::{HANDSHAKE, STUDIO_PATHS};

#[derive(Parser)]
#[command(name = "viewset-studio", version, about = "Talk to the Studio endpoints of a running viewset app")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args)]
struct Target {
    /// Base URL of the running application.
    #[arg(long, default_value = "http://127.0.0.1:8000")]
    url: String,
    /// Studio bearer token (`SERVICE_STUDIO_AUTH_TOKEN`).
    #[arg(long, env = "SERVICE_STUDIO_AUTH_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Origin header to send (as a browser would).
    #[arg(long)]
    origin: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Performs `GET /studio/handshake` and prints it.
    Handshake {
        #[command(flatten)]
        target: Target,
        /// Print the JSON body instead of a summary.
        #[arg(long)]
        json: bool,
    },
    /// Prints the Studio endpoint URLs of a running app (after checking it answers the handshake).
    Endpoints {
        #[command(flatten)]
        target: Target,
    },
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Handshake { target, json } => fetch(&target).await.map(|(raw, parsed)| {
            if json { serde_json::to_string_pretty(&raw).unwrap_or_default() } else { readable(&target, &parsed) }
        }),
        Command::Endpoints { target } => fetch(&target).await.map(|(_, parsed)| endpoints(&target, &parsed)),
    };
    match result {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn base(target: &Target) -> String {
    target.url.trim_end_matches('/').to_string()
}

/// How long the whole handshake request may take.
const TIMEOUT: Duration = Duration::from_secs(15);

/// Why a `GET` got no answer.
enum Failure {
    /// The TCP connection failed (or the host name did not resolve).
    Connect,
    /// Anything after it (the URL, the HTTP exchange, the body).
    Other(String),
}

/// `GET url` with `headers` over one HTTP/1.1 connection: the status and the body as text.
async fn get(url: &str, headers: &[(hyper::header::HeaderName, String)]) -> Result<(StatusCode, String), Failure> {
    let uri: Uri = url.parse().map_err(|e| Failure::Other(format!("invalid URL: {e}")))?;
    if uri.scheme_str() != Some("http") {
        return Err(Failure::Other("only http:// URLs are supported".into()));
    }
    let authority = uri.authority().ok_or_else(|| Failure::Other("the URL has no host".into()))?.clone();
    let address = match authority.port_u16() {
        Some(_) => authority.to_string(),
        None => format!("{authority}:80"),
    };
    let stream = tokio::net::TcpStream::connect(address).await.map_err(|_| Failure::Connect)?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| Failure::Other(e.to_string()))?;
    tokio::spawn(connection);
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let mut request = Request::get(path).header(HOST, authority.as_str());
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let request = request.body(Empty::<Bytes>::new()).map_err(|e| Failure::Other(e.to_string()))?;
    let response = sender.send_request(request).await.map_err(|e| Failure::Other(e.to_string()))?;
    let status = response.status();
    let body = response.into_body().collect().await.map_err(|e| Failure::Other(format!("reading the answer: {e}")))?;
    Ok((status, String::from_utf8_lossy(&body.to_bytes()).into_owned()))
}

async fn fetch(target: &Target) -> Result<(serde_json::Value, Handshake), String> {
    let url = format!("{}{HANDSHAKE}", base(target));
    let mut headers = vec![(ACCEPT, "application/json".to_string())];
    if let Some(token) = &target.token {
        headers.push((AUTHORIZATION, format!("Bearer {token}")));
    }
    if let Some(origin) = &target.origin {
        headers.push((ORIGIN, origin.clone()));
    }
    let (status, body) = match tokio::time::timeout(TIMEOUT, get(&url, &headers)).await {
        Err(_) => return Err(format!("{url} did not answer within 15 s")),
        Ok(Err(Failure::Connect)) => {
            return Err(format!(
                "could not connect to {} (connection refused or unreachable): is the app running?",
                base(target)
            ));
        }
        Ok(Err(Failure::Other(e))) => return Err(format!("request to {url} failed: {e}")),
        Ok(Ok(answer)) => answer,
    };
    let detail = || {
        serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["detail"].as_str().map(str::to_string))
            .unwrap_or_default()
    };
    match status {
        StatusCode::OK => {}
        StatusCode::UNAUTHORIZED => {
            let hint = if target.token.is_some() { "the token was refused" } else { "no token was given (--token)" };
            return Err(format!("401 Unauthorized from {url}: {hint}. {}", detail()));
        }
        StatusCode::FORBIDDEN => {
            return Err(format!(
                "403 Forbidden from {url}: the Origin {} is not in SERVICE_STUDIO_ALLOWED_ORIGINS. {}",
                target.origin.as_deref().unwrap_or("(none)"),
                detail()
            ));
        }
        StatusCode::NOT_FOUND => {
            return Err(format!(
                "404 Not Found at {url}: Studio is not mounted (SERVICE_ENABLE_STUDIO is off, or production without SERVICE_STUDIO_EXPOSE_IN_PRODUCTION)"
            ));
        }
        other => return Err(format!("{other} from {url}: {body}")),
    }
    let raw: serde_json::Value =
        serde_json::from_str(&body).map_err(|e| format!("{url} answered with something that is not JSON: {e}"))?;
    let parsed: Handshake =
        serde_json::from_value(raw.clone()).map_err(|e| format!("{url} answered with an unexpected handshake: {e}"))?;
    Ok((raw, parsed))
}

fn readable(target: &Target, h: &Handshake) -> String {
    let p = &h.project;
    let d = &h.database;
    let mut out =
        format!("Studio handshake with {} (protocol {}, at {})\n", base(target), h.protocol_version, h.timestamp);
    out += &format!(
        "Project:      {} {} (viewset {}, Rust {}), environment {}, debug {}\n",
        p.name,
        p.version,
        p.service_version,
        p.rust_version,
        p.environment,
        if p.debug_mode { "on" } else { "off" }
    );
    let latency = d.latency_ms.map_or("-".to_string(), |l| format!("{l:.3} ms"));
    out += &format!(
        "Database:     {} {}, latency {latency}, pool {} ({} available){}\n",
        d.dialect,
        if d.connected { "connected" } else { "NOT connected" },
        d.pool_size,
        d.pool_available,
        d.last_error.as_ref().map_or(String::new(), |e| format!(", last error: {e}"))
    );
    out +=
        &format!("Capabilities: {}\n", if h.capabilities.is_empty() { "-".into() } else { h.capabilities.join(", ") });
    out += "Checksums:\n";
    for (name, value) in [
        ("schema", &h.checksums.schema_checksum),
        ("migrations", &h.checksums.migrations_checksum),
        ("settings", &h.checksums.settings_checksum),
        ("routes", &h.checksums.routes_checksum),
    ] {
        out += &format!("  {name:<12}{value}\n");
    }
    out.trim_end().to_string()
}

fn endpoints(target: &Target, h: &Handshake) -> String {
    let base = base(target);
    let mut out = String::from("Studio endpoints:\n");
    for path in STUDIO_PATHS {
        out += &format!("  {base}{path}\n");
    }
    out += "Endpoints announced by the handshake:\n";
    for (name, path) in &h.endpoints {
        out += &format!("  {name:<16}{base}{path}\n");
    }
    out.trim_end().to_string()
}
