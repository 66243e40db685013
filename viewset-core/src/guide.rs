//! The guide: task-shaped pages, each the reference of what it covers. They are the files of
//! `viewset-core/docs/guide/` (readable on the repository's web page too), and their Rust examples compile as
//! doctests of this crate. Every attribute of `#[viewset(...)]` is in the rustdoc of [`crate::ViewSet`].
//!
//! | page | what it answers |
//! |---|---|
//! | [`start`] | `viewset new`, `viewset generate resource` (a second model, relations), features |
//! | [`models`] | fields and bodies, every route, safe retries, bulk, upsert, `If-Match`, your own handlers |
//! | [`lists`] | filters, search, ordering, pagination and count modes, CSV, aggregates and time buckets |
//! | [`relations`] | `?expand=`, related-field filters, full-text search, nested writes, many-to-many |
//! | [`security`] | identity (bearer, cookies, JWT), permissions, row policies, tenants, rate limits, errors |
//! | [`databases`] | SQLite, PostgreSQL, MariaDB, read replicas |
//! | [`deploy`] | the stream, the outbox, JetStream, webhooks, instances behind a balancer |
//! | [`clients`] | registration, the OpenAPI 3.1 document, TypeScript clients |
//! | [`studio`] | Studio's `/studio/` JSON and web UI |
//! | [`ai`] | `/ai`, MCP and the code generator |
//! | [`operations`] | Prometheus metrics, OpenTelemetry traces, access logs, what viewset does not do |
//!
//! ```
//! // The guide holds documentation only: each page is an empty module.
//! #[allow(unused_imports)]
//! use viewset_core::guide::start;
//! ```

#[doc = include_str!("../docs/guide/start.md")]
pub mod start {}
#[doc = include_str!("../docs/guide/models.md")]
pub mod models {}
#[doc = include_str!("../docs/guide/lists.md")]
pub mod lists {}
#[doc = include_str!("../docs/guide/relations.md")]
pub mod relations {}
#[doc = include_str!("../docs/guide/security.md")]
pub mod security {}
#[doc = include_str!("../docs/guide/databases.md")]
pub mod databases {}
#[doc = include_str!("../docs/guide/deploy.md")]
pub mod deploy {}
#[doc = include_str!("../docs/guide/clients.md")]
pub mod clients {}
#[doc = include_str!("../docs/guide/studio.md")]
pub mod studio {}
#[doc = include_str!("../docs/guide/ai.md")]
pub mod ai {}
#[doc = include_str!("../docs/guide/operations.md")]
pub mod operations {}
