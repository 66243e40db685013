//! Events between processes through PostgreSQL without the outbox: `NOTIFY` after the commit
//! ([`EventBus::postgres`]), and what the outbox shares with it (reconnecting a listener, recording an event that
//! was published outside a write).

use sqlx::PgPool;

use crate::bus::event::ChangeEvent;
use crate::bus::event_bus::{Carrier, EventBus, RETRY};

/// The `NOTIFY` channel.
const CHANNEL: &str = "viewset_events";
/// `NOTIFY` payloads must stay under 8000 bytes.
const MAX_NOTIFY: usize = 7900;

impl EventBus {
    /// Delivery between every process on this PostgreSQL database: publishing sends `NOTIFY`, and one task per
    /// process listens and delivers to local subscribers. When the listening connection drops, events notified
    /// meanwhile are lost: the task reconnects, then tells every subscriber of this process `event: reset` with
    /// `"reason": "reconnected"` (refetch), and `Last-Event-ID`s from before the gap can no longer resume.
    /// Needs the `postgres` feature.
    pub async fn postgres(pool: sqlx::PgPool) -> Result<Self, sqlx::Error> {
        let mut listener = sqlx::postgres::PgListener::connect_with(&pool).await?;
        // Reconnect here rather than inside `try_recv`, to know when the connection is back.
        listener.eager_reconnect(false);
        listener.listen(CHANNEL).await?;
        let bus = EventBus::with_carrier(Carrier::Notify(pool));
        let weak = bus.downgrade();
        tokio::spawn(async move {
            loop {
                let notification = match listener.try_recv().await {
                    Ok(Some(n)) => n,
                    Ok(None) => {
                        tracing::warn!("event listener lost its connection; reconnecting");
                        if !reconnect(&mut listener).await {
                            return;
                        }
                        let Some(bus) = weak.upgrade() else { return };
                        bus.reconnected();
                        continue;
                    }
                    Err(sqlx::Error::PoolClosed) => return,
                    Err(err) => {
                        // The next `try_recv` reports a dropped connection as `Ok(None)`.
                        tracing::warn!(error = %err, "event listener error; retrying");
                        tokio::time::sleep(RETRY).await;
                        continue;
                    }
                };
                let Some(bus) = weak.upgrade() else { return };
                match serde_json::from_str::<ChangeEvent>(notification.payload()) {
                    Ok(event) => bus.deliver(event),
                    Err(err) => tracing::warn!(error = %err, "ignoring a malformed event notification"),
                }
            }
        });
        Ok(bus)
    }
}

/// Connects `listener` again (listening on its channels), retrying until PostgreSQL answers; `false` when the
/// pool was closed (the application is shutting down).
pub(crate) async fn reconnect(listener: &mut sqlx::postgres::PgListener) -> bool {
    loop {
        // Any statement connects a listener that has no connection, and re-issues its `LISTEN`s first.
        match sqlx::query("SELECT 1").execute(&mut *listener).await {
            Ok(_) => return true,
            Err(sqlx::Error::PoolClosed) => return false,
            Err(err) => {
                tracing::warn!(error = %err, "event listener cannot reconnect yet; retrying");
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}

/// Sends `event` to every process listening on this database (`NOTIFY`).
pub(crate) fn notify(pool: &PgPool, event: ChangeEvent) {
    let pool = pool.clone();
    let mut payload = serde_json::to_string(&event).unwrap_or_default();
    if payload.len() > MAX_NOTIFY {
        // A large deleted row: send the key only; subscribers then see the delete only if they saw the row.
        payload = serde_json::to_string(&ChangeEvent { snapshot: None, ..event }).unwrap_or_default();
    }
    tokio::spawn(async move {
        if let Err(err) = sqlx::query("SELECT pg_notify($1, $2)").bind(CHANNEL).bind(payload).execute(&pool).await {
            tracing::error!(error = %err, "could not publish an event");
        }
    });
}

/// Writes `event` to the outbox in a statement of its own (an event published outside the write's transaction).
pub(crate) fn record_alone(bus: &EventBus, pool: &PgPool, event: ChangeEvent) {
    let (pool, bus) = (pool.clone(), bus.clone());
    let payload = serde_json::to_string(&event).unwrap_or_default();
    tokio::spawn(async move {
        let record =
            sqlx::query(sqlx::AssertSqlSafe(crate::bus::migration::record_sql(1, sea_orm::DbBackend::Postgres, false)))
                .bind(payload);
        match record.execute(&pool).await {
            Ok(_) => bus.wake(),
            Err(err) => tracing::error!(error = %err, "could not record an event in the outbox"),
        }
    });
}
