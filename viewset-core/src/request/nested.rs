//! A ViewSet as the writer of rows a nested create names ([`Writer`]): what the plain code that walks a nested body
//! (`handlers/nested.rs`) asks of each ViewSet it reaches, as a table of plain functions, so that walk is compiled
//! once. `registration/nested.rs` builds the table of each ViewSet; an [`crate::Api`] hands it to the
//! [`crate::embed::Embedder`] serving the ViewSet's table.

use std::any::Any;

use sea_orm::DatabaseTransaction;
use serde_json::{Map, Value as Json};

use super::RequestContext;
use crate::boxed::SendFuture;
use crate::bus::event::ChangeEvent;
use crate::contract::config::Config;
use crate::error::ApiError;

/// One row to create through a ViewSet, inside the nested write's transaction.
pub(crate) struct Row<'a> {
    /// The row's own fields as the client sent them (its relations taken out).
    pub body: Map<String, Json>,
    /// Columns (database names) whose values the write decides: a parent's key in a child's foreign key, a created
    /// or referenced record's key in this row's foreign key.
    pub set: Vec<(String, Json)>,
    /// The write's transaction.
    pub txn: &'a DatabaseTransaction,
}

/// A row created through a ViewSet.
pub(crate) struct Created {
    /// The stored model, as JSON (the keys relations read).
    pub json: Json,
    /// The stored model itself (the root's becomes the answer).
    pub model: Box<dyn Any + Send>,
    /// Its `created` event, published with the write.
    pub event: ChangeEvent,
    /// Its `after_commit` hook, run once the write committed (a ViewSet with `custom_hooks`).
    pub after: Option<After>,
}

/// A ViewSet's `after_commit` for one created row.
pub(crate) type After = Box<dyn FnOnce(&RequestContext) + Send>;

/// Creates one row through a ViewSet: admitted for `create`, the body read as its create body would be, checked as
/// its single create checks it, the decided columns set, inserted in the transaction. Input errors are located at
/// `["body", <field>]`, as for a create of its own.
pub(crate) type CreateFn = for<'a> fn(&'a RequestContext, Row<'a>) -> SendFuture<'a, Result<Created, ApiError>>;

/// The record whose `column` (a database name) holds `key`, as the caller may see it through the ViewSet (its
/// permissions for `retrieve`, scope, row policies and object permissions), read in the transaction; `None` when
/// there is none the caller may see. A key the column cannot hold is a 422 at `["body"]`.
pub(crate) type ReferenceFn = for<'a> fn(
    &'a RequestContext,
    &'a str,
    &'a Json,
    &'a DatabaseTransaction,
) -> SendFuture<'a, Result<Option<Json>, ApiError>>;

/// What a nested create asks of one ViewSet.
pub(crate) struct Writer {
    /// The ViewSet's configuration: its `expandable` relations and which of them it writes.
    pub config: &'static Config,
    /// Its model's table.
    pub table: fn() -> &'static str,
    /// The model's field holding a database column (`author_id` for the column `author_id`).
    pub field: fn(&str) -> Option<&'static str>,
    /// [`CreateFn`].
    pub create: CreateFn,
    /// [`ReferenceFn`].
    pub reference: ReferenceFn,
    /// Its throttles and the name they are counted under (`access::throttled::throttles_of`).
    pub throttles: fn() -> (&'static crate::throttle::Throttles, &'static str),
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("viewset", &self.config.name)
            .field("table", &(self.table)())
            .finish_non_exhaustive()
    }
}
