//! Narrowing a list's `SELECT` to the fields its response shows: a column the response leaves out (a hidden field,
//! or one `?fields=` does not name) is not read; a typed constant stands in for it, so the row still decodes into
//! the model. Only where the read type allows it: the list representation is the model itself (a
//! `list_serializer_class` may read any field), and every left-out column has a type with a stand-in (text, numbers,
//! decimals, UUIDs, booleans, dates and times, JSON, bytes; an enum keeps the whole row). The primary key, the
//! ordering's columns and the columns embedded relations start from are always read.

use std::any::TypeId;

use sea_orm::sea_query::{ColumnType, Expr, SimpleExpr};
use sea_orm::{
    ColumnDef, ColumnTrait, DbBackend, EntityTrait, IdenStatic, Iterable, PrimaryKeyToColumn, QuerySelect, Select,
    Value,
};

use crate::contract::viewset::{ModelOf, ViewSet};
use crate::request::RequestContext;
use crate::types::columns::field_names;
use crate::types::list_query::OrderTerm;

/// `select` reading only what the list response of `request` needs (unchanged when it cannot be narrowed).
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String, pub body: String }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// # async fn run() {
/// use sea_orm::{EntityTrait, QueryTrait};
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, prefix = "/posts")]
/// pub struct PostViewSet;
///
/// let db = sea_orm::Database::connect("sqlite::memory:").await.unwrap();
/// let mut request = RequestContext::new(db, Operation::List);
/// // `?fields=id,title`: admission leaves `body` out of this response.
/// request.query = viewset_core::query::QueryParams::parse(Some("fields=id,title"));
/// viewset_core::access::admit::<PostViewSet>(&mut request, Operation::List).unwrap();
/// assert_eq!(request.omitted_fields(), ["body"]);
/// let select = viewset_core::query::narrow::<PostViewSet>(post::Entity::find(), &request, &[]);
/// let sql = select.build(sea_orm::DbBackend::Sqlite).to_string();
/// assert!(!sql.contains(r#""posts"."body""#) && sql.contains(r#""posts"."title""#), "{sql}");
/// # }
/// ```
pub fn narrow<V: ViewSet>(
    select: Select<V::Entity>,
    request: &RequestContext,
    order: &[OrderTerm<V::Entity>],
) -> Select<V::Entity>
where
    ModelOf<V>: 'static,
{
    let left_out = request.left_out();
    if left_out.is_empty() || TypeId::of::<V::ListItem>() != TypeId::of::<ModelOf<V>>() {
        return select;
    }
    // What the plain function below needs, collected in loops (closures here are compiled again per ViewSet).
    let mut columns = Vec::new();
    for column in <V::Entity as EntityTrait>::Column::iter() {
        columns.push((column.as_str(), column.def()));
    }
    let mut always = Vec::new();
    for key in <V::Entity as EntityTrait>::PrimaryKey::iter() {
        always.push(key.into_column().as_str());
    }
    for term in order {
        always.push(term.column.as_str());
    }
    let fields = field_names::<V::Entity>();
    let Some(stand_ins) = stand_ins(request, &left_out, &columns, fields, always) else { return select };
    let mut narrowed = select.select_only();
    let mut stand_ins = stand_ins.into_iter();
    for column in <V::Entity as EntityTrait>::Column::iter() {
        narrowed = match stand_ins.next().flatten() {
            Some(value) => narrowed.expr_as(SimpleExpr::from(Expr::val(value)), column.as_str()),
            None => narrowed.column(column),
        };
    }
    narrowed
}

/// For each of `columns` (database name and definition; `fields` their model field names), the stand-in read
/// instead of it, or `None` to read the column. `None` overall when nothing of `left_out` is among them, or when a
/// left-out column has no stand-in. `always`: the columns read whatever the response shows (primary key, ordering).
/// One function for every ViewSet.
fn stand_ins<'a>(
    request: &'a RequestContext,
    left_out: &[&str],
    columns: &[(&'static str, ColumnDef)],
    fields: &[&str],
    mut always: Vec<&'a str>,
) -> Option<Vec<Option<Value>>> {
    always.extend(request.expand.items.iter().map(|item| item.from.as_str()));
    let backend = request.db.get_database_backend();
    let mut stand_ins = Vec::with_capacity(columns.len());
    let mut any = false;
    for (i, (name, def)) in columns.iter().enumerate() {
        let field = fields.get(i).copied().unwrap_or(name);
        if !left_out.contains(&field) || always.contains(name) {
            stand_ins.push(None);
            continue;
        }
        stand_ins.push(Some(stand_in(def.get_column_type(), def.is_null(), backend)?));
        any = true;
    }
    any.then_some(stand_ins)
}

/// A typed constant of the column's type (a typed NULL when nullable), or `None` for a type without one. On SQLite a
/// decimal is a number read as `f64` (sea-orm stores it as `REAL`; a bound decimal is text, which would not decode),
/// elsewhere a decimal.
fn stand_in(ty: &ColumnType, nullable: bool, backend: DbBackend) -> Option<Value> {
    use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
    let epoch = DateTime::<Utc>::UNIX_EPOCH;
    let value = match ty {
        ColumnType::Char(_) | ColumnType::String(_) | ColumnType::Text => Value::String(Some(String::new())),
        ColumnType::TinyInteger => Value::TinyInt(Some(0)),
        ColumnType::SmallInteger => Value::SmallInt(Some(0)),
        ColumnType::Integer => Value::Int(Some(0)),
        ColumnType::BigInteger => Value::BigInt(Some(0)),
        ColumnType::TinyUnsigned => Value::TinyUnsigned(Some(0)),
        ColumnType::SmallUnsigned => Value::SmallUnsigned(Some(0)),
        ColumnType::Unsigned => Value::Unsigned(Some(0)),
        ColumnType::BigUnsigned => Value::BigUnsigned(Some(0)),
        ColumnType::Float => Value::Float(Some(0.0)),
        ColumnType::Double => Value::Double(Some(0.0)),
        ColumnType::Boolean => Value::Bool(Some(false)),
        ColumnType::Date => Value::ChronoDate(Some(NaiveDate::default())),
        ColumnType::Time => Value::ChronoTime(Some(NaiveTime::default())),
        ColumnType::DateTime | ColumnType::Timestamp => Value::ChronoDateTime(Some(NaiveDateTime::default())),
        ColumnType::TimestampWithTimeZone => Value::ChronoDateTimeUtc(Some(epoch)),
        ColumnType::Json | ColumnType::JsonBinary => Value::Json(Some(Box::new(serde_json::Value::Null))),
        ColumnType::Binary(_) | ColumnType::VarBinary(_) | ColumnType::Blob => Value::Bytes(Some(Vec::new())),
        ColumnType::Uuid => Value::Uuid(Some(sea_orm::prelude::Uuid::nil())),
        ColumnType::Decimal(_) | ColumnType::Money(_) if backend == DbBackend::Sqlite => Value::Double(Some(0.0)),
        ColumnType::Decimal(_) | ColumnType::Money(_) => Value::Decimal(Some(sea_orm::prelude::Decimal::ZERO)),
        _ => return None,
    };
    Some(if nullable { value.as_null() } else { value })
}
