//! One write and its events. On a durable bus ([`EventBus::is_durable`]: the PostgreSQL outbox, or NATS relayed
//! from the outbox table) the write runs in a transaction and its events are inserted in it just before the
//! commit, in one statement: a rolled-back write has no event, a committed one always has its events; once it has
//! committed, the bus is told (NATS: the events are published and acknowledged before the write answers).
//! Otherwise the write runs as it would alone (on the pool, or in the transaction a locking read began) and its
//! events are published once it is committed.

use sea_orm::{ConnectionTrait, DatabaseConnection, DatabaseTransaction, Statement};

use super::run::{On, execute, rows};
use super::write::{begin_immediate_on, commit_on, table};
use crate::bus::event::ChangeEvent;
use crate::bus::event_bus::EventBus;
use crate::bus::migration::{Recorded, record_sql, recorded};
use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::request::RequestContext;

/// A write in progress: where its statements run, and the events it will publish.
pub(crate) struct Writing {
    txn: Option<DatabaseTransaction>,
    events: Vec<ChangeEvent>,
}

impl Writing {
    /// A write of `request`: in a transaction when its events are written with it, else on the pool.
    pub(crate) fn begin<V: ViewSet>(
        request: &RequestContext,
    ) -> impl Future<Output = Result<Self, ApiError>> + Send + '_ {
        Self::begin_on(request, table::<V>())
    }

    /// [`Writing::begin`], its errors read for `table`: one function for every ViewSet.
    async fn begin_on(request: &RequestContext, table: &'static str) -> Result<Self, ApiError> {
        let txn = match request.events.is_durable() {
            true => Some(begin_immediate_on(&request.db, table).await?),
            false => None,
        };
        Ok(Writing { txn, events: Vec::new() })
    }

    /// A write in `txn`, already begun (a locking read, a bulk write).
    pub(crate) fn within(txn: DatabaseTransaction) -> Self {
        Writing { txn: Some(txn), events: Vec::new() }
    }

    /// Where the write's statements run: its transaction, or `db`'s pool.
    pub(crate) fn on<'a>(&'a self, db: &'a DatabaseConnection) -> On<'a> {
        match &self.txn {
            Some(txn) => On::Txn(txn),
            None => On::Pool(db),
        }
    }

    /// The transaction of a write begun [`Writing::within`] one.
    pub(crate) fn txn(&self) -> &DatabaseTransaction {
        self.txn.as_ref().expect("a write within a transaction")
    }

    /// An event of this write, published with it.
    pub(crate) fn publish(&mut self, event: ChangeEvent) {
        self.events.push(event);
    }

    /// Commits the write (with its events on a durable bus), then publishes its events on any other bus.
    pub(crate) fn commit<V: ViewSet>(self, bus: &EventBus) -> impl Future<Output = Result<(), ApiError>> + Send + '_ {
        self.commit_on(bus, table::<V>())
    }

    /// [`Writing::commit`], its errors read for `table`: one function for every ViewSet.
    /// Its events are published in a `DEBUG` span `publish` on the target `viewset::events` (fields `events`, and
    /// `durable`: written into the outbox in the write's transaction, then handed to the bus after the commit).
    pub(crate) async fn commit_on(self, bus: &EventBus, table: &'static str) -> Result<(), ApiError> {
        use tracing::Instrument;
        let durable = bus.is_durable();
        let span = match self.events.len() {
            0 => tracing::Span::none(),
            events => tracing::debug_span!(target: "viewset::events", "publish", events, durable),
        };
        let mut recorded = Vec::new();
        if let Some(txn) = self.txn {
            if durable && !self.events.is_empty() {
                let written = record(&txn, &self.events, bus.relays()).instrument(span.clone()).await;
                recorded = written.map_err(|err| ApiError::from_db(err, table))?;
            }
            commit_on(txn, table).await?;
        }
        if durable {
            (0..self.events.len()).for_each(|_| crate::measure::event_published());
            bus.committed(recorded).instrument(span).await;
        } else {
            span.in_scope(|| self.events.into_iter().for_each(|event| bus.publish(event)));
        }
        Ok(())
    }
}

/// Inserts `events` into the outbox in `txn`, one statement for all of them; with `relay`, their row ids and
/// payloads (none where the database cannot return them: the relay then finds them in the table).
async fn record(
    txn: &DatabaseTransaction,
    events: &[ChangeEvent],
    relay: bool,
) -> Result<Vec<Recorded>, sea_orm::DbErr> {
    let payloads = events.iter().map(|event| serde_json::to_string(event).unwrap_or_default().into());
    let backend = txn.get_database_backend();
    let returning = relay && super::plan::inserts_returning(backend);
    let statement = Statement::from_sql_and_values(backend, record_sql(events.len(), backend, returning), payloads);
    if !returning {
        return execute(On::Txn(txn), statement, "outbox").await.map(|_| Vec::new());
    }
    recorded(&rows(On::Txn(txn), statement, events.len(), "outbox").await?)
}
