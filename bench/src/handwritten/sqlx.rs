//! Hand-written axum + sqlx (the target DESIGN.md sets): SQL written out, rows mapped by hand into the blog's
//! `post::Model` (so the JSON is byte-for-byte the same shape). The pool has sqlx's default size (10 connections)
//! and the blog's ping policy (only connections idle for 30 s). List: count and page concurrently. PATCH: one
//! `UPDATE ... RETURNING` of the sent columns.
//!
//! What does not depend on the driver (the pool policy, the row mapping, the `WHERE`, `ORDER BY` and `SET` clauses
//! built from a request) is generic over the sqlx database and shared with the MySQL driver's server
//! (`super::sqlx_mysql`); the routes here are PostgreSQL's.

use std::time::Duration;

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use blog::entities::post;
use sqlx::pool::PoolOptions;
use sqlx::postgres::PgPool;
use sqlx::{ColumnIndex, Database, Decode, Encode, Postgres, QueryBuilder, Row, Type};
use viewset_core::Principal;

use super::{
    CreatePost, CursorParams, Error, ListParams, Page, PatchPost, blog_router, cursor_input, cursor_page, list_input,
    ordering, search_pattern, write_input,
};

/// The columns of `post::Model`, in its field order (a macro so SQL strings stay `&'static str`).
macro_rules! columns {
    () => {
        "id, title, body, published, views, rating, author_id, created_at, slug"
    };
}
pub(super) use columns;
pub(super) const COLUMNS: &str = columns!();

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::Database(d) if d.is_foreign_key_violation() => Error::ForeignKey,
            _ => Error::Database(e.to_string()),
        }
    }
}

/// The PostgreSQL server: the blog's schema (its migrations), then the routes on a sqlx pool.
pub async fn app(url: &str) -> Result<Router, String> {
    let pool = migrate_and_connect::<Postgres>(url).await?;
    Ok(blog_router(pool, get(list).post(create), get(retrieve).patch(update), get(cursor_list)))
}

/// Applies the blog's migrations to `url` (through sea-orm, once), then opens the pool the routes use (sqlx alone):
/// sqlx's default size and the blog's policy of pinging a connection only when it sat idle for 30 s.
pub(super) async fn migrate_and_connect<DB: Database>(url: &str) -> Result<sqlx::Pool<DB>, String> {
    blog::connect_and_migrate(url).await.map_err(|e| format!("migrate {url}: {e}"))?.close().await.ok();
    PoolOptions::<DB>::new()
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= Duration::from_secs(30) {
                    sqlx::Connection::ping(conn).await?;
                }
                Ok(true)
            })
        })
        .connect(url)
        .await
        .map_err(|e| format!("connect {url}: {e}"))
}

/// A row of [`COLUMNS`] as the blog's `post::Model`, whatever the driver.
pub(crate) fn to_post<R: Row>(row: &R) -> Result<post::Model, sqlx::Error>
where
    usize: ColumnIndex<R>,
    for<'r> i32: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> bool: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> f64: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> chrono::DateTime<chrono::Utc>: Decode<'r, R::Database> + Type<R::Database>,
{
    Ok(post::Model {
        id: row.try_get(0)?,
        title: row.try_get(1)?,
        body: row.try_get(2)?,
        published: row.try_get(3)?,
        views: row.try_get(4)?,
        rating: row.try_get(5)?,
        author_id: row.try_get(6)?,
        created_at: row.try_get(7)?,
        slug: row.try_get(8)?,
    })
}

/// Appends ` WHERE ...` for the filters of `p`, and its search through `search(qb, pattern)` (the one
/// condition whose SQL differs between the drivers).
pub(super) fn push_conditions<DB: Database>(
    qb: &mut QueryBuilder<DB>,
    p: &ListParams,
    search: fn(&mut QueryBuilder<DB>, String),
) where
    for<'t> bool: Encode<'t, DB> + Type<DB>,
    for<'t> i32: Encode<'t, DB> + Type<DB>,
    for<'t> f64: Encode<'t, DB> + Type<DB>,
    for<'t> String: Encode<'t, DB> + Type<DB>,
    for<'t> chrono::DateTime<chrono::Utc>: Encode<'t, DB> + Type<DB>,
{
    let mut first = true;
    let mut and = |qb: &mut QueryBuilder<DB>| {
        qb.push(if first { " WHERE " } else { " AND " });
        first = false;
    };
    if let Some(v) = p.published {
        and(qb);
        qb.push("published = ").push_bind(v);
    }
    if let Some(v) = p.views {
        and(qb);
        qb.push("views = ").push_bind(v);
    }
    if let Some(v) = p.author_id {
        and(qb);
        qb.push("author_id = ").push_bind(v);
    }
    if let Some(v) = p.rating {
        and(qb);
        qb.push("rating = ").push_bind(v);
    }
    if let Some(v) = &p.title {
        and(qb);
        qb.push("title = ").push_bind(v.clone());
    }
    if let Some(v) = p.created_at {
        and(qb);
        qb.push("created_at = ").push_bind(v);
    }
    if let Some(pattern) = search_pattern(p.search.as_deref()) {
        and(qb);
        search(qb, pattern);
    }
}

/// PostgreSQL's search: `ILIKE` over title and body.
fn ilike(qb: &mut QueryBuilder<Postgres>, pattern: String) {
    qb.push("(title ILIKE ").push_bind(pattern.clone()).push(" OR body ILIKE ").push_bind(pattern).push(")");
}

/// Appends ` ORDER BY ... LIMIT ... OFFSET ...`.
pub(super) fn push_order_and_window<DB: Database>(qb: &mut QueryBuilder<DB>, p: &ListParams, limit: u64, offset: u64)
where
    for<'t> i64: Encode<'t, DB> + Type<DB>,
{
    qb.push(" ORDER BY ");
    for (i, (column, desc)) in ordering(p.ordering.as_deref()).into_iter().enumerate() {
        if i > 0 {
            qb.push(", ");
        }
        qb.push(column.sql()).push(if desc { " DESC" } else { " ASC" });
    }
    qb.push(" LIMIT ").push_bind(limit as i64).push(" OFFSET ").push_bind(offset as i64);
}

/// `UPDATE posts SET <the sent columns>` (the caller appends the `WHERE`); `data` is not empty.
pub(super) fn update_statement<DB: Database>(data: PatchPost) -> QueryBuilder<DB>
where
    for<'t> bool: Encode<'t, DB> + Type<DB>,
    for<'t> i32: Encode<'t, DB> + Type<DB>,
    for<'t> Option<f64>: Encode<'t, DB> + Type<DB>,
    for<'t> String: Encode<'t, DB> + Type<DB>,
{
    let mut qb = QueryBuilder::<DB>::new("UPDATE posts SET ");
    let mut set = qb.separated(", ");
    if let Some(v) = data.title {
        set.push("title = ").push_bind_unseparated(v);
    }
    if let Some(v) = data.body {
        set.push("body = ").push_bind_unseparated(v);
    }
    if let Some(v) = data.published {
        set.push("published = ").push_bind_unseparated(v);
    }
    if let Some(v) = data.views {
        set.push("views = ").push_bind_unseparated(v);
    }
    if let Some(v) = data.rating {
        set.push("rating = ").push_bind_unseparated(v);
    }
    if let Some(v) = data.author_id {
        set.push("author_id = ").push_bind_unseparated(v);
    }
    qb
}

async fn list(
    State(pool): State<PgPool>,
    params: Result<Query<ListParams>, QueryRejection>,
) -> Result<Json<Page<post::Model>>, Error> {
    let (p, limit, offset) = list_input(params)?;
    let mut count = QueryBuilder::<Postgres>::new("SELECT COUNT(*) FROM posts");
    push_conditions(&mut count, &p, ilike);
    let mut page = QueryBuilder::<Postgres>::new(format!("SELECT {COLUMNS} FROM posts"));
    push_conditions(&mut page, &p, ilike);
    push_order_and_window(&mut page, &p, limit, offset);
    // Both queries at once, each on its own pool connection (as the generated list does).
    let (total, rows): (i64, _) =
        tokio::try_join!(count.build_query_scalar().fetch_one(&pool), page.build().fetch_all(&pool))?;
    let results = rows.iter().map(to_post).collect::<Result<_, _>>()?;
    Ok(Json(Page { count: total as u64, results, limit, offset }))
}

async fn retrieve(State(pool): State<PgPool>, Path(id): Path<i32>) -> Result<Json<post::Model>, Error> {
    let row = sqlx::query(concat!("SELECT ", columns!(), " FROM posts WHERE id = $1"))
        .bind(id)
        .fetch_optional(&pool)
        .await?
        .ok_or(Error::NotFound)?;
    Ok(Json(to_post(&row)?))
}

async fn create(
    State(pool): State<PgPool>,
    principal: Option<Extension<Principal>>,
    body: Result<Json<CreatePost>, JsonRejection>,
) -> Result<Response, Error> {
    let data = write_input(principal.as_deref(), body)?;
    let row = sqlx::query(concat!(
        "INSERT INTO posts (title, body, published, views, rating, author_id, created_at) ",
        "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ",
        columns!()
    ))
    .bind(data.title)
    .bind(data.body)
    .bind(data.published.unwrap_or(false))
    .bind(data.views.unwrap_or(0))
    .bind(data.rating)
    .bind(data.author_id)
    .bind(chrono::Utc::now())
    .fetch_one(&pool)
    .await?;
    Ok((StatusCode::CREATED, Json(to_post(&row)?)).into_response())
}

async fn update(
    State(pool): State<PgPool>,
    principal: Option<Extension<Principal>>,
    Path(id): Path<i32>,
    body: Result<Json<PatchPost>, JsonRejection>,
) -> Result<Json<post::Model>, Error> {
    let data = write_input(principal.as_deref(), body)?;
    if data.is_empty() {
        return retrieve(State(pool), Path(id)).await;
    }
    let mut qb = update_statement::<Postgres>(data);
    qb.push(" WHERE id = ").push_bind(id).push(format!(" RETURNING {COLUMNS}"));
    let row = qb.build().fetch_optional(&pool).await?.ok_or(Error::NotFound)?;
    Ok(Json(to_post(&row)?))
}

async fn cursor_list(
    State(pool): State<PgPool>,
    params: Result<Query<CursorParams>, QueryRejection>,
) -> Result<Response, Error> {
    let (limit, cursor) = cursor_input(params)?;
    let fetch = (limit + 1) as i64;
    let query = match cursor {
        None => sqlx::query(concat!("SELECT ", columns!(), " FROM posts ORDER BY id DESC LIMIT $1")),
        Some((false, id)) => {
            sqlx::query(concat!("SELECT ", columns!(), " FROM posts WHERE id < $1 ORDER BY id DESC LIMIT $2")).bind(id)
        }
        Some((true, id)) => {
            sqlx::query(concat!("SELECT ", columns!(), " FROM posts WHERE id > $1 ORDER BY id ASC LIMIT $2")).bind(id)
        }
    };
    let rows = query.bind(fetch).fetch_all(&pool).await?;
    let rows = rows.iter().map(to_post).collect::<Result<Vec<_>, _>>()?;
    Ok(Json(cursor_page(rows, limit, cursor)).into_response())
}
