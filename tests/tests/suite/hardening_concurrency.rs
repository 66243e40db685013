//! Optimistic concurrency under real concurrency, on SQLite and PostgreSQL: writers that all hold the same `ETag`
//! race with `If-Match`; exactly one wins and every other gets 412 (no lost update). The read, the comparison and
//! the write happen in one transaction with the row locked (`access::fetch_visible_locked`).

use reqwest::header::{ETAG, IF_MATCH};
use reqwest::{Method, StatusCode};
use viewset_tests::harness::TestApp;
use viewset_tests::identities::blog::BOB;
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog =>
    one_of_many_patches_with_the_same_tag_wins,
    one_of_many_deletes_with_the_same_tag_wins,
);

/// How many writers race.
const WRITERS: usize = 12;

async fn tag_of(app: &TestApp, path: &str) -> String {
    let response = app.client().get(format!("{}{path}", app.base)).send().await.expect("GET");
    assert_eq!(response.status(), StatusCode::OK);
    response.headers()[ETAG].to_str().expect("ascii ETag").to_string()
}

/// One request per body, all sent at once, each with `If-Match: tag`; their statuses and bodies.
async fn race(app: &TestApp, method: Method, path: &str, tag: &str, bodies: Vec<Option<String>>) -> Vec<(u16, String)> {
    let tasks: Vec<_> = bodies
        .into_iter()
        .map(|body| {
            let mut request = app
                .client()
                .request(method.clone(), format!("{}{path}", app.base))
                .bearer_auth(BOB.expect("Bob's token"))
                .header(IF_MATCH, tag);
            if let Some(body) = body {
                request = request.header("content-type", "application/json").body(body);
            }
            tokio::spawn(async move {
                let response = request.send().await.expect("request");
                (response.status().as_u16(), response.text().await.expect("body"))
            })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.expect("a writer task"));
    }
    answers
}

async fn one_of_many_patches_with_the_same_tag_wins(app: TestApp) {
    let tag = tag_of(&app, "/api/posts/2").await;
    let bodies = (0..WRITERS).map(|n| Some(format!(r#"{{"views": {}}}"#, 100 + n))).collect();
    let answers = race(&app, Method::PATCH, "/api/posts/2", &tag, bodies).await;

    let won: Vec<_> = answers.iter().filter(|(status, _)| *status == 200).collect();
    let refused = answers.iter().filter(|(status, body)| *status == 412 && body.contains("precondition_failed"));
    assert_eq!(won.len(), 1, "exactly one writer with the tag wins: {answers:?}");
    assert_eq!(refused.count(), WRITERS - 1, "every other writer gets 412: {answers:?}");

    // What the record holds is what the winner wrote: no later writer overwrote it with a stale tag.
    let winner: serde_json::Value = serde_json::from_str(&won[0].1).expect("JSON");
    let (status, now) = app.get("/api/posts/2").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(now["views"], winner["views"], "the stored record is the winner's");
}

async fn one_of_many_deletes_with_the_same_tag_wins(app: TestApp) {
    let tag = tag_of(&app, "/api/posts/2").await;
    let answers = race(&app, Method::DELETE, "/api/posts/2", &tag, vec![None; WRITERS]).await;
    let won = answers.iter().filter(|(status, _)| *status == 200).count();
    // A loser either finds the record gone (404) or, on a database that let it read first, a changed one (412).
    let lost = answers.iter().filter(|(status, _)| *status == 404 || *status == 412).count();
    assert_eq!((won, lost), (1, WRITERS - 1), "one delete wins, the others are refused: {answers:?}");
    assert_eq!(app.get("/api/posts/2").await.0, StatusCode::NOT_FOUND);
}
