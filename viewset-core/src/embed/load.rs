//! Loading embedded records: one `IN (...)` query per relation per page, through the related ViewSet's access path.

use std::collections::HashMap;

use std::future::{Future, ready};

use futures_util::future::Either;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use serde_json::Value as Json;

use sea_orm::QueryTrait;
use sea_orm::sea_query::SelectStatement;

use crate::access;
use crate::access::fields::visible;
use crate::boxed::{SendFuture, send};
use crate::contract::hooks::Hooks;
use crate::contract::permission;
use crate::contract::viewset::{ModelOf, ViewSet};
use crate::error::ApiError;
use crate::query::filter::condition;
use crate::query::ordering::{apply_order, effective_order};
use crate::query::related::composite;
use crate::request::RequestContext;
use crate::request::embedders::{Ask, Batch, Embedder, Expand, Item};
use crate::schema::ReadSchema;
use crate::types::columns::{column, column_named, field_name};
use crate::types::list_query::ListQuery;
use crate::types::params::Filters;
use crate::types::value::from_json;

/// The most records one relation may embed into one response (a has-many relation over a page); more is a 422
/// asking for a smaller page.
pub const MAX_EMBEDDED_ROWS: u64 = 10_000;

/// The JSON value of the field of `E` stored in database column `column` (`Null` when there is none).
fn field_of<E: EntityTrait>(row: &Json, column: &str) -> Json {
    column_named::<E>(column).and_then(|c| row.get(field_name::<E>(c)).cloned()).unwrap_or(Json::Null)
}

/// The embedded values of each of `rows` (in order): for every relation of `expand`, its name and the related
/// record (or `null`), or the array of related records for a has-many relation.
///
/// ```
/// # mod post { use sea_orm::entity::prelude::*;
/// #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
/// #   #[sea_orm(table_name = "posts")]
/// #   pub struct Model { #[sea_orm(primary_key)] pub id: i32 }
/// #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)] pub enum Relation {}
/// #   impl ActiveModelBehavior for ActiveModel {} }
/// # async fn run() -> Result<(), viewset_core::ApiError> {
/// use viewset_core::embed::{Expand, embed_rows};
/// use viewset_core::prelude::*;
///
/// #[derive(ModelViewSet)]
/// #[viewset(model = post::Entity, prefix = "/posts")]
/// pub struct PostViewSet;
///
/// let db = sea_orm::Database::connect("sqlite::memory:").await.unwrap();
/// let request = RequestContext::new(db, Operation::List);
/// let rows = vec![post::Model { id: 1 }];
/// let embedded = embed_rows::<PostViewSet>(&rows, &Expand::default(), &request).await?;
/// assert_eq!(embedded, vec![Vec::new()]); // nothing asked, nothing embedded, no query
/// # Ok(()) }
/// ```
pub fn embed_rows<'a, V: ViewSet>(
    rows: &'a [ModelOf<V>],
    expand: &'a Expand,
    request: &'a RequestContext,
) -> impl Future<Output = EmbedResult> + Send + 'a {
    // A ViewSet without `expandable` is never asked to embed: its code for embedding is not compiled (a branch a
    // constant rules out is not instantiated; build time: BENCHMARKS.md, "Compile cost").
    if const { V::CONFIG.expandable.is_empty() } {
        return Either::Left(ready(Ok(nothing_embedded(rows.len(), 0))));
    }
    if expand.is_empty() || rows.is_empty() {
        return Either::Left(ready(Ok(nothing_embedded(rows.len(), expand.items.len()))));
    }
    let mut models = Vec::with_capacity(rows.len());
    for row in rows {
        models.push(serde_json::to_value(row).unwrap_or(Json::Null));
    }
    Either::Right(send(embed_models(models, &field_of::<V::Entity>, expand, request)))
}

/// The embedded values of the records `models` (as JSON), each relation's key read by `field_of`: [`embed_rows`]
/// past its generic part.
async fn embed_models(
    models: Vec<Json>,
    field_of: &(dyn Fn(&Json, &str) -> Json + Sync),
    expand: &Expand,
    request: &RequestContext,
) -> Result<Embedded, ApiError> {
    let mut out: Embedded = models.iter().map(|_| Vec::with_capacity(expand.items.len())).collect();
    for item in &expand.items {
        let keys: Vec<Json> = models.iter().map(|m| field_of(m, &item.from)).collect();
        let related = related(item, &keys, request).await?;
        for (slot, key) in out.iter_mut().zip(&keys) {
            let found = related.get(&key.to_string());
            let value = match (item.many, found) {
                (true, found) => Json::Array(found.cloned().unwrap_or_default()),
                (false, found) => found.and_then(|records| records.first().cloned()).unwrap_or(Json::Null),
            };
            slot.push((item.name, value));
        }
    }
    Ok(out)
}

/// No embedded value for each of `rows` records, with room for `relations`.
fn nothing_embedded(rows: usize, relations: usize) -> Embedded {
    (0..rows).map(|_| Vec::with_capacity(relations)).collect()
}

/// The embedded values of each record: per relation asked, its name and value.
type Embedded = Vec<Vec<(&'static str, Json)>>;

/// What [`embed_rows`] answers.
type EmbedResult = Result<Embedded, ApiError>;

/// The records of `item`'s table matching `keys`, grouped by key text.
async fn related(item: &Item, keys: &[Json], request: &RequestContext) -> Result<HashMap<String, Vec<Json>>, ApiError> {
    let mut distinct: Vec<Json> = Vec::new();
    for key in keys.iter().filter(|k| !k.is_null()) {
        if !distinct.contains(key) {
            distinct.push(key.clone());
        }
    }
    let mut grouped: HashMap<String, Vec<Json>> = HashMap::new();
    if distinct.is_empty() {
        return Ok(grouped);
    }
    let batch = Batch { column: &item.to, keys: distinct, nested: &item.nested, junction: item.junction.as_ref() };
    for (key, record) in (item.target.load)(request, batch).await? {
        grouped.entry(key).or_default().push(record);
    }
    Ok(grouped)
}

/// [`Batch`] for `R`: admitted to `list` like a request of its own (not admitted: nothing), its scoped query
/// (`get_queryset` and row policies), ordered as its list is by default, then object permissions and hidden fields.
/// What depends on `R` runs before the future (the statement) and after the read (the records, by [`Asked::records`]):
/// the future itself is one type for every ViewSet.
pub(crate) fn load<'a, R: Hooks>(
    request: &'a RequestContext,
    batch: Batch<'a>,
) -> SendFuture<'a, Result<Vec<(String, Json)>, ApiError>> {
    send(load_asked(asked::<R>(request, &batch), batch.nested))
}

/// What a load asks of the database for one ViewSet, and how its rows become records.
struct Asked {
    /// The caller as the ViewSet admits it to its list.
    own: RequestContext,
    statement: sea_orm::Statement,
    capacity: usize,
    table: &'static str,
    /// The field the batch's keys are values of.
    key: &'static str,
    /// The ViewSet's rows as records ([`records`]).
    records: Records,
    /// Whether the ViewSet embeds relations of its own (`expandable`).
    embeds: bool,
    /// A field of one of its records (as JSON) by database column: the keys of the relations it embeds.
    field_of: fn(&Json, &str) -> Json,
}

/// A ViewSet's rows as records, by the field the keys are values of ([`records`]).
type Records = fn(&RequestContext, &[sea_orm::QueryResult], &str) -> Result<Vec<Loaded>, sea_orm::DbErr>;

/// A loaded record: its key's JSON text, the record as the list shows it, and its model as JSON (the keys of the
/// relations it embeds in turn).
struct Loaded {
    key: String,
    record: Json,
    model: Json,
}

/// The generic part of [`load`] before the read: admission, the statement (`None`: not admitted).
fn asked<R: Hooks>(request: &RequestContext, batch: &Batch<'_>) -> Result<Option<Asked>, ApiError> {
    let Some(own) = access::admit_related::<R>(request) else { return Ok(None) };
    let column = column_named::<R::Entity>(batch.column);
    let missing = || sea_orm::DbErr::Custom(format!("no column `{}` to embed by", batch.column));
    let column = column.ok_or_else(|| ApiError::Database(missing()))?;
    let scope = access::scoped_query::<R>(&own, &Filters::new())?;
    let query = match batch.junction {
        None => ListQuery::new(scope.filter(column.is_in(key_values(column.def().get_column_type(), &batch.keys)))),
        Some(_) => ListQuery::new(scope),
    };
    let order = effective_order::<R>(&query, &own);
    let select = apply_order(query.select, &order, false).limit(MAX_EMBEDDED_ROWS + 1);
    let table = sea_orm::EntityName::table_name(&R::Entity::default());
    let statement = match batch.junction {
        None => select.build(own.reader().backend()),
        Some(junction) => {
            own.reader().backend().build(&through(select.into_query(), junction, table, batch.column, &batch.keys))
        }
    };
    Ok(Some(Asked {
        own,
        statement,
        capacity: batch.keys.len(),
        table: sea_orm::EntityName::table_name(&R::Entity::default()),
        key: if batch.junction.is_some() { PARENT } else { field_name::<R::Entity>(column) },
        records: records::<R>,
        embeds: !R::CONFIG.expandable.is_empty(),
        field_of: field_of::<R::Entity>,
    }))
}

/// `R`'s rows as records: decoded, those its object permissions refuse left out, each with its `key` field's value.
fn records<R: Hooks>(
    own: &RequestContext,
    rows: &[sea_orm::QueryResult],
    key: &str,
) -> Result<Vec<Loaded>, sea_orm::DbErr> {
    let left_out = own.left_out();
    let mut loaded = Vec::with_capacity(rows.len());
    // Loops, not iterator chains: adapters over closures are compiled again for every ViewSet.
    for (index, row) in R::decode_rows(rows)?.into_iter().enumerate() {
        if R::permission_classes(&mut |p| permission::check_object(p, own, &row)).is_err() {
            continue;
        }
        let model = serde_json::to_value(&row).unwrap_or(Json::Null);
        let key = match key {
            PARENT => parent_key(&rows[index]),
            key => model.get(key).cloned().unwrap_or_default().to_string(),
        };
        loaded.push(Loaded { key, record: visible(&R::ListItem::from_model(row), &left_out), model });
    }
    Ok(loaded)
}

/// [`load`] past its generic part: the read, the records, and the relations they embed in turn.
async fn load_asked(asked: Result<Option<Asked>, ApiError>, nested: &Expand) -> Result<Vec<(String, Json)>, ApiError> {
    let Some(asked) = asked? else { return Ok(Vec::new()) };
    let refused = |err| ApiError::from_db(err, asked.table);
    let rows = crate::store::read::rows(asked.own.reader(), asked.statement, asked.capacity, "embed").await;
    let rows = rows.map_err(refused)?;
    if rows.len() as u64 > MAX_EMBEDDED_ROWS {
        let msg =
            format!("More than {MAX_EMBEDDED_ROWS} records to embed (limit MAX_EMBEDDED_ROWS): ask a smaller page");
        return Err(ApiError::input(["query", "expand"], msg, "too_many_embedded"));
    }
    let mut loaded = (asked.records)(&asked.own, &rows, asked.key).map_err(refused)?;
    let embedded = if asked.embeds && !nested.is_empty() && !loaded.is_empty() {
        // Taken, not cloned: a record's model is read only for the keys of what it embeds.
        let models = loaded.iter_mut().map(|l| std::mem::take(&mut l.model)).collect();
        embed_models(models, &asked.field_of, nested, &asked.own).await?
    } else {
        nothing_embedded(loaded.len(), nested.items.len())
    };
    let mut out = Vec::with_capacity(loaded.len());
    for (Loaded { key, mut record, .. }, embedded) in loaded.into_iter().zip(embedded) {
        crate::access::fields::attach(&mut record, embedded);
        out.push((key, record));
    }
    Ok(out)
}

/// The column a many-to-many load adds to each related row: the key of the embedding record it belongs to.
const PARENT: &str = "viewset_parent";

/// A many-to-many load's statement: the related ViewSet's scoped, ordered `select`, joined to its `junction` rows
/// whose parent column holds one of `keys`, each row with that parent key as [`PARENT`]. One statement per relation
/// level, as for a direct relation; a record linked to two embedding records comes back twice, once for each.
fn through(
    mut select: SelectStatement,
    junction: &crate::request::registry::Junction,
    table: &'static str,
    column: &str,
    keys: &[Json],
) -> SelectStatement {
    use sea_orm::sea_query::{Alias, Expr, ExprTrait};
    let (link, parent) = (junction.table.clone(), junction.parent.clone());
    let on = Expr::col((link.clone(), junction.child.clone())).equals((Alias::new(table), Alias::new(column)));
    let values: Vec<sea_orm::Value> = keys.iter().filter_map(json_key).collect();
    select
        .inner_join(link.clone(), on)
        .and_where(Expr::col((link.clone(), parent.clone())).is_in(values))
        .expr_as(Expr::col((link, parent)), Alias::new(PARENT));
    select
}

/// A key of the embedding record as a bound value: an integer or a text key (another type matches nothing).
fn json_key(key: &Json) -> Option<sea_orm::Value> {
    match key {
        Json::Number(n) => n.as_i64().map(sea_orm::Value::from),
        Json::String(s) => Some(sea_orm::Value::from(s.clone())),
        _ => None,
    }
}

/// The [`PARENT`] column of a many-to-many row, as the embedding record's key serializes (`1`, `"a"`).
fn parent_key(row: &sea_orm::QueryResult) -> String {
    // Integer columns decode as their own width (PostgreSQL's `integer` is no `i64`).
    if let Ok(n) = row.try_get::<i64>("", PARENT) {
        return n.to_string();
    }
    if let Ok(n) = row.try_get::<i32>("", PARENT) {
        return n.to_string();
    }
    if let Ok(n) = row.try_get::<i16>("", PARENT) {
        return n.to_string();
    }
    row.try_get::<String>("", PARENT).map(|s| Json::String(s).to_string()).unwrap_or_default()
}

/// The keys of a batch as values of a column of type `column_type` (those it cannot hold left out).
fn key_values(column_type: &sea_orm::sea_query::ColumnType, keys: &[Json]) -> Vec<sea_orm::Value> {
    keys.iter().filter_map(|key| from_json(column_type, key).ok()).collect()
}

impl Embedder {
    /// `V` as the server of embedded `V` records.
    pub fn of<V: Hooks>() -> Self {
        Embedder {
            viewset: V::CONFIG.name,
            table: sea_orm::EntityName::table_name(&V::Entity::default()),
            expandable: V::CONFIG.expandable,
            load: load::<V>,
            scope: scope::<V>,
            writer: None,
        }
    }
}

/// `R`'s scoped query for `ask`, as the caller may run it: `None` when `R` does not admit the caller to `list`; a 422
/// `unknown_field` when the caller may not see the field.
pub(crate) fn scope<R: Hooks>(request: &RequestContext, ask: &Ask<'_>) -> Result<Option<SelectStatement>, ApiError> {
    let own = access::admit_related::<R>(request);
    let unknown = || ApiError::input(["query", ask.param], format!("Unknown field `{}`", ask.param), "unknown_field");
    let field = column::<R::Entity>(ask.field).ok_or_else(unknown)?;
    // The value is checked first, for every caller: a bad value is a 422 whether or not anything could match.
    let condition = match ask.filter {
        Some((lookup, raw)) => {
            let backend = request.db.get_database_backend();
            Some(condition(field, lookup, raw, ask.param, backend, &ask.limits)?)
        }
        None => None,
    };
    let Some(own) = own else { return Ok(None) };
    if !own.may_query(ask.field) {
        return Err(unknown());
    }
    let select = access::scoped_query::<R>(&own, &Filters::new())?;
    Ok(Some(match condition {
        Some(condition) => {
            let key = column_named::<R::Entity>(ask.key);
            select.filter(condition).select_only().column(key.ok_or_else(|| composite(ask.param))?).into_query()
        }
        None => select.select_only().column(field).limit(1).into_query(),
    }))
}
