//! Relation embedding (`?expand=`) over HTTP on SQLite and PostgreSQL, through the related ViewSet's policy: the
//! blog's authors need an identity (anonymous callers see `null`) and show `email` to staff only. The SQL of a page
//! with `expand=author` is one statement more than without, whatever the page size.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_tests::datagen::{Rng, insert_posts};
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, recording};
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog => embeds_through_the_related_policy, refuses_what_cannot_be_embedded, embeds_on_retrieve_and_has_many);
on_every_database!(counted_blog => one_query_per_relation_whatever_the_page);

const ALICE: Option<&str> = Some("alice-token"); // staff
const BOB: Option<&str> = Some("bob-token");

async fn get(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let (status, body) = app.send(Method::GET, path, token, None).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    body
}

fn authors(body: &Value) -> Vec<Value> {
    body["results"].as_array().expect("results").iter().map(|post| post["author"].clone()).collect()
}

async fn embeds_through_the_related_policy(app: TestApp) {
    let path = "/api/posts/?expand=author&ordering=id";
    // Anonymous callers may list posts but not authors: every embedded author is null, the key still there.
    let anonymous = get(&app, path, None).await;
    assert_eq!(authors(&anonymous), vec![Value::Null; 3], "{anonymous}");
    assert_eq!(anonymous["results"][0]["author_id"], 1, "the post's own fields stay");
    // bob may list authors, without the staff-only email.
    let bob = get(&app, path, BOB).await;
    let ada = json!({"id": 1, "name": "Ada Lovelace"});
    let alan = json!({"id": 2, "name": "Alan Turing"});
    assert_eq!(authors(&bob), vec![ada.clone(), alan.clone(), alan]);
    // alice is staff: she sees the email too.
    let alice = get(&app, path, ALICE).await;
    assert_eq!(alice["results"][0]["author"], json!({"id": 1, "name": "Ada Lovelace", "email": "ada@example.com"}));
    // Without `expand`, no `author` key; with `fields=`, the embedded record is added to the fields named.
    let plain = get(&app, "/api/posts/?ordering=id", BOB).await;
    assert!(plain["results"][0].get("author").is_none(), "{plain}");
    let sparse = get(&app, "/api/posts/?ordering=id&fields=id,title&expand=author", BOB).await;
    assert_eq!(sparse["results"][0], json!({"id": 1, "title": "Notes on the Analytical Engine", "author": ada}));
    // Filters and pagination of the page are unchanged.
    let filtered = get(&app, "/api/posts/?expand=author&author_id=2&limit=1&ordering=id", BOB).await;
    assert_eq!(
        (filtered["count"].as_i64(), authors(&filtered)),
        (Some(2), vec![json!({"id": 2, "name": "Alan Turing"})])
    );
}

async fn refuses_what_cannot_be_embedded(app: TestApp) {
    for (query, needle) in [
        ("expand=authors", "`authors` cannot be expanded; expandable: author, tags"),
        ("expand=title", "`title` cannot be expanded"),
        ("expand=", "`` cannot be expanded"),
        ("expand=author.posts.author.posts", "deeper than 3"),
        ("expand=author.nope", "`nope` cannot be expanded; expandable: posts"),
        ("expand=author&expand=author", "given more than once"),
    ] {
        let (status, body) = app.send(Method::GET, &format!("/api/posts/?{query}"), BOB, None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["query", "expand"]), "{query}: {body}");
        let msg = body["detail"][0]["msg"].as_str().unwrap_or_default();
        assert!(msg.contains(needle), "{query}: {msg}");
    }
    // Retrieve checks it the same way, before reading the record.
    let (status, body) = app.send(Method::GET, "/api/posts/99999?expand=nope", BOB, None).await;
    assert_eq!((status, &body["detail"][0]["loc"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!(["query", "expand"])));
}

async fn embeds_on_retrieve_and_has_many(app: TestApp) {
    let post = get(&app, "/api/posts/2?expand=author", BOB).await;
    assert_eq!(post["author"], json!({"id": 2, "name": "Alan Turing"}));
    assert_eq!(post["title"], "Computing Machinery and Intelligence");
    // The ETag is the tag of this representation: a second request with it is a 304.
    let response = app.client().get(format!("{}/api/posts/2?expand=author", app.base)).bearer_auth("bob-token");
    let tag = response.send().await.expect("request").headers()["etag"].clone();
    let again = app.client().get(format!("{}/api/posts/2?expand=author", app.base)).bearer_auth("bob-token");
    let again = again.header("if-none-match", tag).send().await.expect("request");
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    let plain = app.client().get(format!("{}/api/posts/2", app.base)).bearer_auth("bob-token");
    let tag_plain = plain.send().await.expect("request").headers()["etag"].clone();
    let post_again = app.client().get(format!("{}/api/posts/2?expand=author", app.base)).bearer_auth("bob-token");
    assert_ne!(post_again.send().await.expect("request").headers()["etag"], tag_plain);

    // Has-many: an author's posts, ordered as the posts list orders them (`-id`); nested back to the author.
    let alan = get(&app, "/authors/2?expand=posts", BOB).await;
    let titles: Vec<&str> =
        alan["posts"].as_array().expect("posts").iter().filter_map(|p| p["title"].as_str()).collect();
    assert_eq!(titles, ["On Computable Numbers", "Computing Machinery and Intelligence"]);
    let list = get(&app, "/authors/?expand=posts.author&ordering=id", ALICE).await;
    let ada_posts = &list["results"][0]["posts"];
    assert_eq!(ada_posts.as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(ada_posts[0]["author"]["email"], "ada@example.com");
    // An author without posts embeds an empty list.
    let (status, created) = app.send(Method::POST, "/authors/", BOB, Some(r#"{"name": "Grace Hopper"}"#)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let grace = get(&app, &format!("/authors/{}?expand=posts", created["id"]), BOB).await;
    assert_eq!(grace["posts"], json!([]));
}

/// The blog, with every statement it runs recorded.
async fn counted_blog(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    insert_posts(&db, 300, &mut Rng::new(7)).await;
    let (recorded, statements) = recording(&db);
    (TestApp::serve(blog::app(recorded), db, database).await, statements)
}

async fn one_query_per_relation_whatever_the_page((app, statements): (TestApp, Statements)) {
    let mut seen = Vec::new();
    for limit in [1, 10, 100] {
        for expand in ["", "&expand=author"] {
            statements.lock().unwrap().clear();
            let body = get(&app, &format!("/api/posts/?limit={limit}{expand}"), BOB).await;
            assert_eq!(body["results"].as_array().map(Vec::len), Some(limit));
            if !expand.is_empty() {
                assert!(
                    body["results"].as_array().expect("results").iter().all(|p| p["author"]["id"] == p["author_id"])
                );
            }
            seen.push((limit, expand, statements.lock().unwrap().len()));
        }
    }
    // A page and its count are two statements; embedding authors adds one, for 1, 10 or 100 posts.
    let statements: Vec<usize> = seen.iter().map(|(_, _, n)| *n).collect();
    assert_eq!(statements, [2, 3, 2, 3, 2, 3], "{seen:?}");
}
