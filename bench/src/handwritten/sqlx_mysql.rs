//! The hand-written axum + sqlx server on sqlx's MySQL driver (MariaDB): the PostgreSQL server's routes
//! (`super::sqlx`, whose pool, row mapping and clause builders it shares) with MariaDB's SQL. What differs:
//! `?` placeholders; the search is `LOWER(col) LIKE LOWER(?)` under `utf8mb4_bin` (case-insensitive,
//! accent-sensitive: what `ILIKE` and the generated routes on MariaDB match); a create is one `INSERT … RETURNING`
//! (MariaDB 10.5+), but MariaDB has no `UPDATE … RETURNING`, so a PATCH is the `UPDATE` and a read of the row in
//! one transaction (in a task of its own: a client that disconnects does not cancel it midway). Date-times are written as UTC `DATETIME` values (the blog's `created_at` is a `DATETIME(6)`).

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use blog::entities::post;
use sqlx::mysql::MySqlPool;
use sqlx::{MySql, QueryBuilder};
use viewset_core::Principal;

use super::sqlx::{COLUMNS, columns, migrate_and_connect, push_conditions, push_order_and_window, to_post};
use super::{
    CreatePost, CursorParams, Error, ListParams, Page, PatchPost, blog_router, cursor_input, cursor_page, list_input,
    write_input,
};

/// The MariaDB server: the blog's schema (its migrations), then the routes on a sqlx MySQL pool.
pub async fn app(url: &str) -> Result<Router, String> {
    let pool = migrate_and_connect::<MySql>(url).await?;
    Ok(blog_router(pool, get(list).post(create), get(retrieve).patch(update), get(cursor_list)))
}

/// MariaDB's search over title and body, case-insensitive and accent-sensitive whatever the columns' collation.
fn search(qb: &mut QueryBuilder<MySql>, pattern: String) {
    qb.push("(LOWER(title) LIKE LOWER(")
        .push_bind(pattern.clone())
        .push(") COLLATE utf8mb4_bin OR LOWER(body) LIKE LOWER(")
        .push_bind(pattern)
        .push(") COLLATE utf8mb4_bin)");
}

async fn list(
    State(pool): State<MySqlPool>,
    params: Result<Query<ListParams>, QueryRejection>,
) -> Result<Json<Page<post::Model>>, Error> {
    let (p, limit, offset) = list_input(params)?;
    let mut count = QueryBuilder::<MySql>::new("SELECT COUNT(*) FROM posts");
    push_conditions(&mut count, &p, search);
    let mut page = QueryBuilder::<MySql>::new(format!("SELECT {COLUMNS} FROM posts"));
    push_conditions(&mut page, &p, search);
    push_order_and_window(&mut page, &p, limit, offset);
    // Both queries at once, each on its own pool connection (as the generated list does).
    let (total, rows): (i64, _) =
        tokio::try_join!(count.build_query_scalar().fetch_one(&pool), page.build().fetch_all(&pool))?;
    let results = rows.iter().map(to_post).collect::<Result<_, _>>()?;
    Ok(Json(Page { count: total as u64, results, limit, offset }))
}

/// `SELECT` of one post by id, on the pool or in a transaction.
async fn select_one<'e, E: sqlx::Executor<'e, Database = MySql>>(executor: E, id: i32) -> Result<post::Model, Error> {
    let row = sqlx::query(concat!("SELECT ", columns!(), " FROM posts WHERE id = ?"))
        .bind(id)
        .fetch_optional(executor)
        .await?
        .ok_or(Error::NotFound)?;
    Ok(to_post(&row)?)
}

async fn retrieve(State(pool): State<MySqlPool>, Path(id): Path<i32>) -> Result<Json<post::Model>, Error> {
    Ok(Json(select_one(&pool, id).await?))
}

async fn create(
    State(pool): State<MySqlPool>,
    principal: Option<Extension<Principal>>,
    body: Result<Json<CreatePost>, JsonRejection>,
) -> Result<Response, Error> {
    let data = write_input(principal.as_deref(), body)?;
    let row = sqlx::query(concat!(
        "INSERT INTO posts (title, body, published, views, rating, author_id, created_at) ",
        "VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ",
        columns!()
    ))
    .bind(data.title)
    .bind(data.body)
    .bind(data.published.unwrap_or(false))
    .bind(data.views.unwrap_or(0))
    .bind(data.rating)
    .bind(data.author_id)
    .bind(chrono::Utc::now().naive_utc())
    .fetch_one(&pool)
    .await?;
    Ok((StatusCode::CREATED, Json(to_post(&row)?)).into_response())
}

async fn update(
    State(pool): State<MySqlPool>,
    principal: Option<Extension<Principal>>,
    Path(id): Path<i32>,
    body: Result<Json<PatchPost>, JsonRejection>,
) -> Result<Json<post::Model>, Error> {
    let data = write_input(principal.as_deref(), body)?;
    if data.is_empty() {
        return retrieve(State(pool), Path(id)).await;
    }
    let mut qb = super::sqlx::update_statement::<MySql>(data);
    qb.push(" WHERE id = ").push_bind(id);
    // No `UPDATE … RETURNING` on MariaDB: the row is read back in the same transaction (a missing id: no row). The
    // transaction runs in a task of its own, so a client that goes away does not cancel it midway: a sqlx MySQL
    // connection whose transaction was cancelled was seen back in the pool still inside it (its next transactions
    // nested as savepoints, never committed, and kept `TRUNCATE` waiting on the table's metadata lock).
    let write = async move {
        let mut tx = pool.begin().await?;
        qb.build().execute(&mut *tx).await?;
        let post = select_one(&mut *tx, id).await?;
        tx.commit().await?;
        Ok::<_, Error>(post)
    };
    let post = tokio::spawn(write).await.map_err(|e| Error::Database(format!("the write's task: {e}")))??;
    Ok(Json(post))
}

async fn cursor_list(
    State(pool): State<MySqlPool>,
    params: Result<Query<CursorParams>, QueryRejection>,
) -> Result<Response, Error> {
    let (limit, cursor) = cursor_input(params)?;
    let fetch = (limit + 1) as i64;
    let query = match cursor {
        None => sqlx::query(concat!("SELECT ", columns!(), " FROM posts ORDER BY id DESC LIMIT ?")),
        Some((false, id)) => {
            sqlx::query(concat!("SELECT ", columns!(), " FROM posts WHERE id < ? ORDER BY id DESC LIMIT ?")).bind(id)
        }
        Some((true, id)) => {
            sqlx::query(concat!("SELECT ", columns!(), " FROM posts WHERE id > ? ORDER BY id ASC LIMIT ?")).bind(id)
        }
    };
    let rows = query.bind(fetch).fetch_all(&pool).await?;
    let rows = rows.iter().map(to_post).collect::<Result<Vec<_>, _>>()?;
    Ok(Json(cursor_page(rows, limit, cursor)).into_response())
}
