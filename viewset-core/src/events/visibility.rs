//! Who may see an event: the record is loaded through the subscriber's own view ([`access::fetch_where`]: the
//! scoped query and object permissions), or, when the ViewSet has many views, through the same scoped query asked
//! with the other views' in one statement ([`visible_frame_in`]); a deleted row, which can no longer be loaded, is
//! checked by running the subscriber's [`access::scoped_query`] over its last state (the store's one-row common
//! table expression).

use std::any::Any;
use std::sync::{Arc, Mutex};

use sea_orm::{
    ColumnTrait, Condition, DbErr, EntityName, EntityTrait, IdenStatic, Iterable, PrimaryKeyToColumn, QueryFilter,
    QueryTrait, Value,
};

use crate::access;
use crate::bus::batch::{Answers, Chunk, Outcome, Run, Turn};
use crate::contract::hooks::Hooks;
use crate::contract::viewset::ModelOf;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::store::plan::Plan;
use crate::types::columns::field_name;
use crate::types::value::from_json;

fn typed<C: ColumnTrait>(column: C, json: &serde_json::Value) -> Option<Value> {
    from_json(column.def().get_column_type(), json).ok()
}

/// The record with primary key `pk`, as this subscriber may see it now (`None`: not visible).
pub async fn visible_record<V: Hooks>(
    request: &RequestContext,
    pk: &serde_json::Value,
) -> Result<Option<ModelOf<V>>, ApiError> {
    let Some(condition) = key_condition::<V>(pk) else { return Ok(None) };
    not_visible_as_none(access::fetch_where::<V>(request, condition, V::permission_classes).await)
}

/// The frame data `frame` makes of the record with primary key `pk`, when this subscriber may see it now: as
/// [`visible_record`] decides, with the scoped query asked in `turn`'s batch together with the other views' of the
/// same event (one statement per chunk of views) when the ViewSet's scope selects the record itself (no join, no
/// other column list); the object permissions are then checked here, as [`access::fetch_where`] checks them, and
/// views that see the same record without the same fields share one frame. Without a turn, or when the leader of
/// the batch went away, the record is loaded alone.
pub(crate) async fn visible_frame_in<V: Hooks>(
    request: &RequestContext,
    pk: &serde_json::Value,
    turn: Option<Turn<'_>>,
    frame: impl FnOnce(ModelOf<V>) -> Arc<str>,
) -> Result<Option<Arc<str>>, ApiError> {
    // One `await` of the record alone (each `await` of a future adds its states to this one, per ViewSet).
    let batched = match turn {
        Some(turn) => match batch_of::<V>(request, pk)? {
            InBatch::NoRecord => return Ok(None),
            InBatch::Alone => None,
            InBatch::Asked(scope, run) => turn.submit(scope, run).await,
        },
        None => None,
    };
    match batched {
        Some((outcome, index)) => shown::<V>(request, &outcome, index, frame),
        None => Ok(visible_record::<V>(request, pk).await?.map(frame)),
    }
}

/// How [`visible_frame_in`] reads the record: not at all (`pk` is no key of `V`), alone, or in the batch with this
/// view's scope and the batch's run.
#[allow(clippy::large_enum_variant)] // Consumed as soon as it is made, never held across an `await`.
enum InBatch<'a> {
    NoRecord,
    Alone,
    Asked(sea_orm::sea_query::SelectStatement, Run<'a>),
}

/// [`InBatch`] for this view of `V`: in the batch when the ViewSet's scope selects the record itself.
fn batch_of<'a, V: Hooks>(request: &'a RequestContext, pk: &serde_json::Value) -> Result<InBatch<'a>, ApiError> {
    let Some(condition) = key_condition::<V>(pk) else { return Ok(InBatch::NoRecord) };
    let backend = request.db.get_database_backend();
    let scope = access::view_scope::<V>(request)?.filter(condition.clone()).into_query();
    if !Plan::of::<V>(backend).default_scope
        && !crate::store::visibility::selects_the_record(backend, &scope, &V::Entity::find().into_query())
    {
        return Ok(InBatch::Alone);
    }
    let of = Record { select: record_select::<V>, condition, decode: decode_any::<V> };
    Ok(InBatch::Asked(scope, by_each(request.reader(), of, V::Entity::default().table_name())))
}

/// The frame of the record the batch read for the `index`th view (this one), when its object permissions admit this
/// caller: shared with the views that show it without the same fields.
fn shown<V: Hooks>(
    request: &RequestContext,
    outcome: &Outcome,
    index: usize,
    frame: impl FnOnce(ModelOf<V>) -> Arc<str>,
) -> Result<Option<Arc<str>>, ApiError> {
    let answers = match &**outcome {
        Ok(answers) => answers,
        Err(err) => return Err(ApiError::Database(DbErr::Custom(err.clone()))),
    };
    let admitted =
        answers.with_admitted(index, |model: &ModelOf<V>| access::admit_object(request, model, V::permission_classes));
    match admitted {
        Some(Ok(())) => {}
        None | Some(Err(ApiError::NotFound | ApiError::PermissionDenied(_))) => return Ok(None),
        Some(Err(err)) => return Err(err),
    }
    let left_out = request.left_out();
    if let Some(known) = answers.known_frame(index, &left_out) {
        return Ok(Some(known));
    }
    // Cloned only for the first view that shows the record without these fields.
    let Some(model) = answers.with_admitted(index, <ModelOf<V> as Clone>::clone) else { return Ok(None) };
    Ok(Some(answers.keep_frame(index, left_out, frame(model))))
}

/// The record's own select, every column, by key: built by the batch's leader only.
fn record_select<V: Hooks>(condition: Condition) -> sea_orm::sea_query::SelectStatement {
    V::Entity::find().filter(condition).into_query()
}

/// What [`by_each`] reads of the record: its select (`select(condition)`) and how its row decodes.
struct Record {
    select: fn(Condition) -> sea_orm::sea_query::SelectStatement,
    condition: Condition,
    decode: DecodeAny,
}

/// How [`by_each`] decodes a row of the record: into the model, boxed as the batch keeps it.
type DecodeAny = fn(&sea_orm::QueryResult) -> Result<Option<Box<dyn Any + Send>>, DbErr>;

/// A row of `V` decoded, as the batch keeps it.
fn decode_any<V: Hooks>(row: &sea_orm::QueryResult) -> Result<Option<Box<dyn Any + Send>>, DbErr> {
    Ok(V::decode_rows(std::slice::from_ref(row))?.pop().map(|model| Box::new(model) as Box<dyn Any + Send>))
}

/// The batch's run for [`visible_frame_in`]: the record's select asked with each chunk of scopes, its row decoded.
/// One function for every ViewSet.
fn by_each<'a>(reader: crate::request::Reader<'a>, of: Record, table: &'static str) -> Run<'a> {
    Box::new(move |scopes| {
        Box::pin(async move {
            let refused = |err| ApiError::from_db(err, table);
            let (record, decode) = ((of.select)(of.condition), of.decode);
            let chunks = crate::store::visibility::admitted_by_each(reader, record, scopes).await;
            let mut answers = Vec::new();
            for chunk in chunks.map_err(refused)? {
                let model = match chunk.row {
                    Some(row) => decode(&row).map_err(refused)?,
                    None => None,
                };
                answers.push(Chunk { record: model.map(Mutex::new), admits: chunk.admits });
            }
            Ok(Answers::new(answers))
        })
    })
}

/// The condition selecting the record with primary key `pk` (`None`: not a key of `V`).
fn key_condition<V: Hooks>(pk: &serde_json::Value) -> Option<Condition> {
    // A loop, not an iterator chain: adapters over closures are compiled again for every ViewSet.
    let count = <V::Entity as EntityTrait>::PrimaryKey::iter().count();
    let values: &[serde_json::Value] = match (count, pk) {
        (1, value) => std::slice::from_ref(value),
        (_, serde_json::Value::Array(values)) if values.len() == count => values,
        _ => return None,
    };
    let mut condition = Condition::all();
    for (position, key) in <V::Entity as EntityTrait>::PrimaryKey::iter().enumerate() {
        let col = key.into_column();
        condition = condition.add(col.eq(typed(col, &values[position])?));
    }
    Some(condition)
}

fn not_visible_as_none<M>(found: Result<M, ApiError>) -> Result<Option<M>, ApiError> {
    match found {
        Ok(model) => Ok(Some(model)),
        Err(ApiError::NotFound | ApiError::PermissionDenied(_)) => Ok(None),
        Err(err) => Err(err),
    }
}

/// Whether this subscriber could see the row `snapshot` (the last state of a deleted record).
pub async fn could_see_deleted<V: Hooks>(
    request: &RequestContext,
    snapshot: &serde_json::Value,
) -> Result<bool, ApiError> {
    let Some(row) = snapshot_row::<V>(snapshot) else { return Ok(false) };
    let scope = access::view_scope::<V>(request)?;
    crate::store::admits_row::<V>(request.reader(), scope, row).await
}

/// [`could_see_deleted`], with the scoped query asked in `turn`'s batch together with the other views' of the same
/// event, each over the same one-row common table expression. Without a turn, or when the leader of the batch went
/// away, it is asked alone.
pub(crate) async fn could_see_deleted_in<V: Hooks>(
    request: &RequestContext,
    snapshot: &serde_json::Value,
    turn: Option<Turn<'_>>,
) -> Result<bool, ApiError> {
    // One `await` of the question asked alone (each `await` adds its future's states to this one, per ViewSet).
    let batched = match turn {
        Some(turn) => {
            let Some(row) = snapshot_row::<V>(snapshot) else { return Ok(false) };
            let scope = access::view_scope::<V>(request)?.into_query();
            let run = over_row(request.reader(), V::Entity::default().table_name(), row);
            turn.submit(scope, run).await
        }
        None => None,
    };
    let Some((outcome, index)) = batched else { return could_see_deleted::<V>(request, snapshot).await };
    match &*outcome {
        Ok(answers) => Ok(answers.admits(index)),
        Err(err) => Err(ApiError::Database(DbErr::Custom(err.clone()))),
    }
}

/// The batch's run for [`could_see_deleted_in`]: the scopes asked over the one-row common table expression of `row`
/// (named like `table`). One function for every ViewSet.
fn over_row<'a>(reader: crate::request::Reader<'a>, table: &'static str, row: Vec<(&'static str, Value)>) -> Run<'a> {
    Box::new(move |scopes| {
        Box::pin(async move {
            let chunks = crate::store::visibility::admitted_over_row(reader, table, row, scopes).await;
            let chunks = chunks.map_err(|err| ApiError::from_db(err, table))?;
            Ok(Answers::new(chunks.into_iter().map(|admits| Chunk { record: None, admits }).collect()))
        })
    })
}

/// The last state of a deleted record as its columns' values (`None`: a field the column cannot hold).
/// Columns by their database names, as the one-row common table expression names them.
fn snapshot_row<V: Hooks>(snapshot: &serde_json::Value) -> Option<Vec<(&'static str, Value)>> {
    let mut row = Vec::new();
    for col in <V::Entity as EntityTrait>::Column::iter() {
        let field = snapshot.get(field_name::<V::Entity>(col)).unwrap_or(&serde_json::Value::Null);
        row.push((col.as_str(), typed(col, field)?));
    }
    Some(row)
}
