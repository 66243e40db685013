//! Substring matching that behaves the same on SQLite and PostgreSQL, always with bound parameters.
//!
//! Case-insensitive: `ILIKE` on PostgreSQL (whose default escape character is the backslash), `col LIKE pattern
//! ESCAPE '\'` on SQLite (sea-query's `ilike` panics when built for SQLite, and on PostgreSQL it renders `ESCAPE`
//! inside parentheses, which PostgreSQL rejects). SQLite's `LIKE` folds the case of ASCII letters and of nothing
//! else, exactly what its `LOWER()` folds (without the ICU extension, which sqlx's SQLite does not load), so
//! `LOWER(col) LIKE LOWER(pattern)` matched the same rows while lower-casing every row first: counting the 10,000
//! posts of `bench/sqlite.sh` that hold `rust` in `title` or `body` takes 1 ms instead of 4 in the SQLite 3.40.1
//! shell. `É` does not match `é` on SQLite, as before (the unit test below runs both forms on SQLite).
//! Case-sensitive literal matches: `LIKE` on PostgreSQL, `instr()` on SQLite (whose `LIKE` ignores case).
//!
//! MariaDB / MySQL: backslash is `LIKE`'s default escape character there too, so no `ESCAPE` clause (whose `''`
//! would open an unterminated string literal). The column is read as `utf8mb4` and compared under `utf8mb4_bin`
//! whatever its own collation, so a match is what it is on PostgreSQL: case-insensitive is `LOWER(col) LIKE
//! LOWER(pattern)` (Unicode lower case, accents kept: `e` does not match `é`), case-sensitive is `col LIKE pattern`,
//! exact in case and accents; `_` is one character.

use sea_orm::sea_query::{BinOper, Expr, ExprTrait};
use sea_orm::{ColumnTrait, DbBackend};

/// Whether `%` and `_` in the needle are wildcards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wildcards {
    /// `%` and `_` match themselves (the `contains` lookups).
    Literal,
    /// `%` and `_` keep their SQL meaning (`search`, as the spec says: it is `ILIKE` matching).
    Sql,
}

/// `col` contains `needle`.
pub fn text_match<C: ColumnTrait>(
    col: C,
    needle: &str,
    wildcards: Wildcards,
    insensitive: bool,
    backend: DbBackend,
) -> Expr {
    let column = Expr::col(col.as_column_ref());
    // `%needle%` with the escape character escaped (and, for a literal needle, `%` and `_`), in one buffer.
    let mut pattern = String::with_capacity(needle.len() + 2);
    pattern.push('%');
    for c in needle.chars() {
        if c == '\\' || (wildcards == Wildcards::Literal && (c == '%' || c == '_')) {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    let pattern = Expr::val(pattern);
    if backend == DbBackend::Postgres {
        // Backslash is PostgreSQL's default `LIKE` escape character, so no `ESCAPE` clause is needed, and a plain
        // binary operator is rendered without the tokenizing of a custom expression (on every list, twice).
        return column.binary(BinOper::Custom(if insensitive { "ILIKE" } else { "LIKE" }), pattern);
    }
    let template = match (backend, insensitive, wildcards) {
        (DbBackend::MySql, true, _) => "LOWER(CONVERT(? USING utf8mb4)) LIKE LOWER(?) COLLATE utf8mb4_bin",
        (DbBackend::MySql, false, _) => "CONVERT(? USING utf8mb4) LIKE ? COLLATE utf8mb4_bin",
        (DbBackend::Sqlite, false, Wildcards::Literal) => {
            return Expr::cust_with_exprs("instr(?, ?) > 0", [column, Expr::val(needle.to_string())]);
        }
        // SQLite's `LIKE` ignores the case of ASCII letters, all that its `LOWER()` would fold (module docs).
        _ => "? LIKE ? ESCAPE '\\'",
    };
    Expr::cust_with_exprs(template, [column, pattern])
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::{EntityTrait, QueryFilter, QueryTrait};

    mod cake {
        use sea_orm::entity::prelude::*;
        #[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
        #[sea_orm(table_name = "cake")]
        pub struct Model {
            #[sea_orm(primary_key)]
            pub id: i32,
            pub name: String,
        }
        #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
        pub enum Relation {}
        impl ActiveModelBehavior for ActiveModel {}
    }

    fn sql(backend: DbBackend, insensitive: bool, wildcards: Wildcards) -> String {
        let e = text_match(cake::Column::Name, "a%b", wildcards, insensitive, backend);
        cake::Entity::find().filter(e).build(backend).to_string()
    }

    #[test]
    fn renders_per_backend() {
        assert!(sql(DbBackend::Postgres, true, Wildcards::Literal).ends_with(r#""cake"."name" ILIKE E'%a\\%b%'"#));
        assert!(sql(DbBackend::Postgres, false, Wildcards::Literal).ends_with(r#""cake"."name" LIKE E'%a\\%b%'"#));
        assert!(sql(DbBackend::Sqlite, true, Wildcards::Sql).ends_with(r#""cake"."name" LIKE '%a%b%' ESCAPE '\'"#));
        assert!(sql(DbBackend::Sqlite, false, Wildcards::Literal).ends_with(r#"instr("cake"."name", 'a%b') > 0"#));
        let insensitive = r"LOWER(CONVERT(`cake`.`name` USING utf8mb4)) LIKE LOWER('%a\\%b%') COLLATE utf8mb4_bin";
        assert!(sql(DbBackend::MySql, true, Wildcards::Literal).ends_with(insensitive));
        let sensitive = r"CONVERT(`cake`.`name` USING utf8mb4) LIKE '%a\\%b%' COLLATE utf8mb4_bin";
        assert!(sql(DbBackend::MySql, false, Wildcards::Literal).ends_with(sensitive));
    }

    #[test]
    fn escapes_as_replacing_would() {
        for needle in ["", "plain", r"a\b", "100%", "snake_case", r"\%_\\", "ünï_cödé%"] {
            for (wildcards, body) in [
                (Wildcards::Literal, needle.replace('\\', r"\\").replace('%', r"\%").replace('_', r"\_")),
                (Wildcards::Sql, needle.replace('\\', r"\\")),
            ] {
                let e = text_match(cake::Column::Name, needle, wildcards, true, DbBackend::Postgres);
                let statement = cake::Entity::find().filter(e).build(DbBackend::Postgres);
                let values = statement.values.expect("bound values").0;
                assert_eq!(values, [format!("%{body}%").into()], "{needle:?} {wildcards:?}");
            }
        }
    }

    /// On a real SQLite database, plain `LIKE` matches exactly the rows `LOWER(col) LIKE LOWER(pattern)` matched:
    /// ASCII letters in either case, every other character as it is (`É` is not `é`), wildcards and escapes alike.
    #[cfg(feature = "sqlite")]
    #[tokio::test]
    async fn sqlite_like_matches_what_lower_like_matched() {
        use sea_orm::{ActiveModelTrait, ConnectionTrait, Database, QueryOrder, Set, Statement};
        let db = Database::connect("sqlite::memory:").await.expect("in-memory SQLite");
        db.execute_unprepared("CREATE TABLE cake (id INTEGER PRIMARY KEY, name TEXT NOT NULL)").await.expect("table");
        let names =
            ["Crème Brûlée", "CRÈME", "crème", "Éclair", "éclair", "ÉCLAIR", "Apple Pie", "100% cocoa", r"a_b\c"];
        for (id, name) in (1..).zip(names) {
            cake::ActiveModel { id: Set(id), name: Set(name.to_string()) }.insert(&db).await.expect("row");
        }
        let names_of = |rows: Vec<cake::Model>| rows.into_iter().map(|row| row.name).collect::<Vec<_>>();
        for needle in
            ["é", "É", "è", "È", "ÈME", "crème", "CRÈME", "apple", "APPLE", "pIe", "%", "_", "a_b", r"\", "zz"]
        {
            for wildcards in [Wildcards::Sql, Wildcards::Literal] {
                let e = text_match(cake::Column::Name, needle, wildcards, true, DbBackend::Sqlite);
                let new = cake::Entity::find().filter(e.clone()).order_by_asc(cake::Column::Id).all(&db).await;
                let pattern = cake::Entity::find().filter(e).build(DbBackend::Sqlite).values.expect("pattern").0;
                let old = Statement::from_sql_and_values(
                    DbBackend::Sqlite,
                    r#"SELECT * FROM "cake" WHERE LOWER("name") LIKE LOWER(?) ESCAPE '\' ORDER BY "id""#,
                    pattern,
                );
                let old = cake::Entity::find().from_raw_sql(old).all(&db).await;
                assert_eq!(names_of(new.expect("new")), names_of(old.expect("old")), "{needle:?} {wildcards:?}");
            }
        }
        let matching = |needle: &'static str| {
            let e = text_match(cake::Column::Name, needle, Wildcards::Literal, true, DbBackend::Sqlite);
            let query = cake::Entity::find().filter(e).order_by_asc(cake::Column::Id);
            let db = db.clone();
            async move { names_of(query.all(&db).await.expect("query")) }
        };
        assert_eq!(matching("éclair").await, ["éclair"], "non-ASCII letters keep their case");
        assert_eq!(matching("ÉCLAIR").await, ["Éclair", "ÉCLAIR"], "`É` as it is, `CLAIR` in either case");
        assert_eq!(matching("CLAIR").await, ["Éclair", "éclair", "ÉCLAIR"], "ASCII letters match in either case");
        assert_eq!(matching("crème").await, ["Crème Brûlée", "crème"], "not `CRÈME`: `È` is not `è`");
    }
}
