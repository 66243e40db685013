//! A create where the database has no `INSERT … RETURNING` (MySQL; MariaDB reached without
//! `viewset_core::connect`, which is how this process connects): the row is inserted, then read back by the key
//! the insert set or by `LAST_INSERT_ID()` (`store/write.rs` `insert`, `Inserting::ThenRead`). Needs MariaDB
//! (`VIEWSET_TEST_MYSQL_URL`; `VIEWSET_REQUIRE_MYSQL=1` fails without it).

use sea_orm::{ActiveValue::Set, ConnectionTrait, Database};
use viewset_tests::every_database::require_mysql;
use viewset_tests::harness::TestDb;

mod note {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
    #[sea_orm(table_name = "notes")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        pub title: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[tokio::test]
async fn a_create_without_returning_reads_its_row_back_by_key() {
    let Some(server) = require_mysql() else { return };
    let database = TestDb::mysql_on(&server).await;
    // Not `viewset_core::connect`: the process has not seen MariaDB, so inserts read their rows back.
    let db = Database::connect(&database.url).await.expect("connect");
    db.execute_unprepared("CREATE TABLE notes (id INT AUTO_INCREMENT PRIMARY KEY, title VARCHAR(200) NOT NULL)")
        .await
        .expect("create table");

    let generated = note::ActiveModel { title: Set("first".into()), ..Default::default() };
    let stored = viewset_core::store::insert_returning(&db, generated).await.expect("insert with a generated key");
    assert_eq!((stored.id, stored.title.as_str()), (1, "first"));

    let keyed = note::ActiveModel { id: Set(7), title: Set("seventh".into()) };
    let stored = viewset_core::store::insert_returning(&db, keyed).await.expect("insert with its key");
    assert_eq!((stored.id, stored.title.as_str()), (7, "seventh"));

    let next = note::ActiveModel { title: Set("after".into()), ..Default::default() };
    let stored = viewset_core::store::insert_returning(&db, next).await.expect("the next generated key");
    assert_eq!((stored.id, stored.title.as_str()), (8, "after"));

    let duplicate = note::ActiveModel { id: Set(7), title: Set("again".into()) };
    assert!(viewset_core::store::insert_returning(&db, duplicate).await.is_err(), "a duplicate key is refused");
}
