//! One request of each kind before the load: every server must give the same answers.

use serde_json::{Value, json};

use super::Sanity;
use super::workload::{Family, LIST_PATH, LIST_QUERY, Spec};

pub(super) fn create_body() -> Value {
    json!({"title": "Benchmark post", "body": "Written by the load generator.", "author_id": 1, "views": 3})
}

pub(super) fn detail_path(uuid: bool, i: u64) -> String {
    if uuid { format!("/api/posts/00000000-0000-0000-0000-{i:012x}") } else { format!("/api/posts/{i}") }
}

pub(super) async fn get_json(client: &reqwest::Client, url: &str) -> Result<(u16, Value), String> {
    let r = client.get(url).header("Accept", "application/json").send().await.map_err(|e| e.to_string())?;
    let status = r.status().as_u16();
    let body = r.json::<Value>().await.unwrap_or(Value::Null);
    Ok((status, body))
}

pub(super) async fn send(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    token: bool,
    body: &Value,
) -> String {
    let mut req = client.request(method, url).header("Accept", "application/json").json(body);
    if token {
        req = req.header("Authorization", "Bearer bob-token");
    }
    match req.send().await {
        Ok(r) => r.status().as_u16().to_string(),
        Err(e) => format!("error: {e}"),
    }
}

/// One request of each kind, recorded (not asserted): the report shows them side by side.
pub(super) async fn check_basics(client: &reqwest::Client, base: &str, uuid: bool, sanity: &mut Sanity) {
    let list = format!("{base}{LIST_PATH}{LIST_QUERY}");
    match get_json(client, &list).await {
        Ok((status, body)) => {
            sanity.checks.push(("list".into(), status.to_string()));
            sanity.list_count = body.get("count").and_then(Value::as_u64);
            sanity.list_keys = body.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>().join(","));
        }
        Err(e) => sanity.checks.push(("list".into(), e)),
    }
    let detail = format!("{base}{}", detail_path(uuid, 1));
    let status = get_json(client, &detail).await.map(|(s, _)| s.to_string()).unwrap_or_else(|e| e);
    sanity.checks.push(("retrieve".into(), status));
    let patch = send(client, reqwest::Method::PATCH, &detail, true, &json!({"views": 42})).await;
    sanity.checks.push(("patch".into(), patch));
    let posts = format!("{base}/api/posts/");
    let create = send(client, reqwest::Method::POST, &posts, true, &create_body()).await;
    sanity.checks.push(("create".into(), create));
    let anonymous = send(client, reqwest::Method::POST, &posts, false, &create_body()).await;
    sanity.checks.push(("create without token".into(), anonymous));
}

/// Checks the deep offset page and walks the cursor pages (100 rows at a time) to the same depth; returns the
/// URL of the cursor page that starts at row `offset`, asking for 20 rows.
pub(super) async fn check_deep(
    client: &reqwest::Client,
    base: &str,
    spec: &Spec,
    offset: u64,
    sanity: &mut Sanity,
) -> Option<String> {
    let first_id = |body: &Value| {
        body.get("results").and_then(|r| r.get(0)).and_then(|r| r.get("id")).map(|v| v.to_string().replace('"', ""))
    };
    if let Ok((status, body)) = get_json(client, &format!("{base}/api/posts/?limit=20&offset={offset}")).await {
        sanity.checks.push(("deep offset".into(), status.to_string()));
        sanity.deep_offset_first = first_id(&body);
    }
    let python = matches!(spec.family, Family::Python { .. });
    let (start, size_param) =
        if python { ("/cursor/posts/?page_size=100", "page_size") } else { ("/cursor/posts/?limit=100", "limit") };
    let mut path = start.to_string();
    for _ in 0..offset / 100 {
        let (status, body) = match get_json(client, &format!("{base}{path}")).await {
            Ok(x) => x,
            Err(e) => {
                sanity.checks.push(("deep cursor".into(), e));
                return None;
            }
        };
        if status != 200 {
            sanity.checks.push(("deep cursor".into(), format!("{status} on {path}: {body}")));
            return None;
        }
        let next = if python {
            body.get("next_cursor")
                .and_then(Value::as_str)
                .map(|c| format!("/cursor/posts/?page_size=100&cursor={}", urlencode(c)))
        } else {
            body.get("next").and_then(Value::as_str).map(str::to_string)
        };
        match next {
            Some(n) => path = n,
            None => {
                sanity.checks.push(("deep cursor".into(), format!("no next link after {path}")));
                return None;
            }
        }
    }
    let deep = path.replacen(&format!("{size_param}=100"), &format!("{size_param}=20"), 1);
    match get_json(client, &format!("{base}{deep}")).await {
        Ok((status, body)) => {
            sanity.checks.push(("deep cursor".into(), status.to_string()));
            sanity.deep_cursor_first = first_id(&body);
        }
        Err(e) => sanity.checks.push(("deep cursor".into(), e)),
    }
    sanity.deep_cursor_url = Some(deep.clone());
    Some(deep)
}

pub(super) fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
