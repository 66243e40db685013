//! Who may see an event: the record is loaded through the subscriber's own view (`get_queryset`, the row
//! policies, object permissions); a deleted row, which can no longer be loaded, is checked by running the same
//! query over a one-row common table expression holding its last state, named like the table.

use sea_orm::sea_query::{Alias, CommonTableExpression, Expr, PostgresQueryBuilder, SqliteQueryBuilder, WithClause};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityName, EntityTrait, IdenStatic, Iterable, PrimaryKeyToColumn,
    QueryFilter, QueryTrait, Statement, Value,
};

use crate::columns::field_name;
use crate::policy::required_condition;
use crate::value::parse_value;
use crate::{ApiError, Filters, Hooks, ModelOf, RequestContext};

fn typed<C: ColumnTrait>(column: C, json: &serde_json::Value) -> Option<Value> {
    let ty = column.def().get_column_type().clone();
    let text = match json {
        serde_json::Value::Null => return Some(null_of(&ty)),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    parse_value(&ty, &text).ok()
}

/// A typed NULL, so PostgreSQL knows the column type of the expression table.
fn null_of(ty: &sea_orm::sea_query::ColumnType) -> Value {
    use sea_orm::sea_query::ColumnType as T;
    match ty {
        T::TinyInteger => Value::TinyInt(None),
        T::SmallInteger => Value::SmallInt(None),
        T::Integer => Value::Int(None),
        T::BigInteger => Value::BigInt(None),
        T::Float => Value::Float(None),
        T::Double => Value::Double(None),
        T::Boolean => Value::Bool(None),
        T::Date => Value::ChronoDate(None),
        T::DateTime | T::Timestamp => Value::ChronoDateTime(None),
        T::TimestampWithTimeZone => Value::ChronoDateTimeUtc(None),
        _ => Value::String(None),
    }
}

/// The base query of `V` for this subscriber: `get_queryset` and the row policies.
fn scoped<V: Hooks>(request: &RequestContext) -> Result<sea_orm::Select<V::Entity>, ApiError> {
    let mut select = V::get_queryset(request, &Filters::new())?;
    if let Some(required) = required_condition::<V>(request)? {
        select = select.filter(required);
    }
    Ok(select)
}

/// The record with primary key `pk`, as this subscriber may see it now (`None`: not visible).
pub async fn visible_record<V: Hooks>(
    request: &RequestContext,
    pk: &serde_json::Value,
) -> Result<Option<ModelOf<V>>, ApiError> {
    let keys: Vec<_> = <V::Entity as EntityTrait>::PrimaryKey::iter().map(|k| k.into_column()).collect();
    let values: Vec<&serde_json::Value> = match (keys.len(), pk) {
        (1, v) => vec![v],
        (_, serde_json::Value::Array(vs)) => vs.iter().collect(),
        _ => return Ok(None),
    };
    let mut select = scoped::<V>(request)?;
    for (col, value) in keys.into_iter().zip(values) {
        let Some(v) = typed(col, value) else { return Ok(None) };
        select = select.filter(col.eq(v));
    }
    let Some(model) = select.one(&request.db).await.map_err(crate::handlers::db_err::<V>)? else { return Ok(None) };
    Ok(V::check_object_permissions(request, &model).is_ok().then_some(model))
}

/// Whether this subscriber could see the row `snapshot` (the last state of a deleted record).
pub async fn could_see_deleted<V: Hooks>(
    request: &RequestContext,
    snapshot: &serde_json::Value,
) -> Result<bool, ApiError> {
    let table = V::Entity::default().table_name();
    let mut row = sea_orm::sea_query::Query::select();
    for col in <V::Entity as EntityTrait>::Column::iter() {
        let field = snapshot.get(field_name::<V::Entity>(col)).unwrap_or(&serde_json::Value::Null);
        let Some(value) = typed(col, field) else {
            return Ok(false);
        };
        row.expr_as(Expr::val(value), Alias::new(col.as_str()));
    }
    let mut cte = CommonTableExpression::new();
    cte.query(row).table_name(Alias::new(table));
    let mut query = scoped::<V>(request)?.into_query();
    query.clear_selects().expr(Expr::val(1)).limit(1);
    let with = query.with(WithClause::new().cte(cte).to_owned());
    let backend = request.db.get_database_backend();
    let (sql, values) = match backend {
        DbBackend::Postgres => with.build(PostgresQueryBuilder),
        _ => with.build(SqliteQueryBuilder),
    };
    let found = request
        .db
        .query_one_raw(Statement::from_sql_and_values(backend, sql, values))
        .await
        .map_err(crate::handlers::db_err::<V>)?;
    Ok(found.is_some())
}
