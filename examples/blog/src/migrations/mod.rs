//! The blog's migrations (sea-orm-migration). Applied explicitly at start-up: registering ViewSets never does.

use sea_orm_migration::prelude::*;

mod m0001_create_authors;
mod m0002_create_posts;
mod m0003_add_post_slug;
mod m0004_posts_fulltext_mariadb;
mod m0005_create_tags;

/// Every migration of the blog, in order; the last two are the framework's tables: idempotency records
/// (`Idempotency-Key` on creates and updates) and the event outbox (`SERVICE_EVENT_BUS=postgres`).
pub struct Migrator;

impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m0001_create_authors::Migration),
            Box::new(m0002_create_posts::Migration),
            Box::new(m0003_add_post_slug::Migration),
            Box::new(m0004_posts_fulltext_mariadb::Migration),
            Box::new(m0005_create_tags::Migration),
            Box::new(viewset_core::idempotency::Migration),
            Box::new(viewset_core::events::Migration),
        ]
    }
}

/// Each migration's name (as sea-orm-migration records it) and source text, embedded at build time: Studio's
/// migrations checksum covers the files, so an edited migration shows as a changed checksum.
pub const SOURCES: [(&str, &str); 7] = [
    ("m0001_create_authors", include_str!("m0001_create_authors.rs")),
    ("m0002_create_posts", include_str!("m0002_create_posts.rs")),
    ("m0003_add_post_slug", include_str!("m0003_add_post_slug.rs")),
    ("m0004_posts_fulltext_mariadb", include_str!("m0004_posts_fulltext_mariadb.rs")),
    ("m0005_create_tags", include_str!("m0005_create_tags.rs")),
    (viewset_core::idempotency::MIGRATION_NAME, viewset_core::idempotency::MIGRATION_SOURCE),
    (viewset_core::events::MIGRATION_NAME, viewset_core::events::MIGRATION_SOURCE),
];
