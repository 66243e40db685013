//! The optional language-model provider: an OpenAI-compatible `POST /v1/chat/completions` asked to turn a prompt
//! into operations (the system prompt carries their JSON Schema and the project's entities and ViewSets). Its
//! answer is only a proposal: the endpoints validate it exactly like operations a client sends. Without
//! `SERVICE_AI_PROVIDER_URL` there is no provider and nothing calls out.

use std::time::Duration;

use serde_json::{Value, json};

use crate::settings::StudioSettings;

/// The whole call's time limit.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(30);
/// The largest answer read.
const MAX_ANSWER_BYTES: usize = 1 << 20;

/// A configured provider.
pub(crate) struct Provider {
    endpoint: String,
    model: String,
    api_key: Option<String>,
    client: reqwest::Client,
}

impl std::fmt::Debug for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Provider").field("model", &self.model).finish_non_exhaustive()
    }
}

/// The provider's URL completed to its chat-completions endpoint.
fn endpoint(url: &str) -> String {
    let url = url.trim_end_matches('/');
    if url.ends_with("/chat/completions") {
        url.to_string()
    } else if url.ends_with("/v1") {
        format!("{url}/chat/completions")
    } else {
        format!("{url}/v1/chat/completions")
    }
}

impl Provider {
    /// The provider the settings configure, if any (validated settings: an `http://` URL and a model).
    pub(crate) fn from_settings(settings: &StudioSettings) -> Option<Provider> {
        let url = settings.ai_provider_url.as_deref()?;
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .connect_timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .ok()?;
        Some(Provider {
            endpoint: endpoint(url),
            model: settings.ai_model.clone().unwrap_or_default(),
            api_key: settings.ai_api_key.clone(),
            client,
        })
    }

    /// The model's name.
    pub(crate) fn model(&self) -> &str {
        &self.model
    }

    /// Asks for the operations that do what `prompt` says in the project `project` (its description); answers
    /// the JSON array of operations the model proposed, unvalidated, or a message for a 502.
    pub(crate) async fn operations(&self, prompt: &str, project: &Value) -> Result<Value, String> {
        let schema = super::operations_json_schema();
        let system = format!(
            "You turn a developer's request into operations for the code generator of a Rust web project (sea-orm \
             entities served by viewset ViewSets). Answer with exactly one JSON object {{\"operations\": [...]}} \
             and nothing else: no prose, no code fences. It must validate against this JSON Schema:\n{schema}\n\
             Name only tables, ViewSets and fields that exist in the project or that an earlier operation creates. \
             The project:\n{project}"
        );
        let body = json!({
            "model": self.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
        });
        let mut request = self.client.post(&self.endpoint).json(&body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let mut response = request.send().await.map_err(|e| describe(&e))?;
        let status = response.status();
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e))? {
            bytes.extend_from_slice(&chunk);
            if bytes.len() > MAX_ANSWER_BYTES {
                return Err(format!("the provider's answer is larger than {MAX_ANSWER_BYTES} bytes"));
            }
        }
        if !status.is_success() {
            let text = String::from_utf8_lossy(&bytes);
            let excerpt: String = text.chars().take(300).collect();
            return Err(format!("the provider answered {status}: {excerpt}"));
        }
        let answer: Value =
            serde_json::from_slice(&bytes).map_err(|e| format!("the provider's answer is not JSON: {e}"))?;
        let content = answer
            .pointer("/choices/0/message/content")
            .and_then(Value::as_str)
            .ok_or("the provider's answer has no choices[0].message.content")?;
        operations_of(content)
    }
}

/// A transport error without the URL's credentials or the request (reqwest's own message can carry the URL).
fn describe(error: &reqwest::Error) -> String {
    let what = if error.is_timeout() {
        format!("did not answer within {} s", TIMEOUT.as_secs())
    } else if error.is_connect() {
        "could not be reached".to_string()
    } else {
        "failed".to_string()
    };
    format!("the provider (SERVICE_AI_PROVIDER_URL) {what}")
}

/// The operations of a model's message: `{"operations": [...]}` or a bare array, possibly in a code fence.
pub(crate) fn operations_of(content: &str) -> Result<Value, String> {
    let mut text = content.trim();
    if let Some(fenced) = text.strip_prefix("```") {
        let fenced = fenced.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        text = fenced.trim().strip_suffix("```").unwrap_or(fenced).trim();
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(mut object)) => match object.remove("operations") {
            Some(operations @ Value::Array(_)) => Ok(operations),
            _ => Err("the provider's JSON has no `operations` array".into()),
        },
        Ok(array @ Value::Array(_)) => Ok(array),
        Ok(_) => Err("the provider's JSON is not {\"operations\": [...]}".into()),
        Err(e) => Err(format!("the provider's message is not JSON: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_and_answers() {
        assert_eq!(endpoint("http://h:1"), "http://h:1/v1/chat/completions");
        assert_eq!(endpoint("http://h:1/v1/"), "http://h:1/v1/chat/completions");
        assert_eq!(endpoint("http://h/x/chat/completions"), "http://h/x/chat/completions");
        assert_eq!(operations_of("```json\n{\"operations\": [1]}\n```"), Ok(json!([1])));
        assert_eq!(operations_of("[2]"), Ok(json!([2])));
        assert!(operations_of("Sure! Here it is").is_err());
        assert!(operations_of("{\"ops\": []}").is_err());
    }
}
