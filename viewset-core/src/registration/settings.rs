//! Application settings shared by registration and Studio: the apps list, the environment and debug mode.

/// Settings from code or from the environment (`SERVICE_APPS` comma-separated, `SERVICE_ENVIRONMENT`,
/// `SERVICE_DEBUG`).
///
/// ```
/// let s = viewset_core::registration::Settings::from_vars([("SERVICE_APPS".to_string(), "posts, accounts".to_string())]);
/// assert_eq!(s.apps, vec!["posts", "accounts"]);
/// ```
///
/// It is `#[non_exhaustive]`: build it with [`Settings::with_apps`], [`Settings::from_env`] or
/// [`Settings::from_vars`], then change its fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// App labels, in order: each app's ViewSets live in `<app>::<module_name>` (default module `api`).
    pub apps: Vec<String>,
    /// `development`, `staging` or `production` (`SERVICE_ENVIRONMENT`; default development).
    pub environment: String,
    /// Debug mode (`SERVICE_DEBUG`).
    pub debug: bool,
}

impl Settings {
    /// Settings with these apps.
    pub fn with_apps<I: IntoIterator<Item = S>, S: Into<String>>(apps: I) -> Self {
        Settings { apps: apps.into_iter().map(Into::into).collect(), environment: "development".into(), debug: false }
    }

    /// Reads the process environment.
    pub fn from_env() -> Self {
        Self::from_vars(std::env::vars())
    }

    /// Reads the given variables.
    pub fn from_vars<I: IntoIterator<Item = (String, String)>>(vars: I) -> Self {
        let mut settings = Settings::with_apps(Vec::<String>::new());
        for (key, value) in vars {
            match key.as_str() {
                "SERVICE_APPS" => {
                    settings.apps =
                        value.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
                }
                "SERVICE_ENVIRONMENT" if !value.trim().is_empty() => settings.environment = value.trim().to_lowercase(),
                "SERVICE_DEBUG" => {
                    settings.debug = matches!(value.trim().to_lowercase().as_str(), "1" | "true" | "yes" | "on")
                }
                _ => {}
            }
        }
        settings
    }
}
