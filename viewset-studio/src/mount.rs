//! Mounting a registered [`Studio`]: its state, the `/studio/` endpoints, the web UI and the `/ai` surface, all
//! behind the gate. The one place that knows every part; no part knows it.

use std::sync::Arc;

use axum::Router;
use sea_orm::DatabaseConnection;

use crate::gate::Gate;
#[cfg(feature = "jwt")]
use crate::gate::mcp_token::McpTokenGate;
use crate::gate::resource::{ResourceMetadata, checked_url};
use crate::settings::{Environment, SettingsError};
use crate::studio::Studio;
use crate::studio::state::Inner;

impl Studio {
    /// The Studio and `/ai` routes, or `None` when the settings keep Studio off. Unsafe settings are an error.
    /// `app` is the application's router: AI tool calls and queries are requests to it, as the caller.
    pub fn router(self, app: Router, db: DatabaseConnection) -> Result<Option<Router>, SettingsError> {
        self.settings.validate()?;
        if !self.settings.should_mount() {
            return Ok(None);
        }
        if self.settings.environment != Environment::Development
            && self.settings.studio_allowed_origins.iter().any(|o| o == "*")
        {
            tracing::warn!(
                "SERVICE_STUDIO_ALLOWED_ORIGINS=* lets every origin use Studio; it is meant for development"
            );
        }
        if !self.settings.studio_require_auth {
            tracing::warn!("Studio is mounted without authentication (SERVICE_STUDIO_REQUIRE_AUTH is false)");
        }
        let generator = crate::ai::generator(&self)?;
        let public_url =
            self.public_url.as_deref().map(|url| checked_url("Studio::public_url", url, true)).transpose()?;
        let authorization_servers = self
            .authorization_servers
            .iter()
            .map(|url| checked_url("Studio::authorization_servers", url, false))
            .collect::<Result<Vec<_>, _>>()?;
        #[cfg(feature = "jwt")]
        let mcp_tokens = match self.mcp_tokens.clone() {
            Some(tokens) => Some(Arc::new(McpTokenGate::new(tokens, public_url.as_deref())?)),
            None => None,
        };
        #[cfg(feature = "jwt")]
        if mcp_tokens.is_some() && !self.settings.studio_require_auth {
            tracing::warn!("Studio::mcp_tokens without SERVICE_STUDIO_REQUIRE_AUTH: /ai/tools/mcp takes no credential");
        }
        #[cfg(feature = "jwt")]
        let mcp_scope = mcp_tokens.as_ref().and_then(|tokens| tokens.scope());
        #[cfg(not(feature = "jwt"))]
        let mcp_scope: Option<String> = None;
        let metadata = Arc::new(ResourceMetadata {
            require_auth: self.settings.studio_require_auth,
            authorization_servers,
            public_url: public_url.clone(),
            project: self.name.clone(),
            scopes_supported: mcp_scope.iter().flat_map(|s| s.split(' ').map(str::to_string)).collect(),
        });
        let staff_session = self.staff_session.clone();
        let mut gate = Gate::new(&self.settings, staff_session, crate::ui::sign_in_page, public_url);
        gate.mcp_scope = mcp_scope;
        #[cfg(feature = "jwt")]
        {
            gate.mcp_tokens = mcp_tokens;
        }
        let gate = Arc::new(gate);
        let studio_token = self.settings.studio_auth_token.clone();
        let project = self.name.clone();
        let tools = crate::ai::tools(&self);
        let resources = crate::ai::resources(&self, &tools);
        let inner = Arc::new(Inner::new(self, db, tools.len() as u64, crate::ai::offers_query(&tools)));
        let ai = Arc::new(crate::ai::AiState { tools, resources, inner: inner.clone(), app, studio_token, project });
        let router = crate::studio::handlers::routes(inner.clone())
            .merge(crate::studio::webhook_routes(inner.clone()))
            .merge(crate::ui::routes(inner))
            .merge(crate::ai::routes(ai))
            .merge(generator)
            .merge(crate::gate::resource::routes(metadata))
            .layer(axum::middleware::from_fn_with_state(gate, crate::gate::check));
        Ok(Some(router))
    }

    /// `app` with the Studio routes merged in when the settings mount Studio; `app` unchanged otherwise.
    pub fn mount(self, app: Router, db: DatabaseConnection) -> Result<Router, SettingsError> {
        Ok(match self.router(app.clone(), db)? {
            Some(studio) => app.merge(studio),
            None => app,
        })
    }
}
