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
#[derive(Clone, PartialEq, Eq, Default)]
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
        if self.studio_require_auth && self.studio_auth_token.is_none() {
            return Err(SettingsError(
                "SERVICE_STUDIO_REQUIRE_AUTH is true but SERVICE_STUDIO_AUTH_TOKEN is not set".into(),
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
    }
}
