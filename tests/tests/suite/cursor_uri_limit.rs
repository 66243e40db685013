//! A cursor page's links stay within the server's URI limit when they can: a request close to `max_uri_bytes` gets
//! links carrying the shortest cursor (the boundary row's key), which the server then accepts. Found by the cursor
//! fuzzer (corpus `link-near-uri-limit`): the inline cursor pushed the server's own `next` link past the limit, and
//! following it was a 414. On SQLite and PostgreSQL.

use reqwest::{Method, StatusCode};
use viewset_core::limits::Limits;
use viewset_tests::harness::{Backend, TestApp, TestDb, ids};
use viewset_tests::on_every_database;

async fn limited(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    TestApp::serve(Limits::default().apply(viewset_tests::fixtures::paged::app(db.clone())), db, database).await
}

on_every_database!(limited => links_near_the_uri_limit_carry_the_shortest_cursor);

async fn links_near_the_uri_limit_carry_the_shortest_cursor(app: TestApp) {
    use blog::entities::post;
    use sea_orm::{ActiveModelTrait, EntityTrait, IntoActiveModel, Set};
    for row in post::Entity::find().all(&app.db).await.expect("posts") {
        let title = format!("{}{}", row.id, "t".repeat(150)); // an inline cursor of about 300 bytes
        let mut active = row.into_active_model();
        active.title = Set(title);
        active.update(&app.db).await.expect("long title");
    }
    let limit = Limits::default().max_uri_bytes;
    let base = "/cursor/posts/?ordering=title&limit=1&pad=";
    let uri = format!("{base}{}", "p".repeat(limit - 200 - base.len()));
    assert_eq!(uri.len(), limit - 200);
    let (status, page) = app.send(Method::GET, &uri, None, None).await;
    assert_eq!((status, ids(&page)), (StatusCode::OK, vec![1]), "{page}");
    let next = page["next"].as_str().expect("a next link");
    assert!(next.len() <= limit, "a {}-byte link over the {limit}-byte limit", next.len());
    let (status, page) = app.send(Method::GET, next, None, None).await;
    assert_eq!((status, ids(&page)), (StatusCode::OK, vec![2]), "{page}");
    // Far from the limit the cursor stays inline (no extra read of the boundary row).
    let (_, page) = app.send(Method::GET, "/cursor/posts/?ordering=title&limit=1", None, None).await;
    assert!(page["next"].as_str().expect("a next link").len() > 300, "{page}");
}
