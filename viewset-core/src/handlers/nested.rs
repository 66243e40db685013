//! Nested writes: `#[viewset(writable_relations = ["author", "posts"])]` lets the single create (`POST <prefix>/`
//! with an object body) write related rows along with the record, in **one transaction**, all or nothing:
//!
//! - a to-one relation (the record holds the foreign key, `"author"`): an object is created first through the
//!   related ViewSet and its key written into the record's foreign key; a plain key (`"author": 3`) references an
//!   existing row, which the caller must be able to retrieve through the related ViewSet (otherwise a 422
//!   `does_not_exist` at `["body", "author"]`, whether the row is missing or hidden);
//! - a to-many relation (the related rows hold the key, `"posts"`): an array of objects, each created after the
//!   record with its foreign key filled in (a child naming another value is a 422 `nested_conflict`);
//! - a many-to-many relation (through a join table, `relations(labels = label::Entity)`): an array of keys (existing
//!   rows the caller may retrieve) and objects (created first), each linked through the join table.
//!
//! Every row goes through its own ViewSet's policy, as a single create of that ViewSet does: its
//! `permission_classes` for `create` (for `retrieve` when referenced), its create body (read-only, staff-only and
//! unknown fields refused), validation, the tenant stamped, `before_create`, its scope and row policies for a
//! referenced row. An error is located at its body path (`["body", "posts", "1", "title"]`) and nothing is written.
//! At most `max_nested_depth` relations deep (default 2: the record's relations, and theirs) and `max_nested_rows`
//! related rows (default 100) per request: past them a 422 `nested_too_deep` or `too_many_nested_rows`. Once
//! committed, every created row has its `created` event (and `after_commit`), and the 201 answer is the record
//! with each written relation embedded as `?expand=` embeds it. A relation not declared writable stays a 422
//! `extra_forbidden`, as any unknown field.
//!
//! `PATCH <prefix>/{pk}` changes relations explicitly, with the record's fields, in one transaction: a many-to-many
//! relation `{"labels": {"add": [1, {"name": "new"}]}}`, `{"remove": [2]}` or `{"set": [1, 3]}` (links only; `set`
//! keeps the links to records the caller may not see), a to-many relation `{"posts": {"add": [{...}]}}`. Children
//! the client did not name are never deleted; a to-one relation changes through its foreign key.
//!
//! As a bulk write, a nested write calls no ViewSet's overridden `Hooks::create` or `Hooks::update` handler: every
//! created row passes `before_create` and the checks above, and `after_commit` once committed. A body naming no
//! writable relation is the plain create or PATCH, through those handlers, as before. Each related ViewSet a nested
//! write creates rows through counts the request once against its own rates (its scope's and its `create` rate),
//! as its own `POST` would, whatever the number of rows; over one, the whole write is a 429 naming that scope.
//!
//! ```
//! # mod author { use sea_orm::entity::prelude::*;
//! #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
//! #   #[sea_orm(table_name = "authors")]
//! #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub name: String }
//! #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
//! #   pub enum Relation { #[sea_orm(has_many = "super::post::Entity")] Posts }
//! #   impl Related<super::post::Entity> for Entity { fn to() -> RelationDef { Relation::Posts.def() } }
//! #   impl ActiveModelBehavior for ActiveModel {} }
//! # mod post { use sea_orm::entity::prelude::*;
//! #   #[derive(Clone, Debug, PartialEq, DeriveEntityModel, serde::Serialize, serde::Deserialize, viewset_core::ModelSchema)]
//! #   #[sea_orm(table_name = "posts")]
//! #   pub struct Model { #[sea_orm(primary_key)] pub id: i32, pub title: String, pub author_id: i32 }
//! #   #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
//! #   pub enum Relation {
//! #       #[sea_orm(belongs_to = "super::author::Entity", from = "Column::AuthorId", to = "super::author::Column::Id")]
//! #       Author,
//! #   }
//! #   impl Related<super::author::Entity> for Entity { fn to() -> RelationDef { Relation::Author.def() } }
//! #   impl ActiveModelBehavior for ActiveModel {} }
//! use viewset_core::prelude::*;
//!
//! /// `POST /posts/ {"title": "Hello", "author": {"name": "Ada"}}` creates the author, then the post;
//! /// `{"title": "Hello", "author": 3}` references author 3.
//! #[derive(ModelViewSet)]
//! #[viewset(model = post::Entity, prefix = "/posts", expandable = ["author"], writable_relations = ["author"])]
//! pub struct Posts;
//!
//! /// `POST /authors/ {"name": "Ada", "posts": [{"title": "One"}, {"title": "Two"}]}`: the author, then its posts.
//! #[derive(ModelViewSet)]
//! #[viewset(
//!     model = author::Entity,
//!     prefix = "/authors",
//!     expandable = ["posts"],
//!     writable_relations = ["posts"],
//!     max_nested_depth = 1,
//!     max_nested_rows = 20,
//! )]
//! pub struct Authors;
//!
//! fn main() {
//!     assert_eq!(Authors::CONFIG.nested.writable, ["posts"]);
//!     assert_eq!((Authors::CONFIG.nested.max_depth, Authors::CONFIG.nested.max_rows), (1, 20));
//!     let mut api = Api::new();
//!     api.include::<Posts>().unwrap().include::<Authors>().unwrap(); // each reaches the other through the `Api`
//! }
//! ```

use sea_orm::sea_query::{Query, SimpleExpr};
use sea_orm::{ConnectionTrait, DatabaseTransaction};
use serde_json::{Map, Value as Json};

use super::nested_links::{Kind, Link, at, joined, links, measure};
use crate::boxed::{SendFuture, send};
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::request::embedders::Embedders;
use crate::request::nested::{After, Row, Writer};
use crate::store::run::{On, execute};
use crate::store::writing::Writing;

/// The nested create of `body` through `root` (the route's ViewSet), in one transaction: its shape and bounds
/// checked, every row written through its own ViewSet, committed with their events, then their `after_commit`
/// hooks handed on. The root's stored model, and the relation paths written (what the answer embeds).
pub(crate) async fn run(
    request: &RequestContext,
    root: &'static Writer,
    body: Map<String, Json>,
) -> Result<(Box<dyn std::any::Any + Send>, Vec<Vec<&'static str>>), ApiError> {
    let embedders = request.embedders.as_deref();
    let paths = measure(root, &body, embedders)?;
    let table = (root.table)();
    let mut writing = Writing::within(crate::store::write::begin_immediate_on(&request.db, table).await?);
    // The route counted the root's create; every other ViewSet written through counts once (`Nest::counted`).
    let mut nest = Nest { request, embedders, writing: &mut writing, after: Vec::new(), counted: vec![root] };
    let (_, model) = write(&mut nest, root, body, Vec::new(), Vec::new()).await?;
    let after = std::mem::take(&mut nest.after);
    writing.commit_on(&request.events, table).await?;
    for hook in after {
        hook(request);
    }
    Ok((model, paths))
}

/// A nested write in progress: where it runs, and what it wrote.
pub(crate) struct Nest<'r> {
    pub request: &'r RequestContext,
    pub embedders: Option<&'r Embedders>,
    pub writing: &'r mut Writing,
    /// The `after_commit` hooks of the rows written.
    pub after: Vec<After>,
    /// The ViewSets whose throttles counted this request: a ViewSet that creates rows counts it once, as its own
    /// `POST` would (`access::throttled::check_nested`).
    pub counted: Vec<&'static Writer>,
}

/// A row written: its model as JSON, and the model itself.
pub(crate) type Written = (Json, Box<dyn std::any::Any + Send>);

/// Writes `body` through `writer` (the record at `path`), after the to-one rows it names and before its to-many
/// and many-to-many rows, with the columns of `set` decided by its parent. Errors are located under `path`.
pub(crate) fn write<'a, 'r: 'a>(
    nest: &'a mut Nest<'r>,
    writer: &'static Writer,
    mut body: Map<String, Json>,
    mut set: Vec<(String, Json)>,
    path: Vec<String>,
) -> SendFuture<'a, Result<Written, ApiError>> {
    send(async move {
        let links = links(writer, &body, nest.embedders, &path)?;
        let mut values = Vec::with_capacity(links.len());
        for link in &links {
            values.push(body.remove(link.name).unwrap_or_default());
        }
        for (link, value) in links.iter().zip(&values).filter(|(l, _)| l.kind == Kind::ToOne) {
            let here = joined(&path, link.name);
            let field = (writer.field)(&link.from).unwrap_or_default();
            if set.iter().any(|(column, _)| *column == link.from) {
                let msg = format!("`{}` is the record this one is nested in: its key is filled in", link.name);
                return Err(at(&here, msg, "nested_conflict"));
            }
            if body.contains_key(field) {
                let msg = format!("Send either `{}` or `{field}`, not both", link.name);
                return Err(at(&here, msg, "nested_conflict"));
            }
            let key = related_key(nest, link, value.clone(), here).await?;
            set.push((link.from.clone(), key));
        }
        if !nest.counted.iter().any(|counted| std::ptr::eq(*counted, writer)) {
            nest.counted.push(writer);
            let throttled = crate::access::throttled::check_nested(nest.request, (writer.throttles)()).await;
            throttled.map_err(|e| located(e, &path))?;
        }
        let txn = nest.writing.txn();
        let created = (writer.create)(nest.request, Row { body, set, txn }).await.map_err(|e| located(e, &path))?;
        nest.writing.publish(created.event);
        nest.after.extend(created.after);
        for (link, value) in links.iter().zip(values).filter(|(l, _)| l.kind != Kind::ToOne) {
            let here = joined(&path, link.name);
            let parent = field_of(writer, &created.json, &link.from);
            let Json::Array(items) = value else { continue };
            let mut linked: Vec<Json> = Vec::new();
            for (index, item) in items.into_iter().enumerate() {
                let here = joined(&here, index);
                if link.kind == Kind::ToMany {
                    let Json::Object(mut child) = item else { continue };
                    let field = (link.target.field)(&link.to).unwrap_or_default();
                    match child.remove(field) {
                        Some(sent) if sent != parent => {
                            let msg =
                                format!("`{field}` is filled in with the key of the record this one is nested in");
                            return Err(at(&joined(&here, field), msg, "nested_conflict"));
                        }
                        _ => {}
                    }
                    write(nest, link.target, child, vec![(link.to.clone(), parent.clone())], here).await?;
                    continue;
                }
                let key = related_key(nest, link, item, here.clone()).await?;
                if linked.contains(&key) {
                    return Err(at(&here, format!("{key} is named twice"), "duplicate"));
                }
                link_rows(nest.writing.txn(), link, &parent, &key).await.map_err(|e| located(e, &here))?;
                linked.push(key);
            }
        }
        Ok((created.json, created.model))
    })
}

/// The key a to-one or many-to-many `value` stands for: an object created through the related ViewSet, or a key
/// the caller may see there (422 `does_not_exist` otherwise).
pub(super) async fn related_key(
    nest: &mut Nest<'_>,
    link: &Link,
    value: Json,
    here: Vec<String>,
) -> Result<Json, ApiError> {
    let target = link.target;
    let field = (target.field)(&link.to).unwrap_or_default();
    if let Json::Object(object) = value {
        let (json, _) = write(nest, target, object, Vec::new(), here).await?;
        return Ok(json.get(field).cloned().unwrap_or_default());
    }
    let found =
        (target.reference)(nest.request, &link.to, &value, nest.writing.txn()).await.map_err(|e| located(e, &here))?;
    match found {
        Some(record) => Ok(record.get(field).cloned().unwrap_or_default()),
        None => {
            Err(at(&here, format!("No {} record {value} that you may see", target.config.model_name), "does_not_exist"))
        }
    }
}

/// The value of `column` in a row `writer` wrote.
pub(super) fn field_of(writer: &Writer, json: &Json, column: &str) -> Json {
    (writer.field)(column).and_then(|field| json.get(field).cloned()).unwrap_or_default()
}

/// Inserts the join table row linking `parent` to `child`.
pub(super) async fn link_rows(
    txn: &DatabaseTransaction,
    link: &Link,
    parent: &Json,
    child: &Json,
) -> Result<(), ApiError> {
    let Some(junction) = &link.junction else { return Ok(()) };
    let mut insert = Query::insert();
    insert
        .into_table(junction.table.clone())
        .columns([junction.parent.clone(), junction.child.clone()])
        .values_panic([key_value(parent), key_value(child)]);
    let statement = txn.get_database_backend().build(&insert);
    let table = (link.target.table)();
    execute(On::Txn(txn), statement, "nested").await.map(drop).map_err(|e| ApiError::from_db(e, table))
}

/// A key as a bound value: an integer (as narrow as it fits, so a PostgreSQL `integer` column takes it) or text.
pub(super) fn key_value(key: &Json) -> SimpleExpr {
    match key {
        Json::Number(n) => match n.as_i64() {
            Some(n) => match i32::try_from(n) {
                Ok(small) => small.into(),
                Err(_) => n.into(),
            },
            None => n.to_string().into(),
        },
        Json::String(s) => s.clone().into(),
        other => other.to_string().into(),
    }
}

/// `error` of the row at `path`: its input errors under `["body", path...]`, a refusal naming the path.
pub(super) fn located(error: ApiError, path: &[String]) -> ApiError {
    if path.is_empty() {
        return error;
    }
    match error {
        ApiError::Input(errors) => ApiError::Input(
            errors
                .into_iter()
                .map(|mut e| {
                    let at = usize::from(e.loc.first().is_some_and(|first| first == "body"));
                    e.loc.splice(at..at, path.iter().cloned());
                    if at == 0 {
                        e.loc.insert(0, "body".to_string());
                    }
                    e
                })
                .collect(),
        ),
        ApiError::PermissionDenied(msg) => ApiError::PermissionDenied(format!("{msg} (at body.{})", path.join("."))),
        other => other,
    }
}
