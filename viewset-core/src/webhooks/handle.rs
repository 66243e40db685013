//! Running webhooks: the feeds' tasks of this process, and what an operator asks of them (the attempts log, dead
//! letters and their replay, enabling a disabled endpoint).

use std::collections::HashMap;
use std::sync::Arc;

use tokio::task::JoinHandle;

use super::client::Sender;
use super::deliver::{self, Feed, Shared};
use super::table::{self, Attempt, DeadLetter};
use super::{WebhookError, Webhooks};

/// The running webhooks of this process (from [`Webhooks::start`]). Dropped, its feeds stop as if the process had
/// died: their leases run out and another instance carries them on; [`stop`](Self::stop) gives the leases back at
/// once.
///
/// ```no_run
/// # async fn run(webhooks: viewset_core::webhooks::WebhookHandle) -> Result<(), viewset_core::webhooks::WebhookError> {
/// for dead in webhooks.dead_letters("search").await? {
///     let attempt = webhooks.replay("search", &dead.event_id).await?;
///     println!("{} answered {:?}", dead.event_id, attempt.status);
/// }
/// webhooks.stop().await;
/// # Ok(()) }
/// ```
pub struct WebhookHandle {
    shared: Arc<Shared>,
    feeds: Vec<Feed>,
    tasks: Vec<JoinHandle<()>>,
}

pub(super) async fn start(webhooks: Webhooks, app: axum::Router) -> Result<WebhookHandle, WebhookError> {
    let Webhooks { db, streams, endpoints, lease, retention } = webhooks;
    let mut feeds = Vec::new();
    for endpoint in endpoints {
        let endpoint = Arc::new(endpoint);
        let sender = Sender::new(endpoint.allow_private, endpoint.timeout)?;
        for basename in &endpoint.viewsets {
            let path = &streams[basename];
            let stream = match endpoint.filter.as_str() {
                "" => path.clone(),
                filter => format!("{path}?{filter}"),
            };
            let feed = Feed {
                name: format!("{}/{basename}", endpoint.name),
                basename: basename.clone(),
                stream,
                endpoint: endpoint.clone(),
                sender: sender.clone(),
            };
            // The stream checks the principal and the filter as it would for a subscriber: refused here, not later.
            let probe = deliver::connect(&feed, &app, None).await;
            if let Err(refused) = probe {
                return Err(WebhookError::Config(format!("feed `{}`: {refused}", feed.name)));
            }
            feeds.push(feed);
        }
    }
    let instance = uuid::Uuid::new_v4().simple().to_string();
    let shared = Arc::new(Shared { db, app, instance, lease, retention });
    let mut tasks = Vec::new();
    let mut readiness = Vec::new();
    for feed in &feeds {
        let (ready, told) = tokio::sync::watch::channel(false);
        tasks.push(tokio::spawn(deliver::run(feed.clone(), shared.clone(), Arc::new(ready))));
        readiness.push(told);
    }
    // Each feed delivering (or held by another instance) before `start` returns; a database too slow to tell
    // within the lease does not hold the start up longer.
    let _ = tokio::time::timeout(lease, async {
        for mut told in readiness {
            let _ = told.wait_for(|ready| *ready).await;
        }
    })
    .await;
    Ok(WebhookHandle { shared, feeds, tasks })
}

impl WebhookHandle {
    /// The newest `limit` delivery attempts to `endpoint`, newest first.
    pub async fn attempts(&self, endpoint: &str, limit: u64) -> Result<Vec<Attempt>, WebhookError> {
        Ok(table::attempts(&self.shared.db, endpoint, limit).await?)
    }

    /// The events given up on for `endpoint`, oldest first.
    pub async fn dead_letters(&self, endpoint: &str) -> Result<Vec<DeadLetter>, WebhookError> {
        Ok(table::dead_letters(&self.shared.db, endpoint).await?)
    }

    /// Sends a dead letter of `endpoint` once more, with its `webhook-id` and a new timestamp and signature; taken
    /// (2xx), it leaves the dead letters. The attempt is logged and returned.
    pub async fn replay(&self, endpoint: &str, event_id: &str) -> Result<Attempt, WebhookError> {
        let dead = table::dead_letters(&self.shared.db, endpoint).await?;
        let letter = dead
            .into_iter()
            .find(|letter| letter.event_id == event_id)
            .ok_or_else(|| WebhookError::NotFound(format!("dead letter {event_id} of endpoint `{endpoint}`")))?;
        let feed = self
            .feeds
            .iter()
            .find(|feed| feed.name == letter.feed)
            .ok_or_else(|| WebhookError::NotFound(format!("feed `{}` in this process", letter.feed)))?;
        let reply = deliver::post(feed, event_id, &letter.payload).await;
        let attempt = deliver::attempt_row(feed, event_id, 0, &reply, None);
        table::log(&self.shared.db, &attempt).await?;
        if reply.status.is_some_and(|status| (200..300).contains(&status)) {
            table::unbury(&self.shared.db, &letter.feed, event_id).await?;
        }
        Ok(attempt)
    }

    /// Enables `endpoint`'s feeds again after they were disabled for failing; they resume after their last
    /// delivered event.
    pub async fn enable(&self, endpoint: &str) -> Result<(), WebhookError> {
        let mut found = false;
        for feed in self.feeds.iter().filter(|feed| feed.endpoint.name == endpoint) {
            found |= table::enable(&self.shared.db, &feed.name).await?;
        }
        found.then_some(()).ok_or_else(|| WebhookError::NotFound(format!("endpoint `{endpoint}`")))
    }

    /// The database and this process's name in the leases.
    pub(super) fn table(&self) -> (&sea_orm::DatabaseConnection, &str) {
        (&self.shared.db, &self.shared.instance)
    }

    /// Each feed of this process: its name, endpoint, ViewSet and the endpoint's URL without its query.
    pub(super) fn feed_names(&self) -> impl Iterator<Item = (&str, &str, &str, String)> {
        self.feeds.iter().map(|feed| {
            let url = &feed.endpoint.url;
            let target = format!(
                "{}://{}{}",
                url.scheme_str().unwrap_or("http"),
                url.authority().map_or("", |a| a.as_str()),
                url.path()
            );
            (feed.name.as_str(), feed.endpoint.name.as_str(), feed.basename.as_str(), target)
        })
    }

    /// The feeds of this process, `<endpoint>/<basename>`, by endpoint.
    pub fn feeds(&self) -> HashMap<&str, Vec<&str>> {
        let mut by_endpoint: HashMap<&str, Vec<&str>> = HashMap::new();
        for feed in &self.feeds {
            by_endpoint.entry(feed.endpoint.name.as_str()).or_default().push(feed.name.as_str());
        }
        by_endpoint
    }

    /// Stops this process's feeds and gives their leases back, so another instance carries on at once.
    pub async fn stop(self) {
        for task in &self.tasks {
            task.abort();
        }
        for feed in &self.feeds {
            let _ = table::release(&self.shared.db, &feed.name, &self.shared.instance).await;
        }
    }
}

impl Drop for WebhookHandle {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}
