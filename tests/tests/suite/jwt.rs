//! The blog with `SERVICE_JWT_*` against a real OpenID provider: npm `oidc-provider` (OpenID Certified), started by
//! each test on a loopback port from `tests/oidc/` (`npm ci` there once when `node_modules` is missing). Its tokens
//! admit the blog's staff-only write; hostile tokens are clear 401s; a flood of forged `kid`s does not hammer it;
//! it may be down at start (503 + `Retry-After`, then tokens work once it answers), go down later (the last good
//! keys serve) and rotate its keys while requests are in flight. Without Node.js and npm the tests are skipped with a
//! note, or fail when `VIEWSET_REQUIRE_OIDC=1` (as in CI).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use viewset_core::prelude::*;
use viewset_tests::every_database::skip_unless_required;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;

const AUDIENCE: &str = "https://blog.example";

on_every_database!(not_mysql("the verifier does not touch the database: SQLite and PostgreSQL are enough"), setup =>
    a_provider_token_admits_the_staff_only_write,
    a_token_without_the_scope_is_a_403_insufficient_scope,
    hostile_tokens_are_clear_401s,
    a_kid_flood_fetches_the_keys_at_most_once,
    rotation_keeps_tokens_of_published_keys_working,
    a_provider_down_at_start_is_a_503_until_it_answers,
);

/// The blog's posts again, for callers whose token grants `posts:write`.
#[derive(ModelViewSet)]
#[viewset(model = blog::entities::post::Entity, prefix = "/scoped/posts", basename = "scoped", permission_classes = [IsAuthenticated, HasScope("posts:write")])]
pub struct ScopedPosts;

/// A running provider (killed when dropped).
pub(crate) struct Oidc {
    child: Child,
    pub(crate) issuer: String,
    http: reqwest::Client,
}

impl Drop for Oidc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn provider_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("oidc")
}

/// Whether Node.js and npm run here, with the provider's packages installed (`npm ci` once per process); a note
/// (or a panic with `VIEWSET_REQUIRE_OIDC=1`) when they do not.
pub(crate) fn node_ready() -> bool {
    static READY: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    let ready = READY.get_or_init(|| {
        let runs = |program: &str| Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success());
        if !runs("node") || !runs("npm") {
            return Err("node or npm is not installed".into());
        }
        if !provider_dir().join("node_modules/oidc-provider").exists() {
            let npm = Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(provider_dir()).output();
            match npm {
                Ok(output) if output.status.success() => {}
                Ok(output) => return Err(format!("npm ci failed: {}", String::from_utf8_lossy(&output.stderr))),
                Err(error) => return Err(format!("npm ci did not run: {error}")),
            }
        }
        Ok(())
    });
    match ready {
        Ok(()) => true,
        Err(why) => {
            skip_unless_required("VIEWSET_REQUIRE_OIDC", &format!("{why} (the real OpenID provider's tests)"));
            false
        }
    }
}

impl Oidc {
    /// Starts the provider on `port` (0: a free one) with these environment variables (`MCP_RESOURCE`: the MCP
    /// endpoint it issues tokens for, `mcp_oauth.rs`) and waits until it listens.
    pub(crate) async fn start_with(port: u16, env: &[(&str, &str)]) -> Oidc {
        let mut child = Command::new("node")
            .arg("provider.js")
            .arg(port.to_string())
            .envs(env.iter().copied())
            .current_dir(provider_dir())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start node provider.js");
        let stdout = child.stdout.take().expect("stdout");
        let line = tokio::task::spawn_blocking(move || {
            let mut line = String::new();
            BufReader::new(stdout).read_line(&mut line).map(|_| line)
        });
        let line = line.await.expect("join").expect("read the provider's first line");
        let issuer = line.trim().strip_prefix("ready ").unwrap_or_else(|| panic!("not ready: {line:?}")).to_string();
        Oidc { child, issuer, http: reqwest::Client::new() }
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        let response = sent(self.http.post(format!("{}{path}", self.issuer)).json(&body)).await;
        assert!(response.status().is_success(), "{path}: {}", response.status());
        body_of(response).await
    }

    /// A `client_credentials` access token of `client` (`staff` or `reader`) for `resource`, granting
    /// `posts:write`.
    async fn token(&self, client: &str, resource: &str) -> String {
        self.token_with_scope(client, resource, "posts:write").await
    }

    /// [`Oidc::token`] granting `scope`.
    pub(crate) async fn token_with_scope(&self, client: &str, resource: &str, scope: &str) -> String {
        let form = [("grant_type", "client_credentials"), ("scope", scope), ("resource", resource)];
        let request = self
            .http
            .post(format!("{}/token", self.issuer))
            .basic_auth(client, Some(format!("{client}-secret")))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish());
        let body = body_of(sent(request).await).await;
        body["access_token"].as_str().unwrap_or_else(|| panic!("no access token: {body}")).to_string()
    }

    /// A token signed by the provider's current key with these claims (and header fields).
    async fn sign(&self, claims: Value, header: Value) -> String {
        self.post("/__sign", json!({"claims": claims, "header": header})).await["token"].as_str().unwrap().to_string()
    }

    /// The claims of a valid staff token, for [`Oidc::sign`] to change.
    fn claims(&self) -> Value {
        let now = chrono::Utc::now().timestamp();
        json!({"sub": "mallory", "iss": self.issuer, "aud": AUDIENCE, "iat": now, "exp": now + 300,
               "https://blog.example/staff": true})
    }

    async fn jwks_fetches(&self) -> u64 {
        let stats = sent(self.http.get(format!("{}/__stats", self.issuer))).await;
        body_of(stats).await["jwks_fetches"].as_u64().unwrap()
    }
}

/// The blog on `backend` with the `SERVICE_JWT_*` settings of a provider at `issuer` (and `extra` ones).
async fn blog(backend: Backend, issuer: &str, extra: &[(&str, &str)]) -> TestApp {
    Box::pin(blog_of(blog::api(), backend, issuer, extra)).await
}

/// [`blog`] serving `api`.
async fn blog_of(api: Api, backend: Backend, issuer: &str, extra: &[(&str, &str)]) -> TestApp {
    let mut vars: HashMap<String, String> = [
        ("SERVICE_JWT_ISSUER", issuer),
        ("SERVICE_JWT_AUDIENCE", AUDIENCE),
        ("SERVICE_JWT_STAFF_CLAIM", "https://blog.example/staff"),
        ("SERVICE_JWT_TENANT_CLAIM", "https://blog.example/tenant"),
        ("SERVICE_JWT_ROLES_CLAIMS", "realm_access.roles"),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value.to_string()))
    .collect();
    vars.extend(extra.iter().map(|(name, value)| (name.to_string(), value.to_string())));
    let auth = blog::auth::layer_from_vars(|name| vars.get(name).cloned()).expect("valid SERVICE_JWT_* settings");
    let (database, db) = TestDb::seeded_blog(backend).await;
    TestApp::serve(blog::app_with_auth(api, ServiceState::new(db.clone()), auth), db, database).await
}

/// A boxed future: a scenario's future would otherwise nest reqwest's types past the compiler's query depth (its
/// layout, when the whole workspace's features are on).
type Boxed<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>;

/// `request` sent.
fn sent(request: reqwest::RequestBuilder) -> Boxed<reqwest::Response> {
    Box::pin(async move { request.send().await.expect("request") })
}

/// `response`'s JSON body.
fn body_of(response: reqwest::Response) -> Boxed<Value> {
    Box::pin(async move { response.json().await.expect("a JSON body") })
}

/// A test's provider and backend; `None` when Node.js is missing (the test was skipped).
struct Setup {
    oidc: Oidc,
    backend: Backend,
}

async fn setup(backend: Backend) -> Option<Setup> {
    if !node_ready() {
        return None;
    }
    Some(Setup { oidc: Oidc::start_with(0, &[]).await, backend })
}

/// `GET /authors/` (identity required) with `token`: status, headers and JSON body.
async fn authors(app: &TestApp, token: &str) -> (StatusCode, HeaderMap, Value) {
    let response = sent(app.client().get(format!("{}/authors/", app.base)).bearer_auth(token)).await;
    let (status, headers) = (response.status(), response.headers().clone());
    (status, headers, body_of(response).await)
}

async fn a_provider_token_admits_the_staff_only_write(setup: Option<Setup>) {
    let Some(Setup { oidc, backend }) = setup else { return };
    let app = blog(backend, &oidc.issuer, &[]).await;
    let staff = oidc.token("staff", AUDIENCE).await;
    let write = r#"{"name": "Grace", "email": "grace@example.com"}"#;
    let (status, created) = app.send(reqwest::Method::POST, "/authors/", Some(&staff), Some(write)).await;
    assert_eq!((status, created["email"].as_str()), (StatusCode::CREATED, Some("grace@example.com")), "{created}");
    let reader = oidc.token("reader", AUDIENCE).await;
    let (status, _, listed) = authors(&app, &reader).await;
    assert_eq!(status, StatusCode::OK, "a valid token of a non-staff client is a signed-in caller");
    let (status, refused) = app.send(reqwest::Method::POST, "/authors/", Some(&reader), Some(write)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "email is staff-only: {refused} {listed}");
    assert_eq!(refused["detail"][0]["loc"], json!(["body", "email"]));
}

async fn a_token_without_the_scope_is_a_403_insufficient_scope(setup: Option<Setup>) {
    let Some(Setup { oidc, backend }) = setup else { return };
    let mut api = blog::api();
    api.include::<ScopedPosts>().expect("registers");
    let app = Box::pin(blog_of(api, backend, &oidc.issuer, &[])).await;
    let get = |token: String| {
        let request = app.client().get(format!("{}/scoped/posts/", app.base)).bearer_auth(token);
        async move {
            let response = sent(request).await;
            let (status, headers) = (response.status(), response.headers().clone());
            (status, headers, body_of(response).await)
        }
    };
    let (status, _, body) = get(oidc.token_with_scope("reader", AUDIENCE, "posts:read posts:write").await).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, headers, body) = get(oidc.token_with_scope("staff", AUDIENCE, "posts:read").await).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::FORBIDDEN, Some("insufficient_scope")), "{body}");
    let challenge = &headers["www-authenticate"];
    assert_eq!(
        challenge, r#"Bearer error="insufficient_scope", scope="posts:write""#,
        "staff or not, the scope decides"
    );
}

async fn hostile_tokens_are_clear_401s(setup: Option<Setup>) {
    let Some(Setup { oidc, backend }) = setup else { return };
    let app = blog(backend, &oidc.issuer, &[]).await;
    let valid = oidc.token("staff", AUDIENCE).await;
    assert_eq!(authors(&app, &valid).await.0, StatusCode::OK);
    let (_, payload, _) = {
        let mut parts = valid.split('.');
        (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap())
    };
    let none_header = "eyJhbGciOiJub25lIiwidHlwIjoiYXQrand0In0"; // {"alg":"none","typ":"at+jwt"}
    // The reader's claims under the staff token's header and signature.
    let reader = oidc.token("reader", AUDIENCE).await;
    let tampered = format!(
        "{}.{}.{}",
        valid.split('.').next().unwrap(),
        reader.split('.').nth(1).unwrap(),
        valid.rsplit('.').next().unwrap()
    );
    let mut expired = oidc.claims();
    expired["exp"] = json!(chrono::Utc::now().timestamp() - 3600);
    let mut other_issuer = oidc.claims();
    other_issuer["iss"] = json!("http://127.0.0.1:1");
    let cases: Vec<(&str, String, &str)> = vec![
        ("alg none", format!("{none_header}.{payload}."), "unsigned"),
        (
            "HS256 signed with the RSA public key",
            oidc.post("/__hs256", json!({"claims": oidc.claims()})).await["token"].as_str().unwrap().to_string(),
            "does not sign with HS256",
        ),
        ("expired", oidc.sign(expired, json!({})).await, "expired"),
        ("another issuer", oidc.sign(other_issuer, json!({})).await, "another issuer"),
        ("another audience", oidc.token("staff", "https://other.example").await, "another audience"),
        ("a tampered payload", tampered, "signature is invalid"),
        ("an unknown key", oidc.sign(oidc.claims(), json!({"kid": "forged"})).await, "signing key is unknown"),
        ("oversized", format!("{}.{}.{}", "e".repeat(4000), "e".repeat(4000), "e".repeat(4000)), "too large"),
        ("malformed base64", "eyJhbGciOi!!!.eyJzdWIi.c2ln".to_string(), "malformed"),
        ("not a JWT", "alice-token".to_string(), "malformed"),
    ];
    for (case, token, check) in cases {
        let (status, headers, body) = authors(&app, &token).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (StatusCode::UNAUTHORIZED, Some("invalid_token")),
            "{case}: {body}"
        );
        let challenge = headers["www-authenticate"].to_str().unwrap();
        assert!(
            challenge.starts_with(r#"Bearer error="invalid_token""#) && challenge.contains(check),
            "{case}: {challenge}"
        );
        let (detail, tail) = (body["detail"].as_str().unwrap(), &token[token.len().saturating_sub(16)..]);
        assert!(!detail.contains(tail) && !challenge.contains(tail), "{case}: the token is never echoed");
    }
    assert_eq!(authors(&app, &valid).await.0, StatusCode::OK, "the valid token still passes");
    let (status, _) = app.get("/api/posts/").await;
    assert_eq!(status, StatusCode::OK, "no token: anonymous, as before");
}

async fn a_kid_flood_fetches_the_keys_at_most_once(setup: Option<Setup>) {
    let Some(Setup { oidc, backend }) = setup else { return };
    // The default interval between fetches (10 s) is far longer than the flood lasts.
    let app = blog(backend, &oidc.issuer, &[]).await;
    let valid = oidc.token("staff", AUDIENCE).await;
    assert_eq!(authors(&app, &valid).await.0, StatusCode::OK);
    assert_eq!(oidc.jwks_fetches().await, 1, "the first token fetched the keys once");
    let mut forged = Vec::new();
    for n in 0..40 {
        forged.push(oidc.sign(oidc.claims(), json!({"kid": format!("forged-{n}")})).await);
    }
    let answers = futures_join(forged.iter().map(|token| authors(&app, token))).await;
    for (status, _, body) in answers {
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
        assert!(body["detail"].as_str().unwrap().contains("unknown"), "{body}");
    }
    let fetches = oidc.jwks_fetches().await;
    assert!(fetches <= 2, "40 forged kids made {fetches} fetches; at most one more than the first is allowed");
    assert_eq!(authors(&app, &valid).await.0, StatusCode::OK);
}

/// Awaits every future concurrently on this task (the server runs on tasks of its own).
async fn futures_join<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut pinned: Vec<_> = futures.map(Box::pin).collect();
    let mut done: Vec<Option<F::Output>> = pinned.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (slot, future) in done.iter_mut().zip(pinned.iter_mut()) {
            if slot.is_none() {
                match future.as_mut().poll(cx) {
                    std::task::Poll::Ready(output) => *slot = Some(output),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending { std::task::Poll::Pending } else { std::task::Poll::Ready(()) }
    })
    .await;
    done.into_iter().map(|output| output.expect("ready")).collect()
}

async fn rotation_keeps_tokens_of_published_keys_working(setup: Option<Setup>) {
    let Some(Setup { oidc, backend }) = setup else { return };
    // A new key is fetched as soon as a token names it (no interval), so the new key's tokens pass at once.
    let app = blog(backend, &oidc.issuer, &[("SERVICE_JWT_REFETCH_SECONDS", "0")]).await;
    let before = oidc.token("staff", AUDIENCE).await;
    assert_eq!(authors(&app, &before).await.0, StatusCode::OK);
    let in_flight = (0..20).map(|_| authors(&app, &before));
    let rotate_then_use = async {
        oidc.post("/__rotate", json!({})).await;
        let after = oidc.token("staff", AUDIENCE).await;
        assert_ne!(after.split('.').next(), before.split('.').next(), "signed by the new key");
        authors(&app, &after).await
    };
    let (answers, after) = tokio::join!(futures_join(in_flight), rotate_then_use);
    assert_eq!(after.0, StatusCode::OK, "the new key's token: {}", after.2);
    assert!(answers.iter().all(|(status, ..)| *status == StatusCode::OK), "a request in flight failed");
    assert_eq!(authors(&app, &before).await.0, StatusCode::OK, "the old key is still published");
    assert!(oidc.jwks_fetches().await >= 2, "the new kid fetched the keys again");
}

async fn a_provider_down_at_start_is_a_503_until_it_answers(setup: Option<Setup>) {
    let Some(Setup { oidc, backend }) = setup else { return };
    let token = oidc.token("staff", AUDIENCE).await;
    drop(oidc);
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let issuer = format!("http://127.0.0.1:{port}");
    let app = blog(backend, &issuer, &[("SERVICE_JWT_REFETCH_SECONDS", "1")]).await;
    let (status, headers, body) = authors(&app, &token).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, Some("identity_provider_unavailable"))
    );
    assert_eq!(headers["retry-after"], "1", "the next fetch is due within the 1 s interval");
    assert!(headers.get("www-authenticate").is_none(), "not a refusal of the token");
    // The provider comes up on that address: once the interval has passed, its tokens pass.
    let oidc = Oidc::start_with(port, &[]).await;
    let token = oidc.token("staff", AUDIENCE).await;
    let mut status = StatusCode::SERVICE_UNAVAILABLE;
    for _ in 0..40 {
        status = authors(&app, &token).await.0;
        if status != StatusCode::SERVICE_UNAVAILABLE {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
    assert_eq!(status, StatusCode::OK);
    // It goes down again: the last good keys still verify its tokens, an unknown key is still a 401.
    let forged = oidc.sign(oidc.claims(), json!({"kid": "forged"})).await;
    drop(oidc);
    assert_eq!(authors(&app, &token).await.0, StatusCode::OK, "the last good keys are kept");
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (status, _, body) = authors(&app, &forged).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(authors(&app, &token).await.0, StatusCode::OK, "still the last good keys");
}
