//! Page-number and cursor pagination over HTTP, on SQLite and PostgreSQL. The cursor walk covers 10,000 rows,
//! forward and backward, under every allowed ordering, and while rows are inserted between pages.

use std::collections::HashSet;

use reqwest::StatusCode;
use serde_json::Value;
use viewset_tests::datagen::{Rng, insert_posts, sort};
use viewset_tests::harness::{TestApp, ids};
use viewset_tests::on_every_database;

on_every_database!(TestApp::seeded_query_app =>
    page_numbers,
    cursor_links_and_bad_cursors,
    cursor_links_keep_other_parameters_as_sent,
    cursor_links_stay_short_for_long_values,
);
on_every_database!(TestApp::query_app => cursor_walks_ten_thousand_rows);

async fn page_numbers(app: TestApp) {
    let (status, body) = app.get("/paged/posts/").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (&body["count"], &body["page"], &body["page_size"], &body["total_pages"]),
        (&Value::from(3), &Value::from(1), &Value::from(2), &Value::from(2))
    );
    assert_eq!(ids(&body), vec![3, 2]);
    let (_, body) = app.get("/paged/posts/?page=2").await;
    assert_eq!(ids(&body), vec![1]);
    let (_, body) = app.get("/paged/posts/?page=3&page_size=1&ordering=views").await;
    assert_eq!(ids(&body), vec![2]);
    let (status, body) = app.get("/paged/posts/?page=3").await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::NOT_FOUND, Some("not_found")));
    for bad in ["page=0", "page=-1", "page=x", "page_size=0", "page_size=51"] {
        let (status, body) = app.get(&format!("/paged/posts/?{bad}")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
    }
    let (status, body) = app.get("/paged/posts/?published=false&page_size=5").await;
    assert_eq!((status, ids(&body), body["total_pages"].as_i64()), (StatusCode::OK, vec![3], Some(1)));
    let (status, body) = app.get("/paged/posts/?views=12345").await;
    assert_eq!(
        (status, body["count"].as_i64(), body["total_pages"].as_i64()),
        (StatusCode::OK, Some(0), Some(0)),
        "empty first page"
    );
}

async fn cursor_links_and_bad_cursors(app: TestApp) {
    let (status, first) = app.get("/cursor/posts/?limit=2").await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(ids(&first), vec![3, 2]);
    assert_eq!(first["previous"], Value::Null);
    let next = first["next"].as_str().expect("next link").to_string();
    assert!(next.starts_with("/cursor/posts/?") && next.contains("limit=2"), "{next}");
    let (_, second) = app.get(&next).await;
    assert_eq!((ids(&second), &second["next"]), (vec![1], &Value::Null));
    let previous = second["previous"].as_str().expect("previous link").to_string();
    let (_, back) = app.get(&previous).await;
    assert_eq!((ids(&back), &back["previous"]), (vec![3, 2], &Value::Null));

    let cursor = next.split("cursor=").nth(1).unwrap();
    let tampered = format!("{}A{}", &cursor[..5], &cursor[6..]);
    for bad in [format!("cursor={tampered}"), "cursor=abc".to_string(), format!("cursor={cursor}&ordering=views")] {
        let (status, body) = app.get(&format!("/cursor/posts/?limit=2&{bad}")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {body}");
        assert_eq!(body["detail"][0]["loc"], serde_json::json!(["query", "cursor"]));
    }
}

/// A link keeps the parameters nobody reads as they were sent: re-encoded, each byte that is not UTF-8 grew into
/// `%EF%BF%BD` and the link could pass the URI limit its request kept (found by `fuzz/`'s `cursor` target).
async fn cursor_links_keep_other_parameters_as_sent(app: TestApp) {
    let junk = "%FF".repeat(1_000);
    let request = format!("/cursor/posts/?limit=2&x={junk}&y=a+b%20c");
    let (status, first) = app.get(&request).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let next = first["next"].as_str().expect("next link").to_string();
    assert!(next.contains(&format!("x={junk}&y=a+b%20c&")), "{}", &next[..200]);
    assert!(next.len() < request.len() + 200, "the link grew to {} bytes from {}", next.len(), request.len());
    let (status, second) = app.get(&next).await;
    assert_eq!((status, ids(&second)), (StatusCode::OK, vec![1]), "{second}");
}

/// Ordering by a long text column: the cursor carries the boundary row's key instead of its title, so the
/// server's own links stay under the 8 KiB URI limit; before, each control character grew into `\u00XX` and the
/// `next` link was refused with 414 (found by `fuzz/`'s `cursor` target). A cursor whose row is gone is a 422.
async fn cursor_links_stay_short_for_long_values(app: TestApp) {
    use blog::entities::post;
    use sea_orm::{ActiveModelTrait, EntityTrait, IntoActiveModel, Set};
    for row in post::Entity::find().all(&app.db).await.expect("posts") {
        let title = format!("{}{}", row.id, "\u{1}".repeat(190)); // `varchar(200)` on PostgreSQL
        let mut active = row.into_active_model();
        active.title = Set(title);
        active.update(&app.db).await.expect("long title");
    }
    let mut seen = Vec::new();
    let mut uri = "/cursor/posts/?ordering=title,-views&limit=1".to_string();
    let mut links = Vec::new();
    loop {
        let (status, page) = app.get(&uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {page}");
        seen.extend(ids(&page));
        match page["next"].as_str() {
            Some(next) => {
                assert!(next.len() < 1_000, "a {}-byte link", next.len());
                links.push(next.to_string());
                uri = next.to_string();
            }
            None => break,
        }
    }
    assert_eq!(seen, vec![1, 2, 3], "every row once, in title order");
    let (status, back) = app.get(links.last().expect("a link")).await;
    let previous = back["previous"].as_str().expect("a previous link").to_string();
    let (status_back, earlier) = app.get(&previous).await;
    assert_eq!((status, status_back, ids(&earlier)), (StatusCode::OK, StatusCode::OK, vec![2]), "{earlier}");

    post::Entity::delete_by_id(2).exec(&app.db).await.expect("delete the boundary row");
    let (status, body) = app.get(&links[1]).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["detail"][0]["loc"], serde_json::json!(["query", "cursor"]));
}

const ORDERINGS: &[&str] = &[
    "id",
    "-id",
    "title",
    "-title",
    "views",
    "-views",
    "created_at",
    "-created_at",
    "rating",
    "-rating",
    "-views,title",
    "rating,-created_at",
];

fn terms(ordering: &str) -> Vec<(String, bool)> {
    ordering.split(',').map(|t| (t.trim_start_matches('-').to_string(), t.starts_with('-'))).collect()
}

/// Follows `key` links from `start`, returning the ids page by page.
async fn walk(app: &TestApp, start: &str, key: &str) -> (Vec<Vec<i64>>, Value) {
    let mut pages = Vec::new();
    let (status, mut body) = app.get(start).await;
    assert_eq!(status, StatusCode::OK, "{start}: {body}");
    loop {
        pages.push(ids(&body));
        let Some(link) = body[key].as_str().map(str::to_string) else { return (pages, body) };
        let (status, next) = app.get(&link).await;
        assert_eq!(status, StatusCode::OK, "{link}: {next}");
        body = next;
    }
}

async fn cursor_walks_ten_thousand_rows(app: TestApp) {
    let mut rng = Rng::new(0x5eed);
    let rows = insert_posts(&app.db, 10_000, &mut rng).await;
    assert_eq!(rows.len(), 10_000);
    for ordering in ORDERINGS {
        let mut expected = rows.clone();
        sort(&mut expected, &terms(ordering));
        let expected: Vec<i64> = expected.iter().map(|p| i64::from(p.id)).collect();

        let (pages, last) = walk(&app, &format!("/cursor/posts/?limit=100&ordering={ordering}"), "next").await;
        let forward: Vec<i64> = pages.concat();
        assert_eq!(forward.len(), expected.len(), "{ordering}: rows missed or repeated going forward");
        assert_eq!(forward, expected, "{ordering}: forward order");

        let start = last["previous"].as_str().expect("the last page links back").to_string();
        let (pages, _) = walk(&app, &start, "previous").await;
        let mut backward: Vec<i64> = pages.into_iter().rev().flatten().collect();
        backward.extend(ids(&last));
        assert_eq!(backward, expected, "{ordering}: walking back gives the same rows in the same order");
    }

    // Inserts between pages: every row that existed at the start is seen exactly once.
    for ordering in ["-id", "views", "-rating", "title"] {
        let before: HashSet<i64> = rows.iter().map(|p| i64::from(p.id)).collect();
        let mut seen = HashSet::new();
        let (status, mut body) = app.get(&format!("/cursor/posts/?limit=100&ordering={ordering}")).await;
        assert_eq!(status, StatusCode::OK);
        loop {
            for id in ids(&body) {
                assert!(seen.insert(id), "{ordering}: row {id} repeated");
            }
            insert_posts(&app.db, 3, &mut rng).await;
            let Some(link) = body["next"].as_str().map(str::to_string) else { break };
            body = app.get(&link).await.1;
        }
        assert!(before.is_subset(&seen), "{ordering}: {} rows missed", before.difference(&seen).count());
    }
}
