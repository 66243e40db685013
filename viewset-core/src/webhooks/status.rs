//! What an operator reads of the running webhooks ([`WebhookHandle::status`]): each feed of this process with its
//! endpoint, target, the last event it delivered, who holds its lease and whether it is failing or disabled, from
//! the feeds table every instance shares.

use sea_orm::{ConnectionTrait, DbErr, QueryResult};
use sea_orm_migration::prelude::*;

use super::WebhookError;
use super::handle::WebhookHandle;
use super::table::{FEEDS, name, now_ms};

/// One feed (an endpoint's events of one ViewSet) as the feeds table knows it.
///
/// ```no_run
/// # async fn run(webhooks: viewset_core::webhooks::WebhookHandle) -> Result<(), viewset_core::webhooks::WebhookError> {
/// for feed in webhooks.status().await? {
///     if feed.disabled {
///         println!("{} is disabled: enable it once {} takes events again", feed.feed, feed.target);
///     }
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct FeedStatus {
    /// `<endpoint>/<viewset basename>`.
    pub feed: String,
    /// The endpoint's name.
    pub endpoint: String,
    /// The ViewSet's basename.
    pub viewset: String,
    /// The endpoint's URL without its query string (which may carry a credential).
    pub target: String,
    /// The id of the last event delivered or dead-lettered; `None` before the first.
    pub cursor: Option<String>,
    /// Whether an instance holds the feed's lease now, and whether it is this process.
    pub leased: bool,
    /// Whether the lease is this process's.
    pub leased_here: bool,
    /// Since when (milliseconds since the epoch) its attempts fail, if they do.
    pub failing_since: Option<i64>,
    /// Disabled after failing for too long: [`WebhookHandle::enable`] resumes it.
    pub disabled: bool,
}

impl WebhookHandle {
    /// The feeds of this process and their state in the shared table (a feed whose row is not written yet reads as
    /// never delivered and not leased).
    ///
    /// ```no_run
    /// # async fn run(webhooks: viewset_core::webhooks::WebhookHandle) -> Result<(), viewset_core::webhooks::WebhookError> {
    /// let failing = webhooks.status().await?.into_iter().filter(|feed| feed.failing_since.is_some()).count();
    /// # Ok(()) }
    /// ```
    pub async fn status(&self) -> Result<Vec<FeedStatus>, WebhookError> {
        let (db, instance) = self.table();
        let names: Vec<String> = self.feed_names().map(|(feed, _, _, _)| feed.to_owned()).collect();
        let select = Query::select()
            .columns(["feed", "cursor", "leased_by", "leased_until", "failing_since", "disabled"].map(name))
            .from(name(FEEDS))
            .and_where(Expr::col(name("feed")).is_in(names))
            .to_owned();
        let rows = db.query_all(&select).await?;
        let now = now_ms();
        self.feed_names()
            .map(|(feed, endpoint, viewset, target)| {
                let row = rows.iter().find(|row| row.try_get::<String>("", "feed").is_ok_and(|name| name == feed));
                status(row, now, instance).map(|(cursor, leased, leased_here, failing_since, disabled)| FeedStatus {
                    feed: feed.to_owned(),
                    endpoint: endpoint.to_owned(),
                    viewset: viewset.to_owned(),
                    target,
                    cursor,
                    leased,
                    leased_here,
                    failing_since,
                    disabled,
                })
            })
            .collect::<Result<_, DbErr>>()
            .map_err(WebhookError::from)
    }
}

/// What a feed's row says: cursor, leased, leased here, failing since, disabled.
type Row = (Option<String>, bool, bool, Option<i64>, bool);

fn status(row: Option<&QueryResult>, now: i64, instance: &str) -> Result<Row, DbErr> {
    let Some(row) = row else { return Ok((None, false, false, None, false)) };
    let holder: Option<String> = row.try_get("", "leased_by")?;
    let until: i64 = row.try_get("", "leased_until")?;
    let leased = holder.is_some() && until > now;
    Ok((
        row.try_get("", "cursor")?,
        leased,
        leased && holder.as_deref() == Some(instance),
        row.try_get("", "failing_since")?,
        row.try_get("", "disabled")?,
    ))
}
