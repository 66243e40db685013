//! The blog's migrations (sea-orm-migration). Applied explicitly at start-up: registering ViewSets never does.

use sea_orm_migration::prelude::*;

mod m0001_create_authors;
mod m0002_create_posts;

/// Every migration of the blog, in order.
pub struct Migrator;

impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![Box::new(m0001_create_authors::Migration), Box::new(m0002_create_posts::Migration)]
    }
}
