//! The hand-written baseline of `viewset-bench aggregate` ([`crate::aggregate`]): the statements the blog's
//! `GET /api/posts/aggregate` runs, written out with sqlx and served by plain axum routes answering the same JSON
//! (serde structs; no authentication, permissions or parameter parsing: each route answers one fixed question).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use sqlx::{AssertSqlSafe, PgPool};

/// The two questions measured.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Grouping {
    /// Per author: rows, sum of views, average rating.
    Author,
    /// Per month of `created_at` (UTC): rows.
    Month,
}

/// The most groups the blog answers (`max_groups = 200`); the statement reads one more to say it cut.
const MAX_GROUPS: i64 = 200;

/// Grouped by author, as the blog's aggregate writes it.
const BY_AUTHOR: &str = r#"SELECT "posts"."author_id" AS "g0", COUNT(*) AS "v0", SUM("posts"."views") AS "v1", AVG(CAST("posts"."rating" AS DOUBLE PRECISION)) AS "v2" FROM "posts" GROUP BY "posts"."author_id" ORDER BY "posts"."author_id" ASC NULLS FIRST LIMIT $1"#;

/// Grouped by month, as the blog's aggregate writes it.
const BY_MONTH: &str = r#"SELECT to_char(("posts"."created_at" AT TIME ZONE 'UTC'), 'YYYY-MM') AS "g0", COUNT(*) AS "v0" FROM "posts" GROUP BY to_char(("posts"."created_at" AT TIME ZONE 'UTC'), 'YYYY-MM') ORDER BY to_char(("posts"."created_at" AT TIME ZONE 'UTC'), 'YYYY-MM') ASC NULLS FIRST LIMIT $1"#;

impl Grouping {
    /// The aggregate's query string.
    pub fn query(self) -> &'static str {
        match self {
            Grouping::Author => "group_by=author_id&count&sum=views&avg=rating",
            Grouping::Month => "group_by=created_at__month&count",
        }
    }

    /// A short name for labels.
    pub fn name(self) -> &'static str {
        match self {
            Grouping::Author => "by author",
            Grouping::Month => "by month",
        }
    }

    /// The hand-written route's path.
    pub fn sqlx_path(self) -> &'static str {
        match self {
            Grouping::Author => "/sqlx/posts/aggregate/author",
            Grouping::Month => "/sqlx/posts/aggregate/month",
        }
    }

    /// The hand-written statement with its value written in, as the store's statement hook shows a statement.
    pub fn statement_text(self) -> String {
        let sql = if self == Grouping::Author { BY_AUTHOR } else { BY_MONTH };
        sql.replace("$1", &(MAX_GROUPS + 1).to_string())
    }
}

/// The hand-written routes over `pool`.
pub fn routes(pool: PgPool) -> axum::Router {
    axum::Router::new()
        .route(Grouping::Author.sqlx_path(), get(by_author))
        .route(Grouping::Month.sqlx_path(), get(by_month))
        .with_state(pool)
}

/// The answer: `{"groups": [...], "truncated": bool}`.
#[derive(serde::Serialize)]
pub struct Groups<G> {
    groups: Vec<G>,
    truncated: bool,
}

/// A group by author.
#[derive(serde::Serialize)]
pub struct AuthorGroup {
    author_id: i32,
    count: i64,
    sum_views: Option<i64>,
    avg_rating: Option<f64>,
}

/// A group by month.
#[derive(serde::Serialize)]
pub struct MonthGroup {
    #[serde(rename = "created_at__month")]
    month: Option<String>,
    count: i64,
}

type Answer<G> = Result<Json<Groups<G>>, (StatusCode, String)>;

async fn by_author(State(pool): State<PgPool>) -> Answer<AuthorGroup> {
    let rows = sqlx::query_as::<_, (i32, i64, Option<i64>, Option<f64>)>(AssertSqlSafe(BY_AUTHOR))
        .bind(MAX_GROUPS + 1)
        .fetch_all(&pool)
        .await;
    let rows = rows.map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let groups = rows.iter().map(|&(author_id, count, sum_views, avg_rating)| AuthorGroup {
        author_id,
        count,
        sum_views,
        avg_rating,
    });
    Ok(cut(groups.collect()))
}

async fn by_month(State(pool): State<PgPool>) -> Answer<MonthGroup> {
    let rows =
        sqlx::query_as::<_, (Option<String>, i64)>(AssertSqlSafe(BY_MONTH)).bind(MAX_GROUPS + 1).fetch_all(&pool).await;
    let rows = rows.map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    Ok(cut(rows.into_iter().map(|(month, count)| MonthGroup { month, count }).collect()))
}

/// At most `MAX_GROUPS` groups, and whether there were more.
fn cut<G>(mut groups: Vec<G>) -> Json<Groups<G>> {
    let truncated = groups.len() as i64 > MAX_GROUPS;
    groups.truncate(MAX_GROUPS as usize);
    Json(Groups { groups, truncated })
}
