//! What webhook delivery keeps in the database, so that any instance can carry on where another stopped: a row per
//! feed (an endpoint's events of one ViewSet) with the last event delivered and a lease naming the one instance
//! that delivers it; the attempts log; the dead letters. Statements through sea-query, for every backend.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sea_orm::{ConnectionTrait, DatabaseConnection, DbErr, QueryResult};
use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, big_integer_null, big_pk_auto, boolean, integer, integer_null};
use sea_orm_migration::schema::{string, string_null, text, text_null};

pub(super) const FEEDS: &str = "viewset_webhook_feeds";
const ATTEMPTS: &str = "viewset_webhook_attempts";
const DEAD: &str = "viewset_webhook_dead";

/// Milliseconds since the epoch (every instance's clock; a lease tolerates their drift).
pub(super) fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or_default()
}

pub(super) fn name(text: &str) -> Alias {
    Alias::new(text)
}

async fn run(db: &DatabaseConnection, statement: &impl sea_orm::StatementBuilder) -> Result<u64, DbErr> {
    Ok(db.execute(statement).await?.rows_affected())
}

async fn rows(db: &DatabaseConnection, statement: &SelectStatement) -> Result<Vec<QueryResult>, DbErr> {
    db.query_all(statement).await
}

/// A feed's row, created on first use.
async fn ensure(db: &DatabaseConnection, feed: &str) -> Result<(), DbErr> {
    let exists =
        Query::select().column(name("feed")).from(name(FEEDS)).and_where(Expr::col(name("feed")).eq(feed)).to_owned();
    if rows(db, &exists).await?.is_empty() {
        let insert = Query::insert()
            .into_table(name(FEEDS))
            .columns([name("feed"), name("leased_until"), name("disabled")])
            .values_panic([feed.into(), 0i64.into(), false.into()])
            .to_owned();
        // Another instance may have inserted it meanwhile: the row exists either way.
        if let Err(e) = run(db, &insert).await
            && rows(db, &exists).await?.is_empty()
        {
            return Err(e);
        }
    }
    Ok(())
}

/// Takes (or renews) the lease of `feed` for `instance`: its cursor when taken, `None` when another instance holds
/// it or the feed is disabled.
pub(super) async fn acquire(
    db: &DatabaseConnection,
    feed: &str,
    instance: &str,
    lease: Duration,
) -> Result<Option<Option<String>>, DbErr> {
    ensure(db, feed).await?;
    let now = now_ms();
    let update = Query::update()
        .table(name(FEEDS))
        .value(name("leased_by"), instance)
        .value(name("leased_until"), now + lease.as_millis() as i64)
        .and_where(Expr::col(name("feed")).eq(feed))
        .and_where(Expr::col(name("disabled")).eq(false))
        .and_where(Expr::col(name("leased_until")).lt(now).or(Expr::col(name("leased_by")).eq(instance)))
        .to_owned();
    if run(db, &update).await? == 0 {
        return Ok(None);
    }
    let select =
        Query::select().column(name("cursor")).from(name(FEEDS)).and_where(Expr::col(name("feed")).eq(feed)).to_owned();
    let cursor = match rows(db, &select).await?.first() {
        Some(row) => row.try_get::<Option<String>>("", "cursor")?,
        None => None,
    };
    Ok(Some(cursor))
}

/// Renews the lease; `false` when another instance took it.
pub(super) async fn renew(db: &DatabaseConnection, feed: &str, instance: &str, lease: Duration) -> Result<bool, DbErr> {
    let update = Query::update()
        .table(name(FEEDS))
        .value(name("leased_until"), now_ms() + lease.as_millis() as i64)
        .and_where(Expr::col(name("feed")).eq(feed))
        .and_where(Expr::col(name("leased_by")).eq(instance))
        .and_where(Expr::col(name("disabled")).eq(false))
        .to_owned();
    Ok(run(db, &update).await? == 1)
}

/// Gives the lease back (a stopping instance): another takes the feed at once.
pub(super) async fn release(db: &DatabaseConnection, feed: &str, instance: &str) -> Result<(), DbErr> {
    let update = Query::update()
        .table(name(FEEDS))
        .value(name("leased_until"), 0i64)
        .and_where(Expr::col(name("feed")).eq(feed))
        .and_where(Expr::col(name("leased_by")).eq(instance))
        .to_owned();
    run(db, &update).await.map(|_| ())
}

/// Records `event` as done for `feed` (delivered or dead-lettered) and, when it was delivered, that the endpoint
/// answers again; `false` when the lease was lost meanwhile.
pub(super) async fn advance(
    db: &DatabaseConnection,
    feed: &str,
    instance: &str,
    event: &str,
    delivered: bool,
) -> Result<bool, DbErr> {
    let mut update = Query::update();
    update.table(name(FEEDS)).value(name("cursor"), event);
    if delivered {
        update.value(name("failing_since"), Expr::value(Option::<i64>::None));
    }
    update.and_where(Expr::col(name("feed")).eq(feed)).and_where(Expr::col(name("leased_by")).eq(instance));
    Ok(run(db, &update).await? == 1)
}

/// Notes a failed attempt: when the feed began failing (kept if it already was); `true` when it has now failed for
/// longer than `disable_after`, and is disabled.
pub(super) async fn failed(db: &DatabaseConnection, feed: &str, disable_after: Duration) -> Result<bool, DbErr> {
    let now = now_ms();
    let start = Query::update()
        .table(name(FEEDS))
        .value(name("failing_since"), now)
        .and_where(Expr::col(name("feed")).eq(feed))
        .and_where(Expr::col(name("failing_since")).is_null())
        .to_owned();
    run(db, &start).await?;
    let disable = Query::update()
        .table(name(FEEDS))
        .value(name("disabled"), true)
        .and_where(Expr::col(name("feed")).eq(feed))
        .and_where(Expr::col(name("failing_since")).lt(now - disable_after.as_millis() as i64))
        .to_owned();
    Ok(run(db, &disable).await? == 1)
}

/// Enables a disabled feed again (its cursor kept: it resumes after its last delivered event).
pub(super) async fn enable(db: &DatabaseConnection, feed: &str) -> Result<bool, DbErr> {
    let update = Query::update()
        .table(name(FEEDS))
        .value(name("disabled"), false)
        .value(name("failing_since"), Expr::value(Option::<i64>::None))
        .and_where(Expr::col(name("feed")).eq(feed))
        .to_owned();
    Ok(run(db, &update).await? == 1)
}

/// One attempt to deliver an event, as the log keeps it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct Attempt {
    /// The feed: `<endpoint>/<viewset basename>`.
    pub feed: String,
    /// The event's id (the `webhook-id` header).
    pub event_id: String,
    /// 1 for the first attempt.
    pub attempt: i32,
    /// The receiver's status, when it answered.
    pub status: Option<i32>,
    /// Why it failed: no answer, a refused address, or the start of the receiver's refusal.
    pub error: Option<String>,
    /// Milliseconds from the request to its answer or failure.
    pub latency_ms: i64,
    /// When, in milliseconds since the epoch.
    pub at: i64,
    /// When the next attempt is due, if one is.
    pub next_at: Option<i64>,
}

/// Logs one attempt.
pub(super) async fn log(db: &DatabaseConnection, attempt: &Attempt) -> Result<(), DbErr> {
    let insert = Query::insert()
        .into_table(name(ATTEMPTS))
        .columns(["feed", "event_id", "attempt", "status", "error", "latency_ms", "at", "next_at"].map(name))
        .values_panic([
            attempt.feed.clone().into(),
            attempt.event_id.clone().into(),
            attempt.attempt.into(),
            attempt.status.into(),
            attempt.error.clone().into(),
            attempt.latency_ms.into(),
            attempt.at.into(),
            attempt.next_at.into(),
        ])
        .to_owned();
    run(db, &insert).await.map(|_| ())
}

/// The newest `limit` attempts of the feeds whose name starts with `endpoint/`, newest first.
pub(super) async fn attempts(db: &DatabaseConnection, endpoint: &str, limit: u64) -> Result<Vec<Attempt>, DbErr> {
    let select = Query::select()
        .columns(["feed", "event_id", "attempt", "status", "error", "latency_ms", "at", "next_at"].map(name))
        .from(name(ATTEMPTS))
        .and_where(Expr::col(name("feed")).like(format!("{}/%", escape_like(endpoint))))
        .order_by(name("id"), Order::Desc)
        .limit(limit)
        .to_owned();
    rows(db, &select).await?.iter().map(attempt_of).collect()
}

fn attempt_of(row: &QueryResult) -> Result<Attempt, DbErr> {
    Ok(Attempt {
        feed: row.try_get("", "feed")?,
        event_id: row.try_get("", "event_id")?,
        attempt: row.try_get("", "attempt")?,
        status: row.try_get("", "status")?,
        error: row.try_get("", "error")?,
        latency_ms: row.try_get("", "latency_ms")?,
        at: row.try_get("", "at")?,
        next_at: row.try_get("", "next_at")?,
    })
}

/// Deletes attempts older than `keep`.
pub(super) async fn prune(db: &DatabaseConnection, keep: Duration) -> Result<u64, DbErr> {
    let delete = Query::delete()
        .from_table(name(ATTEMPTS))
        .and_where(Expr::col(name("at")).lt(now_ms() - keep.as_millis() as i64))
        .to_owned();
    run(db, &delete).await
}

fn escape_like(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// An event given up on: its payload kept for a replay.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct DeadLetter {
    /// The feed: `<endpoint>/<viewset basename>`.
    pub feed: String,
    /// The event's id.
    pub event_id: String,
    /// The JSON body that was sent.
    pub payload: String,
    /// The last status, when the receiver answered.
    pub status: Option<i32>,
    /// The last failure.
    pub error: Option<String>,
    /// When, in milliseconds since the epoch.
    pub at: i64,
}

/// Keeps an event given up on.
pub(super) async fn bury(db: &DatabaseConnection, dead: &DeadLetter) -> Result<(), DbErr> {
    let insert = Query::insert()
        .into_table(name(DEAD))
        .columns(["feed", "event_id", "payload", "status", "error", "at"].map(name))
        .values_panic([
            dead.feed.clone().into(),
            dead.event_id.clone().into(),
            dead.payload.clone().into(),
            dead.status.into(),
            dead.error.clone().into(),
            dead.at.into(),
        ])
        .to_owned();
    run(db, &insert).await.map(|_| ())
}

/// The dead letters of an endpoint, oldest first.
pub(super) async fn dead_letters(db: &DatabaseConnection, endpoint: &str) -> Result<Vec<DeadLetter>, DbErr> {
    let select = Query::select()
        .columns(["feed", "event_id", "payload", "status", "error", "at"].map(name))
        .from(name(DEAD))
        .and_where(Expr::col(name("feed")).like(format!("{}/%", escape_like(endpoint))))
        .order_by(name("id"), Order::Asc)
        .to_owned();
    let found = rows(db, &select).await?;
    found
        .iter()
        .map(|row| {
            Ok(DeadLetter {
                feed: row.try_get("", "feed")?,
                event_id: row.try_get("", "event_id")?,
                payload: row.try_get("", "payload")?,
                status: row.try_get("", "status")?,
                error: row.try_get("", "error")?,
                at: row.try_get("", "at")?,
            })
        })
        .collect()
}

/// Removes a dead letter (replayed).
pub(super) async fn unbury(db: &DatabaseConnection, feed: &str, event_id: &str) -> Result<u64, DbErr> {
    let delete = Query::delete()
        .from_table(name(DEAD))
        .and_where(Expr::col(name("feed")).eq(feed))
        .and_where(Expr::col(name("event_id")).eq(event_id))
        .to_owned();
    run(db, &delete).await
}

/// The webhook tables (`viewset_webhook_feeds`, `viewset_webhook_attempts`, `viewset_webhook_dead`,
/// `viewset_webhook_endpoints`), for the application's migrator.
///
/// ```
/// use sea_orm_migration::prelude::*;
///
/// struct Migrator;
///
/// impl MigratorTrait for Migrator {
///     fn migrations() -> Vec<Box<dyn MigrationTrait>> {
///         vec![Box::new(viewset_core::webhooks::Migration)]
///     }
/// }
/// ```
pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261207_000001_viewset_webhooks"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let feeds = Table::create()
            .table(FEEDS)
            .if_not_exists()
            .col(string("feed").string_len(255).primary_key())
            .col(text_null("cursor"))
            .col(string_null("leased_by").string_len(64))
            .col(big_integer("leased_until"))
            .col(big_integer_null("failing_since"))
            .col(boolean("disabled"))
            .to_owned();
        manager.create_table(feeds).await?;
        let attempts = Table::create()
            .table(ATTEMPTS)
            .if_not_exists()
            .col(big_pk_auto("id"))
            .col(string("feed").string_len(255))
            .col(string("event_id").string_len(255))
            .col(integer("attempt"))
            .col(integer_null("status"))
            .col(text_null("error"))
            .col(big_integer("latency_ms"))
            .col(big_integer("at"))
            .col(big_integer_null("next_at"))
            .to_owned();
        manager.create_table(attempts).await?;
        let index =
            Index::create().name("viewset_webhook_attempts_at").table(ATTEMPTS).col("at").if_not_exists().to_owned();
        manager.create_index(index).await?;
        let dead = Table::create()
            .table(DEAD)
            .if_not_exists()
            .col(big_pk_auto("id"))
            .col(string("feed").string_len(255))
            .col(string("event_id").string_len(255))
            .col(text("payload"))
            .col(integer_null("status"))
            .col(text_null("error"))
            .col(big_integer("at"))
            .to_owned();
        manager.create_table(dead).await?;
        manager.create_table(super::stored::create()).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [super::stored::TABLE, DEAD, ATTEMPTS, FEEDS] {
            manager.drop_table(Table::drop().table(table).if_exists().to_owned()).await?;
        }
        Ok(())
    }
}
