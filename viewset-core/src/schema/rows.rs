//! Rows decoded into models. sea-orm's derived `FromQueryResult` finds every value by its column's name (a hash
//! lookup per value); a model that derives [`ModelSchema`] also decodes by position, which a list uses for its
//! page when the rows hold exactly the entity's columns in the entity's order (what `Entity::find()` selects),
//! checked once per page against the first row's column names. Any other select (`select_only`, a sparse select,
//! added columns) is decoded by name as before.

use sea_orm::{DbErr, EntityTrait, FromQueryResult, IdenStatic, Iterable, ModelTrait, QueryResult};

use super::ModelSchema;

/// The name of the last column of a list page that also counts its filtered set (`COUNT(*) OVER () AS …`,
/// `store::page`): decoding by position reads the entity's columns before it and leaves it alone.
pub(crate) const WINDOW_COUNT: &str = "viewset_window_count";

/// `rows` decoded as `M`, by position when they hold the entity's columns in order, by name otherwise.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::{ConnectionTrait, Statement};
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// let sql = "SELECT 1 AS id, 'Hello' AS title UNION ALL SELECT 2, 'World'";
/// let rows = db.query_all_raw(Statement::from_string(db.get_database_backend(), sql)).await?;
/// let posts = viewset_core::schema::rows::decode_in_order::<post::Model>(&rows)?;
/// assert_eq!(posts[1], post::Model { id: 2, title: "World".into() });
/// # Ok(()) }
/// ```
pub fn decode_in_order<M: ModelSchema + ModelTrait + FromQueryResult>(rows: &[QueryResult]) -> Result<Vec<M>, DbErr> {
    let Some(first) = rows.first() else { return Ok(Vec::new()) };
    if in_entity_order::<M::Entity>(first)
        && let Some(first) = M::from_row_in_order(first)
    {
        let mut models = Vec::with_capacity(rows.len());
        models.push(first?);
        for row in &rows[1..] {
            models.push(M::from_row_in_order(row).expect("decodes in order, as the first row did")?);
        }
        return Ok(models);
    }
    decode_by_name(rows)
}

/// The nullable value at `index` of `row` (a field of type `Option<T>`, decoded by position): `None` for SQL
/// `NULL`, read from the driver's row first. sea-orm's `Option<T>` decoder asks for `T` and turns its "null"
/// error into `None`, and that error carries the column written out with `format!`: an allocation and the
/// formatting machinery for every `NULL` value in a page.
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::{ConnectionTrait, Statement};
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// let sql = "SELECT NULL AS a, 2.5 AS b";
/// let row = db.query_one_raw(Statement::from_string(db.get_database_backend(), sql)).await?.expect("a row");
/// assert_eq!(viewset_core::schema::rows::nullable::<f64>(&row, 0)?, None);
/// assert_eq!(viewset_core::schema::rows::nullable::<f64>(&row, 1)?, Some(2.5));
/// # Ok(()) }
/// ```
pub fn nullable<T: sea_orm::TryGetable>(row: &QueryResult, index: usize) -> Result<Option<T>, DbErr> {
    #[cfg(any(feature = "postgres", feature = "sqlite"))]
    use sqlx::{Row, ValueRef};
    #[cfg(feature = "postgres")]
    if let Some(pg) = row.try_as_pg_row()
        && pg.try_get_raw(index).is_ok_and(|value| value.is_null())
    {
        return Ok(None);
    }
    #[cfg(feature = "sqlite")]
    if let Some(sqlite) = row.try_as_sqlite_row()
        && sqlite.try_get_raw(index).is_ok_and(|value| value.is_null())
    {
        return Ok(None);
    }
    row.try_get_by_index::<Option<T>>(index)
}

/// Whether `row` holds `E`'s columns in `E`'s order (then perhaps [`WINDOW_COUNT`]).
fn in_entity_order<E: EntityTrait>(row: &QueryResult) -> bool {
    in_order(row, &mut <E::Column as Iterable>::iter().map(|column| column.as_str()))
}

/// Whether `row` holds the columns `entity` in this order (then perhaps [`WINDOW_COUNT`]), read from the driver's
/// row without copying the names. One function for every entity.
fn in_order(row: &QueryResult, entity: &mut dyn Iterator<Item = &str>) -> bool {
    #[cfg(any(feature = "postgres", feature = "sqlite"))]
    use sqlx::{Column, Row};
    #[cfg(feature = "postgres")]
    if let Some(row) = row.try_as_pg_row() {
        return entity_then_count(&mut row.columns().iter().map(|c| c.name()), entity);
    }
    #[cfg(feature = "sqlite")]
    if let Some(row) = row.try_as_sqlite_row() {
        return entity_then_count(&mut row.columns().iter().map(|c| c.name()), entity);
    }
    entity_then_count(&mut row.column_names().iter().map(String::as_str), entity)
}

/// Whether `names` are exactly `entity`'s, perhaps followed by [`WINDOW_COUNT`].
fn entity_then_count(names: &mut dyn Iterator<Item = &str>, entity: &mut dyn Iterator<Item = &str>) -> bool {
    for column in entity {
        if names.next() != Some(column) {
            return false;
        }
    }
    matches!(names.next(), None | Some(WINDOW_COUNT)) && names.next().is_none()
}

/// `rows` decoded as `M` by column name (sea-orm's `FromQueryResult`).
///
/// ```
/// # async fn run() -> Result<(), sea_orm::DbErr> {
/// use sea_orm::{ConnectionTrait, Statement};
/// let db = viewset_core::connect("sqlite::memory:").await?;
/// let rows = db.query_all_raw(Statement::from_string(db.get_database_backend(), "SELECT 7 AS seven")).await?;
/// let values: Vec<sea_orm::JsonValue> = viewset_core::schema::rows::decode_by_name(&rows)?;
/// assert_eq!(values[0]["seven"], 7);
/// # Ok(()) }
/// ```
pub fn decode_by_name<M: FromQueryResult>(rows: &[QueryResult]) -> Result<Vec<M>, DbErr> {
    let mut decoded = Vec::with_capacity(rows.len());
    for row in rows {
        decoded.push(M::from_query_result(row, "")?);
    }
    Ok(decoded)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use sea_orm::entity::prelude::*;
    use sea_orm::{ConnectionTrait, Statement};

    use super::*;

    use crate::test_entity as item;

    static IN_ORDER: AtomicUsize = AtomicUsize::new(0);

    /// By position, counted (what the derive generates, plus the count).
    impl ModelSchema for item::Model {
        type Create = ();
        type Update = ();
        const FIELDS: &'static [crate::schema::FieldInfo] = &[];
        fn read_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
            crate::schema::free_form_schema()
        }
        fn from_row_in_order(row: &QueryResult) -> Option<Result<Self, DbErr>> {
            IN_ORDER.fetch_add(1, Ordering::SeqCst);
            Some((|| Ok(item::Model { id: row.try_get_by_index(0)?, name: row.try_get_by_index(1)? }))())
        }
    }

    async fn rows(db: &sea_orm::DatabaseConnection, sql: &str) -> Vec<QueryResult> {
        db.query_all_raw(Statement::from_string(db.get_database_backend(), sql)).await.expect("rows")
    }

    #[tokio::test]
    async fn by_position_only_for_the_entitys_columns_in_order() {
        let db = crate::connect("sqlite::memory:").await.expect("database");
        let expected = vec![item::Model { id: 1, name: "one".into() }, item::Model { id: 2, name: "two".into() }];
        let in_order = rows(&db, "SELECT 1 AS id, 'one' AS label UNION ALL SELECT 2, 'two'").await;
        assert_eq!(decode_in_order::<item::Model>(&in_order).expect("decoded"), expected);
        assert_eq!(IN_ORDER.swap(0, Ordering::SeqCst), 2, "each row by position");
        // The same columns in another order, or one more: by name, right all the same.
        let reordered = rows(&db, "SELECT 'one' AS label, 1 AS id UNION ALL SELECT 'two', 2").await;
        let more = rows(&db, "SELECT 1 AS id, 'one' AS label, 0 AS extra UNION ALL SELECT 2, 'two', 0").await;
        for other in [reordered, more] {
            assert_eq!(decode_in_order::<item::Model>(&other).expect("decoded"), expected);
            assert_eq!(IN_ORDER.load(Ordering::SeqCst), 0, "by name");
        }
        assert!(decode_in_order::<item::Model>(&[]).expect("no rows").is_empty());
    }
}
