//! The database's own bound on an aggregate (issue 71: "a slow aggregate is bounded by the request timeout and the
//! statement timeout"): with `QueryLimits::max_aggregate_time` at 1 ms, an aggregate over 100,000 posts is stopped
//! by PostgreSQL (`statement_timeout`) and by MariaDB (`max_statement_time`) and answers 503 `statement_timeout`
//! naming the limit; the connection it used goes back to the pool with no setting left on it (the next aggregate,
//! under the default limit, answers on the same pool of one connection).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use sea_orm::ConnectionTrait;
use viewset_core::ServiceState;
use viewset_core::query::QueryLimits;
use viewset_tests::every_database::{require_mysql, require_postgres};
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::identities::blog::ALICE;

const ROWS: u32 = 100_000;
const ASK: &str = "/api/posts/aggregate?group_by=created_at__day,published&count&sum=views&avg=rating";

/// The blog on `backend` with 100,000 more posts, written by the database itself, and two apps over one pool of
/// one connection: one whose aggregates may run 1 ms, one with the default bound.
async fn apps(backend: Backend) -> (TestApp, TestApp) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let fill = match backend {
        Backend::Postgres => format!(
            "INSERT INTO posts (title, body, published, views, author_id, created_at) SELECT 'p' || n, 'b', n % 2 = 0, \
             n, 1, now() - make_interval(hours => n) FROM generate_series(1, {ROWS}) AS n"
        ),
        _ => format!(
            "INSERT INTO posts (title, body, published, views, author_id, created_at) SELECT CONCAT('p', seq), 'b', \
             seq % 2 = 0, seq, 1, NOW() - INTERVAL seq HOUR FROM seq_1_to_{ROWS}"
        ),
    };
    db.execute_unprepared(&fill).await.expect("the posts");
    let url = database.url.clone();
    let single = viewset_core::store::connect_with({
        let mut options = viewset_core::store::options(&url);
        options.max_connections(1);
        options
    })
    .await
    .expect("a pool of one connection");
    let quick = QueryLimits::DEFAULT.with_max_aggregate_time(Duration::from_millis(1));
    let bounded = ServiceState::new(single.clone()).with_query_limits(quick);
    let bounded = TestApp::serve(blog::app_with_state(bounded), single.clone(), database).await;
    let spare = TestDb::create(Backend::Sqlite).await; // the second app owns no database of its own
    let default = TestApp::serve(blog::app_with_state(ServiceState::new(single.clone())), single, spare).await;
    (bounded, default)
}

async fn stopped_by_the_database(backend: Backend) {
    let (bounded, default) = apps(backend).await;
    let (status, body) = bounded.send(Method::GET, ASK, ALICE, None).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::SERVICE_UNAVAILABLE, Some("statement_timeout")), "{body}");
    assert!(body["detail"].as_str().is_some_and(|d| d.contains("max_aggregate_time")), "{body}");
    // The one connection is back, without the bound: an aggregate over every post answers under the default one.
    let (status, body) = default.send(Method::GET, "/api/posts/aggregate?count&sum=views", ALICE, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["groups"][0]["count"].as_i64() > Some(i64::from(ROWS)), "every post counted: {body}");
    // And a list on it is not bounded by the aggregate's limit either.
    assert_eq!(bounded.send(Method::GET, "/api/posts/?limit=1", ALICE, None).await.0, StatusCode::OK);
}

#[tokio::test]
async fn postgres_stops_a_slow_aggregate() {
    if require_postgres().is_none() {
        return;
    }
    stopped_by_the_database(Backend::Postgres).await;
}

#[tokio::test]
async fn mariadb_stops_a_slow_aggregate() {
    if require_mysql().is_none() {
        return;
    }
    stopped_by_the_database(Backend::Mysql).await;
}
