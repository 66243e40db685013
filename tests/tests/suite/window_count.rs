//! A counted list with a search term reads its page and count in one statement on PostgreSQL and SQLite
//! (`COUNT(*) OVER ()`, `store::Plan::window_count`), and in two on MariaDB; the answers are the same on every
//! backend: the count of the filtered set on the first page, a middle page, a page past the end (which asks the
//! count's own statement) and an empty result; `count=none` and `count=estimated` as before.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, recording};
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

async fn recorded_blog(backend: Backend) -> (TestApp, Statements, Backend) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let (recorded, statements) = recording(&db);
    (TestApp::serve(blog::app(recorded), db, database).await, statements, backend)
}

on_every_database!(recorded_blog => search_lists_count_the_filtered_set);

/// The answer at `path` (as bob) and how many statements it ran.
async fn get(app: &TestApp, statements: &Statements, path: &str) -> (Value, usize) {
    statements.lock().unwrap().clear();
    let (status, body) = app.send(Method::GET, path, BOB, None).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    (body, statements.lock().unwrap().len())
}

fn titles(body: &Value) -> Vec<String> {
    let results = body["results"].as_array().expect("results");
    results.iter().map(|r| r["title"].as_str().expect("title").to_string()).collect()
}

async fn search_lists_count_the_filtered_set((app, statements, backend): (TestApp, Statements, Backend)) {
    // The seeded blog: every post has an `a`, two have "comput".
    let one_statement = backend != Backend::Mysql;
    let page_and_count = if one_statement { 1 } else { 2 };
    let (all, ran) = get(&app, &statements, "/api/posts/?search=a&limit=100").await;
    let total = titles(&all).len() as u64;
    assert!(total >= 3, "{all}");
    assert_eq!((all["count"].as_u64(), ran), (Some(total), page_and_count), "{all}");

    let (first, ran) = get(&app, &statements, "/api/posts/?search=a&limit=1").await;
    assert_eq!((first["count"].as_u64(), ran), (Some(total), page_and_count), "{first}");
    assert_eq!(titles(&first), titles(&all)[..1], "{first}");
    let (middle, _) = get(&app, &statements, "/api/posts/?search=a&limit=1&offset=1").await;
    assert_eq!((middle["count"].as_u64(), titles(&middle)), (Some(total), titles(&all)[1..2].to_vec()), "{middle}");

    // Past the end the page has no row to carry the count: the count's own statement answers.
    let (past, ran) = get(&app, &statements, "/api/posts/?search=a&limit=10&offset=50").await;
    assert_eq!((past["count"].as_u64(), titles(&past).len(), ran), (Some(total), 0, 2), "{past}");
    // Nothing matches: an empty first page counts 0 without a second statement.
    let (none, ran) = get(&app, &statements, "/api/posts/?search=zzzzzz").await;
    assert_eq!((none["count"].as_u64(), titles(&none).len(), ran), (Some(0), 0, page_and_count), "{none}");

    // Filters with the search, and sparse fields: the count is still the filtered set's.
    let (comput, _) = get(&app, &statements, "/api/posts/?search=comput&limit=100").await;
    let (drafts, _) = get(&app, &statements, "/api/posts/?search=comput&published=false&fields=id,title").await;
    let draft_count = titles(&drafts).len() as u64;
    assert_eq!(drafts["count"].as_u64(), Some(draft_count), "{drafts}");
    assert!(draft_count < titles(&comput).len() as u64, "{comput} {drafts}");
    assert_eq!(drafts["results"][0].as_object().map(|o| o.len()), Some(2), "{drafts}");

    // Without a search term the count is its own statement everywhere (an index can end the page early).
    let (plain, ran) = get(&app, &statements, "/api/posts/?published=true").await;
    assert_eq!((plain["count"].as_u64(), ran), (Some(titles(&plain).len() as u64), 2), "{plain}");
    // `count=none` reads the page alone; `count=exact` is the default's answer.
    let (skipped, ran) = get(&app, &statements, "/api/posts/?search=a&count=none").await;
    assert_eq!((skipped["count"].clone(), ran), (Value::Null, 1), "{skipped}");
    let (exact, ran) = get(&app, &statements, "/api/posts/?search=a&count=exact&limit=1").await;
    assert_eq!(
        (exact["count"].as_u64(), exact["count_mode"].as_str(), ran),
        (Some(total), Some("exact"), page_and_count)
    );
}
