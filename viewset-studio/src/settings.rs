//! Studio settings, from code or from the `SERVICE_*` environment variables, and the rules that decide whether
//! Studio may be mounted.

use std::collections::HashMap;

/// The deployment environment (`SERVICE_ENVIRONMENT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Environment {
    /// `development` (the default).
    #[default]
    Development,
    /// `staging`.
    Staging,
    /// `production`.
    Production,
}

impl Environment {
    /// The spec's name of the environment.
    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Development => "development",
            Environment::Staging => "staging",
            Environment::Production => "production",
        }
    }
}

crate::message_error::message_error! {
    /// A setting that cannot be used, found at start-up.
    SettingsError
}

/// Studio's settings. Every default keeps Studio off.
///
/// ```
/// use viewset_studio::StudioSettings;
/// let env = [("SERVICE_ENABLE_STUDIO", "true"), ("SERVICE_STUDIO_REQUIRE_AUTH", "true"), ("SERVICE_STUDIO_AUTH_TOKEN", "s3cret")];
/// let settings = StudioSettings::from_vars(env.iter().map(|(k, v)| (k.to_string(), v.to_string()))).unwrap();
/// assert!(settings.should_mount());
/// settings.validate().unwrap();
/// ```
///
/// It is `#[non_exhaustive]` (a setting added later is no breaking change): build it with
/// [`StudioSettings::from_env`], [`StudioSettings::from_vars`] or `StudioSettings::default()`, then change its fields.
#[derive(Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct StudioSettings {
    /// `SERVICE_ENABLE_STUDIO` (default false).
    pub enable_studio: bool,
    /// `SERVICE_STUDIO_SECRET_TOKEN`: secret for signing Studio sessions.
    pub studio_secret_token: Option<String>,
    /// `SERVICE_STUDIO_REQUIRE_AUTH` (default false in development; a production mount requires it).
    pub studio_require_auth: bool,
    /// `SERVICE_STUDIO_AUTH_TOKEN`: the bearer token Studio accepts.
    pub studio_auth_token: Option<String>,
    /// `SERVICE_STUDIO_ALLOWED_ORIGINS` (comma-separated; `*` allows all, development only).
    pub studio_allowed_origins: Vec<String>,
    /// `SERVICE_STUDIO_EXPOSE_IN_PRODUCTION` (default false).
    pub studio_expose_in_production: bool,
    /// `SERVICE_ENVIRONMENT`.
    pub environment: Environment,
    /// `SERVICE_DEBUG`.
    pub debug: bool,
    /// `SERVICE_AI_PROVIDER_URL`: an OpenAI-compatible server (`http://127.0.0.1:11434`) that `POST
    /// /ai/plan/preview` asks to turn a prompt into operations (`/v1/chat/completions` is appended unless the URL
    /// ends with `/chat/completions`). Unset: no prompt is accepted and nothing calls out.
    pub ai_provider_url: Option<String>,
    /// `SERVICE_AI_MODEL`: the provider's model (required with a provider URL).
    pub ai_model: Option<String>,
    /// `SERVICE_AI_API_KEY`: sent as `Authorization: Bearer` to the provider; a secret, never shown.
    pub ai_api_key: Option<String>,
}

impl std::fmt::Debug for StudioSettings {
    /// Secrets are never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden = |s: &Option<String>| s.as_ref().map(|_| "<set>");
        f.debug_struct("StudioSettings")
            .field("enable_studio", &self.enable_studio)
            .field("studio_secret_token", &hidden(&self.studio_secret_token))
            .field("studio_require_auth", &self.studio_require_auth)
            .field("studio_auth_token", &hidden(&self.studio_auth_token))
            .field("studio_allowed_origins", &self.studio_allowed_origins)
            .field("studio_expose_in_production", &self.studio_expose_in_production)
            .field("environment", &self.environment)
            .field("debug", &self.debug)
            .field("ai_provider_url", &self.ai_provider_url.as_ref().map(|_| "<set>"))
            .field("ai_model", &self.ai_model)
            .field("ai_api_key", &hidden(&self.ai_api_key))
            .finish()
    }
}

fn parse_bool(name: &str, raw: &str) -> Result<bool, SettingsError> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        other => Err(SettingsError(format!("{name} must be true or false, not `{other}`"))),
    }
}

impl StudioSettings {
    /// Reads the process environment.
    pub fn from_env() -> Result<Self, SettingsError> {
        Self::from_vars(std::env::vars())
    }

    /// Reads the given variables (for tests and embedding).
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Result<Self, SettingsError> {
        let vars: HashMap<String, String> = vars.into_iter().filter(|(k, _)| k.starts_with("SERVICE_")).collect();
        let flag = |name: &str| vars.get(name).map_or(Ok(false), |v| parse_bool(name, v));
        let text = |name: &str| vars.get(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let environment = match vars.get("SERVICE_ENVIRONMENT").map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("development") => Environment::Development,
            Some("staging") => Environment::Staging,
            Some("production") => Environment::Production,
            Some(other) => {
                return Err(SettingsError(format!(
                    "SERVICE_ENVIRONMENT must be development, staging or production, not `{other}`"
                )));
            }
        };
        Ok(StudioSettings {
            enable_studio: flag("SERVICE_ENABLE_STUDIO")?,
            studio_secret_token: text("SERVICE_STUDIO_SECRET_TOKEN"),
            studio_require_auth: flag("SERVICE_STUDIO_REQUIRE_AUTH")?,
            studio_auth_token: text("SERVICE_STUDIO_AUTH_TOKEN"),
            studio_allowed_origins: text("SERVICE_STUDIO_ALLOWED_ORIGINS")
                .map(|v| v.split(',').map(|o| o.trim().to_string()).filter(|o| !o.is_empty()).collect())
                .unwrap_or_default(),
            studio_expose_in_production: flag("SERVICE_STUDIO_EXPOSE_IN_PRODUCTION")?,
            environment,
            debug: flag("SERVICE_DEBUG")?,
            ai_provider_url: text("SERVICE_AI_PROVIDER_URL"),
            ai_model: text("SERVICE_AI_MODEL"),
            ai_api_key: text("SERVICE_AI_API_KEY"),
        })
    }

    /// Whether Studio is mounted: only when enabled, and in production only when also exposed there.
    pub fn should_mount(&self) -> bool {
        self.enable_studio && (self.environment != Environment::Production || self.studio_expose_in_production)
    }

    /// Misconfiguration that would open a door silently is a start-up error.
    pub fn validate(&self) -> Result<(), SettingsError> {
        if !self.should_mount() {
            return Ok(());
        }
        if let Some(url) = &self.ai_provider_url {
            if !url.starts_with("http://") {
                return Err(SettingsError(
                    "SERVICE_AI_PROVIDER_URL must start with http:// (this build has no TLS client: use a local \
                     provider, or a local proxy in front of a remote one)"
                        .into(),
                ));
            }
            if self.ai_model.is_none() {
                return Err(SettingsError("SERVICE_AI_PROVIDER_URL is set but SERVICE_AI_MODEL is not".into()));
            }
        }
        if self.studio_require_auth && self.studio_auth_token.is_none() {
            return Err(SettingsError(
                "SERVICE_STUDIO_REQUIRE_AUTH is true but SERVICE_STUDIO_AUTH_TOKEN is not set".into(),
            ));
        }
        // The secret signs Studio's session cookies (the UI's sign-in): a short one could be guessed offline.
        if self.studio_secret_token.as_ref().is_some_and(|s| s.len() < 16) {
            return Err(SettingsError(
                "SERVICE_STUDIO_SECRET_TOKEN signs Studio sessions and must be at least 16 characters (use 32 random \
                 ones)"
                    .into(),
            ));
        }
        if self.environment == Environment::Production {
            if !self.studio_require_auth {
                return Err(SettingsError(
                    "Studio is exposed in production without SERVICE_STUDIO_REQUIRE_AUTH=true".into(),
                ));
            }
            if self.studio_allowed_origins.iter().any(|o| o == "*") {
                return Err(SettingsError("SERVICE_STUDIO_ALLOWED_ORIGINS=* is for development only".into()));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> Result<StudioSettings, SettingsError> {
        StudioSettings::from_vars(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    #[test]
    fn off_by_default_even_in_debug() {
        let s = settings(&[("SERVICE_DEBUG", "true")]).unwrap();
        assert!(s.debug && !s.should_mount());
    }

    #[test]
    fn production_needs_both_flags_and_auth() {
        let base = [("SERVICE_ENVIRONMENT", "production"), ("SERVICE_ENABLE_STUDIO", "true")];
        assert!(!settings(&base).unwrap().should_mount());
        let exposed = settings(&[base[0], base[1], ("SERVICE_STUDIO_EXPOSE_IN_PRODUCTION", "true")]).unwrap();
        assert!(exposed.should_mount());
        assert!(exposed.validate().is_err(), "a production mount without auth is refused");
    }

    #[test]
    fn a_provider_needs_http_and_a_model() {
        let on = [("SERVICE_ENABLE_STUDIO", "true"), ("SERVICE_AI_PROVIDER_URL", "https://api.example.com")];
        assert!(settings(&on).unwrap().validate().unwrap_err().0.contains("http://"));
        let on = [("SERVICE_ENABLE_STUDIO", "true"), ("SERVICE_AI_PROVIDER_URL", "http://127.0.0.1:1")];
        assert!(settings(&on).unwrap().validate().unwrap_err().0.contains("SERVICE_AI_MODEL"));
        let with_model = [on[0], on[1], ("SERVICE_AI_MODEL", "m")];
        settings(&with_model).unwrap().validate().unwrap();
    }

    #[test]
    fn a_short_session_secret_is_refused() {
        let base = [("SERVICE_ENABLE_STUDIO", "1"), ("SERVICE_STUDIO_SECRET_TOKEN", "short")];
        assert!(settings(&base).unwrap().validate().unwrap_err().0.contains("at least 16"));
        let long = [("SERVICE_ENABLE_STUDIO", "1"), ("SERVICE_STUDIO_SECRET_TOKEN", "0123456789abcdef")];
        settings(&long).unwrap().validate().unwrap();
    }

    #[test]
    fn auth_without_token_is_refused() {
        let s = settings(&[("SERVICE_ENABLE_STUDIO", "1"), ("SERVICE_STUDIO_REQUIRE_AUTH", "yes")]).unwrap();
        assert!(s.validate().unwrap_err().0.contains("SERVICE_STUDIO_AUTH_TOKEN"));
    }

    #[test]
    fn bad_values_are_errors_and_secrets_are_not_printed() {
        assert!(settings(&[("SERVICE_ENABLE_STUDIO", "maybe")]).is_err());
        assert!(settings(&[("SERVICE_ENVIRONMENT", "prod")]).is_err());
        let s = settings(&[
            ("SERVICE_STUDIO_AUTH_TOKEN", "hunter2"),
            ("SERVICE_STUDIO_ALLOWED_ORIGINS", "http://a, http://b"),
        ])
        .unwrap();
        assert!(!format!("{s:?}").contains("hunter2"));
        assert_eq!(s.studio_allowed_origins, vec!["http://a", "http://b"]);
        let s = settings(&[("SERVICE_AI_API_KEY", "sk-secret"), ("SERVICE_AI_PROVIDER_URL", "http://u:p@h")]).unwrap();
        assert!(!format!("{s:?}").contains("sk-secret") && !format!("{s:?}").contains("u:p"));
    }
}
