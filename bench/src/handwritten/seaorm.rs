//! Hand-written axum + sea-orm: the floor of the generated code's own stack. Same queries as the generated
//! handlers: list = `PaginatorTrait::count` and the page, concurrently; retrieve = one select; create = insert (`RETURNING`);
//! PATCH = select, then update of the sent columns (`RETURNING`).

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use blog::entities::post;
use sea_orm::ActiveValue::Set;
use sea_orm::sea_query::Expr;
use sea_orm::sea_query::extension::postgres::PgExpr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, DatabaseConnection, DbErr, EntityTrait, IntoActiveModel, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect, SqlErr,
};
use viewset_core::Principal;

use super::{
    CreatePost, CursorParams, Error, ListParams, Page, PatchPost, SortColumn, blog_router, cursor_input, cursor_page,
    list_input, ordering, search_pattern, write_input,
};

impl From<DbErr> for Error {
    fn from(e: DbErr) -> Self {
        match e.sql_err() {
            Some(SqlErr::ForeignKeyConstraintViolation(_)) => Error::ForeignKey,
            _ => Error::Database(e.to_string()),
        }
    }
}

/// The router over a connection made exactly as the blog's (`blog::connect_and_migrate`).
pub async fn app(url: &str) -> Result<Router, String> {
    let db = blog::connect_and_migrate(url).await.map_err(|e| format!("connect {url}: {e}"))?;
    Ok(blog_router(db, get(list).post(create), get(retrieve).patch(update), get(cursor_list)))
}

fn column(c: SortColumn) -> post::Column {
    match c {
        SortColumn::Id => post::Column::Id,
        SortColumn::Title => post::Column::Title,
        SortColumn::Views => post::Column::Views,
        SortColumn::CreatedAt => post::Column::CreatedAt,
    }
}

async fn list(
    State(db): State<DatabaseConnection>,
    params: Result<Query<ListParams>, QueryRejection>,
) -> Result<Json<Page<post::Model>>, Error> {
    let (p, limit, offset) = list_input(params)?;
    let mut query = post::Entity::find();
    if let Some(v) = p.published {
        query = query.filter(post::Column::Published.eq(v));
    }
    if let Some(v) = p.views {
        query = query.filter(post::Column::Views.eq(v));
    }
    if let Some(v) = p.author_id {
        query = query.filter(post::Column::AuthorId.eq(v));
    }
    if let Some(v) = p.rating {
        query = query.filter(post::Column::Rating.eq(v));
    }
    if let Some(v) = p.title {
        query = query.filter(post::Column::Title.eq(v));
    }
    if let Some(v) = p.created_at {
        query = query.filter(post::Column::CreatedAt.eq(v));
    }
    if let Some(pattern) = search_pattern(p.search.as_deref()) {
        query = query.filter(
            Condition::any()
                .add(Expr::col(post::Column::Title).ilike(pattern.as_str()))
                .add(Expr::col(post::Column::Body).ilike(pattern.as_str())),
        );
    }
    let count_query = query.clone();
    for (c, desc) in ordering(p.ordering.as_deref()) {
        query = if desc { query.order_by_desc(column(c)) } else { query.order_by_asc(column(c)) };
    }
    // Both queries at once, each on its own pool connection (as the generated list does).
    let (count, results) = tokio::try_join!(count_query.count(&db), query.limit(limit).offset(offset).all(&db))?;
    Ok(Json(Page { count, results, limit, offset }))
}

async fn retrieve(State(db): State<DatabaseConnection>, Path(id): Path<i32>) -> Result<Json<post::Model>, Error> {
    post::Entity::find_by_id(id).one(&db).await?.map(Json).ok_or(Error::NotFound)
}

async fn create(
    State(db): State<DatabaseConnection>,
    principal: Option<Extension<Principal>>,
    body: Result<Json<CreatePost>, JsonRejection>,
) -> Result<Response, Error> {
    let data = write_input(principal.as_deref(), body)?;
    let mut active = post::ActiveModel {
        title: Set(data.title),
        body: Set(data.body),
        rating: Set(data.rating),
        author_id: Set(data.author_id),
        ..Default::default()
    };
    if let Some(v) = data.published {
        active.published = Set(v);
    }
    if let Some(v) = data.views {
        active.views = Set(v);
    }
    let model = active.insert(&db).await?;
    Ok((StatusCode::CREATED, Json(model)).into_response())
}

async fn update(
    State(db): State<DatabaseConnection>,
    principal: Option<Extension<Principal>>,
    Path(id): Path<i32>,
    body: Result<Json<PatchPost>, JsonRejection>,
) -> Result<Json<post::Model>, Error> {
    let data = write_input(principal.as_deref(), body)?;
    let model = post::Entity::find_by_id(id).one(&db).await?.ok_or(Error::NotFound)?;
    if data.is_empty() {
        return Ok(Json(model));
    }
    let mut active = model.into_active_model();
    if let Some(v) = data.title {
        active.title = Set(v);
    }
    if let Some(v) = data.body {
        active.body = Set(v);
    }
    if let Some(v) = data.published {
        active.published = Set(v);
    }
    if let Some(v) = data.views {
        active.views = Set(v);
    }
    if let Some(v) = data.rating {
        active.rating = Set(v);
    }
    if let Some(v) = data.author_id {
        active.author_id = Set(v);
    }
    Ok(Json(active.update(&db).await?))
}

async fn cursor_list(
    State(db): State<DatabaseConnection>,
    params: Result<Query<CursorParams>, QueryRejection>,
) -> Result<Response, Error> {
    let (limit, cursor) = cursor_input(params)?;
    let mut query = post::Entity::find();
    query = match cursor {
        None => query.order_by_desc(post::Column::Id),
        Some((false, id)) => query.filter(post::Column::Id.lt(id)).order_by_desc(post::Column::Id),
        Some((true, id)) => query.filter(post::Column::Id.gt(id)).order_by_asc(post::Column::Id),
    };
    let rows = query.limit(limit + 1).all(&db).await?;
    Ok(Json(cursor_page(rows, limit, cursor)).into_response())
}
