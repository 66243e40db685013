//! Cluster-wide events through NATS JetStream, relayed from the outbox table (feature `nats`).
//!
//! A write records its events in `viewset_events` in its own transaction, as on the PostgreSQL outbox (so a
//! rolled-back write has none, a committed one is never lost), on any backend. Once it has committed, the write
//! publishes them to the application's stream with the row id as `Nats-Msg-Id` and waits for JetStream's
//! acknowledgement (at most [`ACK_WAIT`]) before it answers, then deletes the rows. When NATS cannot take them (it
//! is down, or the process died right after the commit) the rows stay, and every instance's relay publishes rows
//! it found pending one [`RELAY`] earlier: the write stands (it is committed), its events arrive once NATS is back,
//! and the stream's duplicate window drops a second publication of the same row. The event id is the stream
//! sequence; every instance reads the stream in order with an ordered consumer, and resumes a subscriber from
//! its `Last-Event-ID` while the stream keeps the event ([`Retention`]: the stream's age and message limits).

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use async_nats::connection::State;
use async_nats::jetstream::consumer::{DeliverPolicy, pull::OrderedConfig};
use async_nats::jetstream::context::{Context, ContextBuilder};
use async_nats::jetstream::message::PublishMessage;
use async_nats::jetstream::stream::{Config, StorageType, Stream};
use futures_util::StreamExt;
use sea_orm::{ConnectionTrait, DatabaseConnection, Statement};

use crate::bus::event::ChangeEvent;
use crate::bus::event_bus::{Carrier, EventBus, PAGE, RETRY, Sequenced, WeakBus};
use crate::bus::migration::{ID, PAYLOAD, Recorded, SEQ, TABLE, record_sql, recorded};
use crate::bus::retention::Retention;
use crate::bus::stats::BusStats;

/// How long a write waits for JetStream to acknowledge its events before it leaves them to the relay.
pub const ACK_WAIT: Duration = Duration::from_secs(2);
/// How often every instance relays the events still in the table (found there one round earlier too).
pub const RELAY: Duration = Duration::from_secs(1);
/// How long a resuming subscriber's read of the stream may take.
const READ_WAIT: Duration = Duration::from_secs(5);

/// The bus's way to NATS and to the outbox table.
#[derive(Clone)]
pub(crate) struct Link {
    client: async_nats::Client,
    jetstream: Context,
    stream: Stream,
    subject: String,
    db: DatabaseConnection,
}

impl EventBus {
    /// Durable, cluster-wide events through the JetStream stream `stream` of the NATS server at `url` (created if
    /// missing, kept as [`Retention::default`] says), relayed from the outbox table on `db` (add
    /// [`crate::events::Migration`] to the application's `Migrator`; any backend). See the module `nats.rs`.
    ///
    /// ```no_run
    /// # async fn run(db: sea_orm::DatabaseConnection) -> Result<(), viewset_core::events::async_nats::Error> {
    /// let bus = viewset_core::events::EventBus::nats(db, "nats://127.0.0.1:4222", "blog").await?;
    /// assert!(bus.is_durable());
    /// # Ok(()) }
    /// ```
    pub async fn nats(db: DatabaseConnection, url: &str, stream: &str) -> Result<Self, async_nats::Error> {
        let client = async_nats::connect(url).await?;
        EventBus::nats_with(db, client, stream, Retention::default()).await
    }

    /// [`EventBus::nats`] on a connected `client`, creating the stream with `retention`'s limits when it is
    /// missing (an existing stream keeps its own).
    ///
    /// ```no_run
    /// # async fn run(db: sea_orm::DatabaseConnection) -> Result<(), viewset_core::events::async_nats::Error> {
    /// use viewset_core::events::{EventBus, Retention, async_nats};
    /// let client = async_nats::ConnectOptions::new().name("blog").connect("nats://127.0.0.1:4222").await?;
    /// let bus = EventBus::nats_with(db, client, "blog", Retention::default()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn nats_with(
        db: DatabaseConnection,
        client: async_nats::Client,
        stream: &str,
        retention: Retention,
    ) -> Result<Self, async_nats::Error> {
        let jetstream = ContextBuilder::new().timeout(ACK_WAIT).build(client.clone());
        let subject = format!("{stream}.events");
        let config = Config {
            name: stream.to_owned(),
            subjects: vec![subject.clone()],
            max_age: retention.age,
            max_messages: i64::try_from(retention.events).unwrap_or(i64::MAX),
            storage: StorageType::File,
            ..Config::default()
        };
        let stream = jetstream.get_or_create_stream(config).await?;
        let newest = stream.get_info().await?.state.last_sequence;
        let link = Link { client, jetstream, stream: stream.clone(), subject, db };
        link.pending().await.map_err(|err| {
            format!(
                "the outbox table {TABLE} cannot be read ({err}): add viewset_core::events::Migration to the Migrator"
            )
        })?;
        let bus = EventBus::with_carrier(Carrier::Nats(Box::new(link.clone())));
        bus.start_after(newest);
        tokio::spawn(follow(bus.downgrade(), stream, newest));
        tokio::spawn(relay_forever(bus.downgrade(), link));
        Ok(bus)
    }
}

impl Link {
    /// Publishes `recorded` in order, waits for each acknowledgement, and deletes the rows acknowledged.
    async fn relay(&self, recorded: &[Recorded]) -> Result<(), async_nats::Error> {
        if recorded.is_empty() {
            return Ok(());
        }
        if self.client.connection_state() != State::Connected {
            return Err("NATS is not connected".into());
        }
        let timer = crate::measure::relay();
        let mut acks = Vec::with_capacity(recorded.len());
        for (id, payload) in recorded {
            let message = PublishMessage::build().payload(payload.clone().into()).message_id(id.to_string());
            acks.push((*id, self.jetstream.send_publish(self.subject.clone(), message).await?));
        }
        let mut done = Vec::with_capacity(acks.len());
        let mut failed = None;
        for (id, ack) in acks {
            match ack.await {
                Ok(_) => done.push(id.to_string()),
                Err(err) => {
                    failed = Some(err);
                    break;
                }
            }
        }
        timer.finish();
        if !done.is_empty() {
            let sql = format!("DELETE FROM {TABLE} WHERE {ID} IN ({})", done.join(", "));
            self.db.execute_raw(Statement::from_string(self.db.get_database_backend(), sql)).await?;
        }
        failed.map_or(Ok(()), |err| Err(err.into()))
    }

    /// Publishes the events a write just committed (see [`EventBus::committed`]); a failure leaves them to the relay.
    pub(crate) async fn relay_committed(&self, recorded: Vec<Recorded>, stats: &BusStats) {
        if let Err(err) = self.relay(&recorded).await {
            stats.relay_failed();
            tracing::warn!(error = %err, events = recorded.len(), "events left in the outbox for the relay");
        }
    }

    /// Records `event` in a statement of its own, then relays what is pending (an event published outside a
    /// generated write; a row another writer publishes at the same time is dropped by the duplicate window).
    pub(crate) fn record_alone(&self, event: ChangeEvent, stats: Arc<BusStats>) {
        let link = self.clone();
        let payload = serde_json::to_string(&event).unwrap_or_default();
        tokio::spawn(async move {
            let backend = link.db.get_database_backend();
            let statement = Statement::from_sql_and_values(backend, record_sql(1, backend, false), [payload.into()]);
            if let Err(err) = link.db.execute_raw(statement).await {
                return tracing::error!(error = %err, "could not record an event in the outbox");
            }
            match link.pending().await {
                Ok(pending) => link.relay_committed(pending, &stats).await,
                Err(err) => tracing::warn!(error = %err, "event left in the outbox for the relay"),
            }
        });
    }

    /// The rows not relayed yet, oldest first (at most [`PAGE`]).
    async fn pending(&self) -> Result<Vec<Recorded>, sea_orm::DbErr> {
        let sql = format!("SELECT {ID}, {PAYLOAD} FROM {TABLE} WHERE {SEQ} IS NULL ORDER BY {ID} LIMIT {PAGE}");
        let statement = Statement::from_string(self.db.get_database_backend(), sql);
        recorded(&self.db.query_all_raw(statement).await?)
    }

    /// The events after `seq` for a resuming subscriber that this process's buffer does not hold, from the stream
    /// (at most [`PAGE`]); `None` when `seq` is older than the oldest kept or newer than the newest.
    pub(crate) async fn after(&self, seq: u64) -> Option<Vec<Sequenced>> {
        let state = match self.stream.get_info().await {
            Ok(info) => info.state,
            Err(err) => {
                tracing::warn!(error = %err, "cannot read the event stream to resume a subscriber");
                return None;
            }
        };
        if seq > state.last_sequence || seq + 1 < state.first_sequence {
            return None;
        }
        let until = state.last_sequence.min(seq + PAGE as u64);
        let read = async {
            let mut messages = self.stream.create_consumer(from(seq + 1)).await.ok()?.messages().await.ok()?;
            let mut events = Vec::new();
            let mut at = seq;
            while at < until {
                let message = messages.next().await?.ok()?;
                at = message.info().ok()?.stream_sequence;
                if let Some(event) = decode(&message.payload, at) {
                    events.push(Sequenced { seq: at, event: event.into() });
                }
            }
            Some(events)
        };
        tokio::time::timeout(READ_WAIT, read).await.ok().flatten()
    }
}

/// An ordered consumer starting at `sequence`.
fn from(sequence: u64) -> OrderedConfig {
    OrderedConfig { deliver_policy: DeliverPolicy::ByStartSequence { start_sequence: sequence }, ..Default::default() }
}

/// The event in a message's payload (`None`, logged, for one that is no event).
fn decode(payload: &[u8], seq: u64) -> Option<ChangeEvent> {
    serde_json::from_slice(payload)
        .map_err(|err| tracing::warn!(error = %err, seq, "ignoring a message that is no event"))
        .ok()
}

/// The reader task of one process: an ordered consumer from the event after `last`, each event handed to the bus
/// in order; created again from where it stopped when it fails; until the bus is dropped.
async fn follow(bus: WeakBus, stream: Stream, mut last: u64) {
    loop {
        let opened =
            async { Ok::<_, async_nats::Error>(stream.create_consumer(from(last + 1)).await?.messages().await?) };
        match opened.await {
            Ok(mut messages) => loop {
                // Wake now and then to notice that the bus was dropped.
                let next = tokio::time::timeout(Duration::from_secs(5), messages.next()).await;
                let Some(bus) = bus.upgrade() else { return };
                let message = match next {
                    Err(_) => continue,
                    Ok(Some(Ok(message))) => message,
                    Ok(Some(Err(err))) => {
                        tracing::warn!(error = %err, "event stream reader failed; reading again");
                        break;
                    }
                    Ok(None) => break,
                };
                let Ok(info) = message.info() else { continue };
                let seq = info.stream_sequence;
                if seq > last {
                    bus.receive(&mut last, seq, decode(&message.payload, seq));
                }
            },
            Err(err) => tracing::warn!(error = %err, "cannot read the event stream yet; retrying"),
        }
        tokio::time::sleep(RETRY).await;
        if bus.upgrade().is_none() {
            return;
        }
    }
}

/// Every [`RELAY`], publishes the rows that were already pending one round earlier (their writer could not, or
/// died), until the bus is dropped.
async fn relay_forever(bus: WeakBus, link: Link) {
    let mut seen = HashSet::new();
    loop {
        tokio::time::sleep(RELAY).await;
        let Some(stats) = bus.upgrade().map(|bus| bus.stats_handle()) else { return };
        let pending = match link.pending().await {
            Ok(pending) => pending,
            Err(err) => {
                stats.relay_failed();
                tracing::warn!(error = %err, "cannot read the outbox to relay events");
                continue;
            }
        };
        stats.backlog(pending.len());
        let due: Vec<Recorded> = pending.iter().filter(|(id, _)| seen.contains(id)).cloned().collect();
        seen = pending.iter().map(|(id, _)| *id).collect();
        match link.relay(&due).await {
            Ok(()) if !due.is_empty() => tracing::info!(events = due.len(), "relayed events left in the outbox"),
            Ok(()) => {}
            Err(err) => {
                stats.relay_failed();
                tracing::warn!(error = %err, events = due.len(), "cannot relay events to NATS yet");
            }
        }
    }
}
