//! `SERVICE_LOG_FORMAT=json` (issue 73): the blog writes one JSON object a line, among them one line per request
//! (target `viewset::access`) with its operation, status, latency and request id, and none of the secrets its
//! requests carried: a bearer token, a cookie, an `Idempotency-Key`, a password in a body.

use std::process::Stdio;

use reqwest::StatusCode;
use serde_json::Value;
use viewset_tests::identities::blog::BOB;

use crate::support::observed::blog;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_have_a_line_per_request_and_no_secret() {
    // `RUST_LOG=info`: the blog's own default level (the instance binary's is `warn`).
    let blog = blog(&[("SERVICE_LOG_FORMAT", "json"), ("RUST_LOG", "info")], Stdio::piped()).await;
    let client = reqwest::Client::new();
    let token = BOB.expect("Bob's token");
    let (cookie, key, password) = ("cookie-secret-5d1f", "idempotency-secret-77ab", "password-secret-c0ffee");
    let create = client
        .post(format!("{}/api/posts/", blog.base))
        .bearer_auth(token)
        .header("cookie", format!("blog_session={cookie}"))
        .header("idempotency-key", key)
        .json(&serde_json::json!({"title": "logged", "body": "once", "author_id": 1}))
        .send()
        .await
        .expect("create");
    assert_eq!(create.status(), StatusCode::CREATED);
    let id = create.headers()["x-request-id"].to_str().expect("an id").to_string();
    // A password in a body the blog refuses (no such field), and in one it reads as a post's field.
    let refused = client
        .post(format!("{}/api/posts/", blog.base))
        .bearer_auth(token)
        .header("cookie", format!("blog_session={cookie}"))
        .json(&serde_json::json!({"title": "x", "body": "y", "author_id": 1, "password": password}))
        .send()
        .await
        .expect("create with a password");
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let retrieve = client
        .get(format!("{}/api/posts/1", blog.base))
        .bearer_auth(token)
        .header("cookie", format!("blog_session={cookie}"))
        .send()
        .await
        .expect("retrieve");
    assert_eq!(retrieve.status(), StatusCode::OK);
    // A token the blog does not know (read as anonymous).
    let unknown = client.get(format!("{}/api/posts/", blog.base)).bearer_auth("not-a-token-secret-9e").send().await;
    assert_eq!(unknown.expect("an unknown token").status(), StatusCode::OK);

    let output = blog.output();
    let lines: Vec<Value> = output
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}")))
        .collect();
    let access: Vec<&Value> = lines.iter().filter(|line| line["target"] == "viewset::access").collect();
    assert_eq!(access.len(), 4, "one line per request:\n{output}");
    let line = access.iter().find(|line| line["request_id"] == id.as_str()).expect("the create's line");
    assert_eq!(
        (&line["operation"], &line["status"], &line["method"]),
        (&"posts_create".into(), &201.into(), &"POST".into())
    );
    assert!(line["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0), "{line}");
    let operations: Vec<_> = access.iter().map(|line| (line["operation"].clone(), line["status"].clone())).collect();
    assert_eq!(
        operations,
        [("posts_create", 201), ("posts_create", 422), ("posts_retrieve", 200), ("posts_list", 200)]
            .map(|(operation, status)| (Value::from(operation), Value::from(status)))
    );
    for secret in [token, cookie, key, password, "not-a-token-secret-9e"] {
        assert!(!output.contains(secret), "a log line holds the secret {secret}:\n{output}");
    }
}
