//! Endpoints kept in the database (`viewset_webhook_endpoints`), so that an operator — or a tool such as Studio —
//! adds, changes or removes one without a deploy; [`Webhooks::with_stored`](super::Webhooks::with_stored) reads the
//! enabled ones when webhooks start (a change takes effect at the next start of each instance). Each row is the
//! endpoint's definition as JSON; its secrets are stored as given (they sign every message, so they cannot be
//! hashed): protect the table as you protect the database's other secrets.

use sea_orm::{ConnectionTrait, DatabaseConnection, TransactionTrait};
use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, string, text};
use serde::{Deserialize, Serialize};

use super::table::now_ms;
use super::{Endpoint, WebhookError};
use crate::access::Principal;

const ENDPOINTS: &str = "viewset_webhook_endpoints";

/// An endpoint as the database keeps it.
///
/// ```
/// use viewset_core::Principal;
/// use viewset_core::webhooks::{Secret, StoredEndpoint};
///
/// let mut stored = StoredEndpoint::new("crm", "https://crm.example.com/in", Secret::generate().as_str());
/// stored.viewsets.push("posts".into());
/// stored.run_as = Principal::user("crm");
/// assert_eq!(stored.endpoint().unwrap().name(), "crm");
/// stored.url = "not a url".into();
/// assert!(stored.endpoint().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct StoredEndpoint {
    /// Its name (letters, digits, `-`, `_`).
    pub name: String,
    /// Where messages are posted.
    pub url: String,
    /// `whsec_…` secrets: the first signs; two during a rotation.
    pub secrets: Vec<String>,
    /// The ViewSets (basenames) whose events it receives.
    pub viewsets: Vec<String>,
    /// The events (`created`, `updated`, `deleted`); empty: all three.
    pub events: Vec<String>,
    /// The list's query its records must match (`published=true`).
    pub filter: String,
    /// The principal deliveries run as.
    pub run_as: Principal,
    /// Whether it may reach loopback and private addresses.
    pub allow_private_addresses: bool,
    /// Whether webhooks start it.
    pub enabled: bool,
}

impl Default for StoredEndpoint {
    fn default() -> Self {
        StoredEndpoint {
            name: String::new(),
            url: String::new(),
            secrets: Vec::new(),
            viewsets: Vec::new(),
            events: Vec::new(),
            filter: String::new(),
            run_as: Principal::anonymous(),
            allow_private_addresses: false,
            enabled: true,
        }
    }
}

impl StoredEndpoint {
    /// An enabled endpoint named `name` posting to `url` signed with `secret`, anonymous, no ViewSet yet.
    pub fn new(name: &str, url: &str, secret: &str) -> StoredEndpoint {
        StoredEndpoint {
            name: name.to_owned(),
            url: url.to_owned(),
            secrets: vec![secret.to_owned()],
            ..StoredEndpoint::default()
        }
    }

    /// The [`Endpoint`] it defines; refused as [`Endpoint::new`] and its setters refuse.
    pub fn endpoint(&self) -> Result<Endpoint, WebhookError> {
        let (first, rotated) = self
            .secrets
            .split_first()
            .ok_or_else(|| WebhookError::Config(format!("endpoint `{}`: no secret", self.name)))?;
        let mut endpoint = Endpoint::new(&self.name, &self.url, first)?;
        for secret in rotated {
            endpoint = endpoint.rotate(secret)?;
        }
        for basename in &self.viewsets {
            endpoint = endpoint.viewset(basename);
        }
        if !self.events.is_empty() {
            endpoint = endpoint.events(self.events.iter().map(String::as_str));
        }
        if self.allow_private_addresses {
            endpoint = endpoint.allow_private_addresses();
        }
        Ok(endpoint.filter(&self.filter).run_as(self.run_as.clone()))
    }
}

/// Saves `stored` (replacing the endpoint of its name), after checking that it defines an endpoint.
pub async fn save_endpoint(db: &DatabaseConnection, stored: &StoredEndpoint) -> Result<(), WebhookError> {
    stored.endpoint()?;
    let definition = serde_json::to_string(stored).map_err(|e| WebhookError::Config(e.to_string()))?;
    let transaction = db.begin().await?;
    let delete = Query::delete()
        .from_table(Alias::new(ENDPOINTS))
        .and_where(Expr::col(Alias::new("name")).eq(stored.name.as_str()))
        .to_owned();
    transaction.execute(&delete).await?;
    let insert = Query::insert()
        .into_table(Alias::new(ENDPOINTS))
        .columns(["name", "definition", "updated_at"].map(Alias::new))
        .values_panic([stored.name.as_str().into(), definition.into(), now_ms().into()])
        .to_owned();
    transaction.execute(&insert).await?;
    Ok(transaction.commit().await?)
}

/// Every stored endpoint, by name.
pub async fn stored_endpoints(db: &DatabaseConnection) -> Result<Vec<StoredEndpoint>, WebhookError> {
    let select = Query::select()
        .columns(["name", "definition"].map(Alias::new))
        .from(Alias::new(ENDPOINTS))
        .order_by(Alias::new("name"), Order::Asc)
        .to_owned();
    let mut stored = Vec::new();
    for row in db.query_all(&select).await? {
        let name: String = row.try_get("", "name")?;
        let definition: String = row.try_get("", "definition")?;
        let endpoint = serde_json::from_str(&definition)
            .map_err(|e| WebhookError::Config(format!("stored endpoint `{name}` is not readable: {e}")))?;
        stored.push(endpoint);
    }
    Ok(stored)
}

/// Removes the stored endpoint `name`; `false` when there was none. Its feeds' state (cursor, log, dead letters)
/// is kept.
pub async fn remove_endpoint(db: &DatabaseConnection, name: &str) -> Result<bool, WebhookError> {
    let delete =
        Query::delete().from_table(Alias::new(ENDPOINTS)).and_where(Expr::col(Alias::new("name")).eq(name)).to_owned();
    Ok(db.execute(&delete).await?.rows_affected() == 1)
}

/// The table, created by [`super::Migration`].
pub(super) fn create() -> TableCreateStatement {
    Table::create()
        .table(ENDPOINTS)
        .if_not_exists()
        .col(string("name").string_len(64).primary_key())
        .col(text("definition"))
        .col(big_integer("updated_at"))
        .to_owned()
}

/// Its name, for the migration's `down`.
pub(super) const TABLE: &str = ENDPOINTS;
