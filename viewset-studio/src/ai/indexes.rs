//! What the database catalog says about one table, for `GET /ai/schema/health`: whether it exists, which columns
//! lead an index (a primary key or unique constraint counts: it has one), and its foreign-key columns. Read from
//! SQLite's `pragma_*` table functions, PostgreSQL's `pg_index` / `pg_constraint` and MariaDB/MySQL's
//! `information_schema` (in the connection's database); no row of the table is read. InnoDB indexes every foreign
//! key itself, so on MariaDB/MySQL a foreign key always leads an index.
//!
//! The table's size is the database's own estimate, from the statistics it keeps for its planner: PostgreSQL's
//! `pg_class.reltuples` (none before the first `ANALYZE` or autovacuum), MariaDB/MySQL's
//! `information_schema.TABLES.TABLE_ROWS`, SQLite's `sqlite_stat1` (written by `ANALYZE` only).

use std::collections::BTreeSet;

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, DbErr, Statement};

/// One table as its database catalog describes it.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct TableCatalog {
    /// Whether the table exists.
    pub(crate) exists: bool,
    /// Columns that are the first column of an index: a filter, an ordering or a join on them can use it.
    pub(crate) leading: BTreeSet<String>,
    /// The first column of each foreign key, with the table it refers to.
    pub(crate) foreign_keys: Vec<(String, String)>,
    /// The rows the database's statistics estimate the table holds; `None` without statistics.
    pub(crate) estimated_rows: Option<u64>,
}

/// Reads `table`'s catalog (in the connection's default schema on PostgreSQL).
pub(crate) async fn read(db: &DatabaseConnection, table: &str) -> Result<TableCatalog, DbErr> {
    let backend = db.get_database_backend();
    let (exists, leading, foreign_keys) = match backend {
        DbBackend::Sqlite => (SQLITE_EXISTS, SQLITE_LEADING, SQLITE_FOREIGN_KEYS),
        DbBackend::Postgres => (PG_EXISTS, PG_LEADING, PG_FOREIGN_KEYS),
        DbBackend::MySql => (MY_EXISTS, MY_LEADING, MY_FOREIGN_KEYS),
        other => return Err(DbErr::Custom(format!("schema health cannot read the catalog of {other:?}"))),
    };
    let rows = |sql: &str| {
        db.query_all_raw(Statement::from_sql_and_values(
            backend,
            sql.replace("$table", placeholder(backend)),
            [table.into()],
        ))
    };
    if rows(exists).await?.is_empty() {
        return Ok(TableCatalog::default());
    }
    let mut catalog = TableCatalog { exists: true, ..TableCatalog::default() };
    for row in rows(leading).await? {
        if let Some(column) = row.try_get::<Option<String>>("", "col")? {
            catalog.leading.insert(column);
        }
    }
    for row in rows(foreign_keys).await? {
        catalog.foreign_keys.push((row.try_get("", "col")?, row.try_get("", "target")?));
    }
    catalog.foreign_keys.sort();
    catalog.foreign_keys.dedup();
    let estimate = match backend {
        // `sqlite_stat1` exists once `ANALYZE` ran.
        DbBackend::Sqlite if rows(SQLITE_HAS_STATISTICS).await?.is_empty() => None,
        DbBackend::Sqlite => Some(SQLITE_ROWS),
        DbBackend::Postgres => Some(PG_ROWS),
        _ => Some(MY_ROWS),
    };
    if let Some(sql) = estimate {
        let found = rows(sql).await?.into_iter().next();
        let n = found.map(|row| row.try_get::<Option<i64>>("", "n")).transpose()?.flatten();
        // PostgreSQL says -1 for a table never analyzed.
        catalog.estimated_rows = n.and_then(|n| u64::try_from(n).ok());
    }
    Ok(catalog)
}

fn placeholder(backend: DbBackend) -> &'static str {
    match backend {
        DbBackend::Postgres => "$1",
        DbBackend::MySql => "?",
        _ => "?1",
    }
}

const SQLITE_EXISTS: &str = "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = $table";
/// Indexed columns, and the `INTEGER PRIMARY KEY` that is the rowid (it has no entry in `pragma_index_list`).
const SQLITE_LEADING: &str = "SELECT ii.name AS col FROM pragma_index_list($table) AS il \
     JOIN pragma_index_info(il.name) AS ii WHERE ii.seqno = 0 \
     UNION SELECT name AS col FROM pragma_table_info($table) WHERE pk = 1";
const SQLITE_FOREIGN_KEYS: &str =
    "SELECT \"from\" AS col, \"table\" AS target FROM pragma_foreign_key_list($table) WHERE seq = 0";

/// `$table` is bound but unused: every statement here takes the table name.
const SQLITE_HAS_STATISTICS: &str =
    "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1' AND $table IS NOT NULL";
/// The first number of a `stat` is the table's rows.
const SQLITE_ROWS: &str = "SELECT MAX(CAST(stat AS INTEGER)) AS n FROM sqlite_stat1 WHERE tbl = $table";

const PG_EXISTS: &str = "SELECT 1 AS found WHERE to_regclass(quote_ident($table)) IS NOT NULL";
const PG_LEADING: &str = "SELECT a.attname::text AS col FROM pg_index i \
     JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] \
     WHERE i.indrelid = to_regclass(quote_ident($table))";
const PG_FOREIGN_KEYS: &str = "SELECT a.attname::text AS col, c.confrelid::regclass::text AS target \
     FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1] \
     WHERE c.contype = 'f' AND c.conrelid = to_regclass(quote_ident($table))";

const PG_ROWS: &str = "SELECT reltuples::bigint AS n FROM pg_class WHERE oid = to_regclass(quote_ident($table))";

const MY_EXISTS: &str =
    "SELECT 1 AS found FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = $table";
// A `FULLTEXT` index serves `MATCH … AGAINST` only, never a filter or an ordering on its first column.
const MY_LEADING: &str = "SELECT CAST(COLUMN_NAME AS CHAR) AS col FROM information_schema.STATISTICS \
     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = $table AND SEQ_IN_INDEX = 1 AND INDEX_TYPE <> 'FULLTEXT'";
const MY_FOREIGN_KEYS: &str = "SELECT CAST(COLUMN_NAME AS CHAR) AS col, CAST(REFERENCED_TABLE_NAME AS CHAR) AS target \
     FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = $table \
     AND REFERENCED_TABLE_NAME IS NOT NULL AND ORDINAL_POSITION = 1";

const MY_ROWS: &str = "SELECT CAST(TABLE_ROWS AS SIGNED) AS n FROM information_schema.TABLES \
     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = $table";

#[cfg(test)]
mod tests {
    use sea_orm::{ConnectionTrait, Database};

    use super::*;

    #[tokio::test]
    async fn sqlite_catalog_names_leading_index_columns_and_foreign_keys() {
        let db = Database::connect("sqlite::memory:").await.unwrap();
        for sql in [
            "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT UNIQUE)",
            "CREATE TABLE posts (id INTEGER PRIMARY KEY, author_id INTEGER REFERENCES authors(id), \
             title TEXT, views INTEGER)",
            "CREATE INDEX posts_views_title ON posts (views, title)",
        ] {
            db.execute_unprepared(sql).await.unwrap();
        }
        let posts = read(&db, "posts").await.unwrap();
        assert!(posts.exists);
        assert_eq!(posts.leading.iter().map(String::as_str).collect::<Vec<_>>(), ["id", "views"]);
        assert_eq!(posts.foreign_keys, [("author_id".to_string(), "authors".to_string())]);
        let authors = read(&db, "authors").await.unwrap();
        assert_eq!(authors.leading.iter().map(String::as_str).collect::<Vec<_>>(), ["id", "name"]);
        assert_eq!(read(&db, "nowhere").await.unwrap(), TableCatalog::default());
        assert_eq!(posts.estimated_rows, None, "no statistics before ANALYZE");
        db.execute_unprepared("INSERT INTO posts (views) VALUES (1), (2), (3)").await.unwrap();
        db.execute_unprepared("ANALYZE").await.unwrap();
        assert_eq!(read(&db, "posts").await.unwrap().estimated_rows, Some(3));
    }
}
