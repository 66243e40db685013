//! The durable outbox on PostgreSQL: events are rows of `viewset_events` ([`super::Migration`]) written in the
//! change's own transaction, so a rolled-back write has no event and a committed one is never lost.
//!
//! Ids are cluster-wide: a committed row gets its `seq` from the *sequencer*, which any instance runs under one
//! advisory lock: it numbers the committed rows still without a number, after the newest, in the order of their
//! insertion, and commits. A row committed later gets a later number, so every instance reads the same order, and a
//! reader that has seen `n` never sees a new row below `n`. Each instance runs one task that is woken by its own
//! writes' commits, by the sequencer's `NOTIFY` (without payload, once per round: writers send none, as a notifying
//! transaction takes a database-wide lock at commit), or every [`POLL`]; it numbers what is pending, then reads the
//! rows after the last one it delivered and hands them to its subscribers. A lost `NOTIFY`, a dropped listening
//! connection or a database outage delays delivery; nothing is skipped: the task reads from where it stopped.
//! `Last-Event-ID` resumes from this process's buffer, else from the table, on any instance, while the event is
//! kept ([`Retention`]: by age and by count; the newest event is always kept so numbering goes on from it).

use std::sync::Arc;
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::Notify;

use crate::bus::event::ChangeEvent;
use crate::bus::event_bus::{Carrier, EventBus, PAGE, RETRY, Sequenced, WeakBus};
use crate::bus::migration::TABLE;
use crate::bus::notify::reconnect;
use crate::bus::retention::Retention;

/// The channel that wakes every instance's outbox reader (`NOTIFY` without a payload; not the channel of
/// [`EventBus::postgres`], whose notifications carry events).
const CHANNEL: &str = "viewset_outbox";
/// How often each instance looks for new events when no `NOTIFY` woke it.
pub const POLL: Duration = Duration::from_millis(500);
/// The advisory lock the sequencer holds (the bytes of `vsevents`).
const SEQUENCER_LOCK: i64 = 0x7673_6576_656e_7473;
/// Rows numbered per statement.
const NUMBER_AT_ONCE: u64 = 10_000;

impl EventBus {
    /// Durable, cluster-wide events in the outbox table of this PostgreSQL database (add
    /// [`crate::events::Migration`] to the application's `Migrator`), kept as [`Retention::default`] says. The
    /// generated writes record their events in their own transaction; every instance on the database delivers every
    /// event in one order, and resumes any subscriber from its `Last-Event-ID` (see the module `outbox.rs`).
    ///
    /// ```no_run
    /// # async fn run(pool: sqlx::PgPool) -> Result<(), sqlx::Error> {
    /// let bus = viewset_core::events::EventBus::outbox(pool).await?;
    /// assert!(bus.is_durable());
    /// # Ok(()) }
    /// ```
    pub async fn outbox(pool: PgPool) -> Result<Self, sqlx::Error> {
        EventBus::outbox_with(pool, Retention::default()).await
    }

    /// [`EventBus::outbox`] keeping events as `retention` says.
    ///
    /// ```no_run
    /// # async fn run(pool: sqlx::PgPool) -> Result<(), sqlx::Error> {
    /// use std::time::Duration;
    /// use viewset_core::events::{EventBus, Retention};
    /// let week = Retention::default().with_age(Duration::from_secs(7 * 24 * 60 * 60)).with_events(5_000_000);
    /// let bus = EventBus::outbox_with(pool, week).await?;
    /// # Ok(()) }
    /// ```
    pub async fn outbox_with(pool: PgPool, retention: Retention) -> Result<Self, sqlx::Error> {
        let newest = newest(&pool).await.map_err(missing_table)?;
        let mut listener = PgListener::connect_with(&pool).await?;
        listener.eager_reconnect(false);
        listener.listen(CHANNEL).await?;
        let bus = EventBus::with_carrier(Carrier::Outbox(pool.clone()));
        bus.start_after(newest);
        tokio::spawn(follow(bus.downgrade(), pool.clone(), listener, newest, bus.wakes()));
        tokio::spawn(prune_forever(bus.downgrade(), pool, retention));
        Ok(bus)
    }
}

/// The number of the newest event (0 when there is none).
async fn newest(pool: &PgPool) -> Result<u64, sqlx::Error> {
    let newest: Option<i64> =
        sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT max(seq) FROM {TABLE}"))).fetch_one(pool).await?;
    Ok(newest.map_or(0, |n| n.max(0) as u64))
}

/// A clearer error when the application has not migrated the outbox table.
fn missing_table(err: sqlx::Error) -> sqlx::Error {
    match err.as_database_error().and_then(|e| e.code()).as_deref() {
        Some("42P01") => sqlx::Error::Configuration(
            format!("the outbox table {TABLE} is missing: add viewset_core::events::Migration to the Migrator").into(),
        ),
        _ => err,
    }
}

/// The reader task of one process: number what committed, deliver what is numbered after `last`, wait for a
/// `NOTIFY` or [`POLL`]; until the bus is dropped or the pool closed.
async fn follow(bus: WeakBus, pool: PgPool, mut listener: PgListener, mut last: u64, wakes: Arc<Notify>) {
    loop {
        {
            let Some(bus) = bus.upgrade() else { return };
            if let Err(err) = catch_up(&bus, &pool, &mut last).await {
                if matches!(err, sqlx::Error::PoolClosed) {
                    return;
                }
                bus.stats().relay_failed();
                tracing::warn!(error = %err, "outbox reader cannot read events yet; retrying");
            }
        }
        tokio::select! {
            received = listener.try_recv() => match received {
                // Every notification now pending is answered by the one round that follows.
                Ok(Some(_)) => while listener.next_buffered().is_some() {},
                Ok(None) => {
                    if !reconnect(&mut listener).await {
                        return;
                    }
                }
                Err(sqlx::Error::PoolClosed) => return,
                Err(_) => tokio::time::sleep(RETRY).await,
            },
            () = wakes.notified() => {}
            () = tokio::time::sleep(POLL) => {}
        }
    }
}

/// Numbers the pending rows, then delivers every event after `last` to `bus`'s subscribers.
async fn catch_up(bus: &EventBus, pool: &PgPool, last: &mut u64) -> Result<(), sqlx::Error> {
    let waiting = number_pending(pool).await?;
    bus.stats().backlog(waiting);
    loop {
        let page = read_after(pool, *last).await?;
        let full = page.len() == PAGE;
        for (seq, event) in page {
            bus.receive(last, seq, event);
        }
        if !full {
            return Ok(());
        }
    }
}

/// The events numbered after `last`, at most [`PAGE`], in order (`None` for a row whose payload is no event).
async fn read_after(pool: &PgPool, last: u64) -> Result<Vec<(u64, Option<ChangeEvent>)>, sqlx::Error> {
    let sql = format!("SELECT seq, payload FROM {TABLE} WHERE seq > $1 ORDER BY seq LIMIT {PAGE}");
    let rows: Vec<(i64, String)> = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(last as i64).fetch_all(pool).await?;
    Ok(rows
        .into_iter()
        .map(|(seq, payload)| {
            let event = serde_json::from_str(&payload)
                .map_err(|err| tracing::warn!(error = %err, seq, "ignoring an outbox row that is no event"))
                .ok();
            (seq as u64, event)
        })
        .collect())
}

/// The sequencer: under the advisory lock, numbers the committed rows without a number after the newest, in
/// insertion order, and wakes every reader when it numbered any. Answers how many rows were waiting (counted up to
/// [`NUMBER_AT_ONCE`], the backlog the metrics report).
async fn number_pending(pool: &PgPool) -> Result<usize, sqlx::Error> {
    let pending = format!("SELECT count(*) FROM (SELECT 1 FROM {TABLE} WHERE seq IS NULL LIMIT {NUMBER_AT_ONCE}) AS p");
    let waiting = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(pending)).fetch_one(pool).await?;
    if waiting == 0 {
        return Ok(0);
    }
    let number = format!(
        "WITH pending AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM {TABLE} WHERE seq IS NULL \
         ORDER BY id LIMIT {NUMBER_AT_ONCE}), top AS (SELECT coalesce(max(seq), 0) AS top FROM {TABLE}) \
         UPDATE {TABLE} AS e SET seq = top.top + pending.n FROM pending, top WHERE e.id = pending.id"
    );
    let mut txn = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(SEQUENCER_LOCK).execute(&mut *txn).await?;
    let mut numbered = 0;
    loop {
        let done = sqlx::query(sqlx::AssertSqlSafe(number.as_str())).execute(&mut *txn).await?.rows_affected();
        numbered += done;
        if done < NUMBER_AT_ONCE {
            break;
        }
    }
    if numbered > 0 {
        sqlx::query("SELECT pg_notify($1, '')").bind(CHANNEL).execute(&mut *txn).await?;
    }
    txn.commit().await?;
    Ok(usize::try_from(waiting).unwrap_or(usize::MAX))
}

/// The events after `seq` for a resuming subscriber that this process's buffer does not hold, from the table (at
/// most [`PAGE`]); `None` when `seq` is older than the oldest kept event or newer than the newest.
pub(crate) async fn after(pool: &PgPool, seq: u64) -> Option<Vec<Sequenced>> {
    let bounds = format!("SELECT min(seq), max(seq) FROM {TABLE}");
    let (oldest, newest): (Option<i64>, Option<i64>) =
        match sqlx::query_as(sqlx::AssertSqlSafe(bounds)).fetch_one(pool).await {
            Ok(bounds) => bounds,
            Err(err) => {
                tracing::warn!(error = %err, "cannot read the outbox to resume a subscriber");
                return None;
            }
        };
    let (oldest, newest) = (oldest.map_or(1, |n| n as u64), newest.map_or(0, |n| n as u64));
    if seq > newest || seq + 1 < oldest {
        return None;
    }
    let page = read_after(pool, seq).await.ok()?;
    let events = page.into_iter().filter_map(|(seq, event)| Some(Sequenced { seq, event: event?.into() }));
    Some(events.collect())
}

/// Deletes the events past `retention` every `retention.prune_every`, until the bus is dropped.
async fn prune_forever(bus: WeakBus, pool: PgPool, retention: Retention) {
    let sql = format!(
        "DELETE FROM {TABLE} WHERE seq < (SELECT max(seq) FROM {TABLE}) AND (created_at < now() - make_interval(secs => $1) \
         OR seq <= (SELECT max(seq) FROM {TABLE}) - $2)"
    );
    loop {
        tokio::time::sleep(retention.prune_every).await;
        if bus.upgrade().is_none() {
            return;
        }
        let age = retention.age.as_secs_f64();
        let count = i64::try_from(retention.events).unwrap_or(i64::MAX);
        match sqlx::query(sqlx::AssertSqlSafe(sql.as_str())).bind(age).bind(count).execute(&pool).await {
            Ok(done) if done.rows_affected() > 0 => tracing::debug!(deleted = done.rows_affected(), "outbox pruned"),
            Ok(_) => {}
            Err(sqlx::Error::PoolClosed) => return,
            Err(err) => tracing::warn!(error = %err, "could not prune the outbox"),
        }
    }
}
