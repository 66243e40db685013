//! Safe retries of writes: the `Idempotency-Key` header on create (POST on a collection) and update (PATCH on a
//! record).
//!
//! The first request with a key claims it — an `INSERT` into `viewset_idempotency` that conflicts on (owner, key)
//! — *before* the write runs, and stores its answer after: status, body, and the headers `Location`, `ETag`,
//! `Content-Type` and `Preference-Applied`, with the request's [`fingerprint`] (SHA-256 of method, path and query,
//! owner, body). For [`RETENTION`] (24 hours; `ServiceState::with_idempotency_retention` sets another), a repeat
//! with the same key:
//!
//! | the repeat | answer |
//! |---|---|
//! | same request, first one finished | the stored answer, with `Idempotent-Replayed: true`; nothing is written |
//! | same request, first one still running | 409 `idempotency_in_progress` |
//! | a different request (method, path, query or body) | 422 `idempotency_key_reused` |
//!
//! A first request that fails (an error answer such as a 422 or a 404, a 5xx, a panic) releases its claim, so the
//! key can be used again. The write runs in a task of its own: a caller who disconnects does not cancel it between
//! the write and its stored answer. Permissions and rate limits run first ([`crate::access::enter`]): a caller who
//! may not write gets their 403 or 429, and no key is claimed.
//!
//! **Keys belong to their caller**: to the principal's user and tenant ([`owner`]), so two callers using the same
//! key get their own answers. **Anonymous callers' keys are refused** (400 `idempotency_requires_identity`):
//! without an identity a key could only be shared by every anonymous caller (one caller's answer replayed to
//! another, with its body) or scoped by client address (which proxies and NAT share and mobile clients change);
//! ignoring the header instead would let a client believe its retries are safe when they are not.
//! A key must be 1 to 255 visible ASCII characters (400 `invalid_idempotency_key`).
//!
//! The table is the application's: add [`Migration`] to its `Migrator`. Expired records are deleted when their key
//! is used again and, at most once a minute per process, all at once.
//!
//! ```
//! # async fn run() -> Result<(), sea_orm::DbErr> {
//! use sea_orm_migration::prelude::*;
//! struct Migrator;
//! impl MigratorTrait for Migrator {
//!     fn migrations() -> Vec<Box<dyn MigrationTrait>> {
//!         vec![Box::new(viewset_core::idempotency::Migration)]
//!     }
//! }
//! let db = viewset_core::connect("sqlite::memory:").await?;
//! Migrator::up(&db, None).await?;
//! # Ok(()) }
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run()).unwrap();
//! ```

pub(crate) mod key;
mod migration;
pub(crate) mod once;

pub use crate::request::DEFAULT_IDEMPOTENCY_RETENTION as RETENTION;
pub use key::{IdempotencyKey, MAX_KEY_BYTES, fingerprint, owner};
pub use migration::{MIGRATION_NAME, MIGRATION_SOURCE, Migration};
pub use once::REPLAYED;
