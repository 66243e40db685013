//! The blog's tags (issue #69, goal 1): posts and tags many-to-many through `post_tags`, over HTTP on SQLite,
//! PostgreSQL and MariaDB. `?expand=tags` embeds each post's tags, `?tags__name=` and `?tags__id__in=` filter through
//! the join table (a post with two matching tags appears and counts once), an unknown tag field is a 422, a page of
//! 100 posts with `expand=tags,author` runs a bounded number of statements, and `/api/tags/` is read by anyone and
//! written by staff. The migration keeps each (post, tag) pair once and deletes a tag's links with it.

use reqwest::{Method, StatusCode};
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use serde_json::{Value, json};
use viewset_tests::datagen::{Rng, insert_posts};
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, ids, recording};
use viewset_tests::identities::blog::{ALICE, BOB, FORGED};
use viewset_tests::on_every_database;

use blog::entities::{post_tag, tag};

// Seed: posts 1 (history, machines), 2 (machines), 3 (logic, a draft); tags 1 history, 2 machines, 3 logic.
on_every_database!(TestApp::blog =>
    expand_embeds_each_posts_tags,
    tag_filters_go_through_the_join_table_once,
    unknown_tag_fields_are_refused,
    anyone_reads_tags_and_staff_write_them,
    each_pair_is_linked_once_and_goes_with_its_tag,
);
on_every_database!(counted_blog => a_page_with_tags_and_authors_runs_a_bounded_number_of_statements);

async fn get(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    let (status, body) = app.send(Method::GET, path, token, None).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    body
}

/// A list's `count`.
fn count(body: &Value) -> Option<i64> {
    body["count"].as_i64()
}

/// The names of a post's embedded tags.
fn tag_names(post: &Value) -> Vec<&str> {
    let tags = post["tags"].as_array().unwrap_or_else(|| panic!("no tags array in {post}"));
    tags.iter().map(|t| t["name"].as_str().unwrap_or_else(|| panic!("no name in {t}"))).collect()
}

async fn expand_embeds_each_posts_tags(app: TestApp) {
    let page = get(&app, "/api/posts/?expand=tags&ordering=id", None).await;
    let results = page["results"].as_array().expect("results");
    let by_post: Vec<(i64, Vec<&str>)> = results.iter().map(|p| (p["id"].as_i64().unwrap(), tag_names(p))).collect();
    assert_eq!(by_post, [(1, vec!["history", "machines"]), (2, vec!["machines"]), (3, vec!["logic"])], "{page}");
    assert_eq!(results[0]["tags"][0], json!({"id": 1, "name": "history"}), "a tag as the tag ViewSet lists it");
    // Without `expand`, no `tags` key; retrieve embeds too; a post without tags embeds an empty array.
    let plain = get(&app, "/api/posts/?ordering=id", None).await;
    assert!(plain["results"][0].get("tags").is_none(), "{plain}");
    let post = get(&app, "/api/posts/3?expand=tags,author", BOB).await;
    assert_eq!((tag_names(&post), &post["author"]["name"]), (vec!["logic"], &json!("Alan Turing")), "{post}");
    let new = r#"{"title": "Untagged", "body": "b", "author_id": 1}"#;
    let (status, created) = app.send(Method::POST, "/api/posts/", BOB, Some(new)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let untagged = get(&app, &format!("/api/posts/{}?expand=tags", created["id"]), None).await;
    assert_eq!(untagged["tags"], json!([]), "{untagged}");
    // The document types `tags` as an array of the tag ViewSet's records.
    let doc = serde_json::to_value(blog::openapi()).expect("a document");
    let read = &doc["paths"]["/api/posts/{pk}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
    assert_eq!(read["properties"]["tags"]["items"]["$ref"], "#/components/schemas/tags_record", "{read}");
}

async fn tag_filters_go_through_the_join_table_once(app: TestApp) {
    let machines = get(&app, "/api/posts/?tags__name=machines", None).await;
    assert_eq!((ids(&machines), count(&machines)), (vec![2, 1], Some(2)), "{machines}");
    let logic = get(&app, "/api/posts/?tags__name=logic", None).await;
    assert_eq!(ids(&logic), vec![3], "{logic}");
    // Post 1 has both tags: it appears, and counts, once.
    let either = get(&app, "/api/posts/?tags__id__in=1,2", None).await;
    assert_eq!((ids(&either), count(&either)), (vec![2, 1], Some(2)), "{either}");
    let paged = get(&app, "/api/posts/?tags__id__in=1,2&limit=1", None).await;
    assert_eq!((ids(&paged), count(&paged)), (vec![2], Some(2)), "{paged}");
    // Lookups, other filters and `or=` groups combine with them.
    let icontains = get(&app, "/api/posts/?tags__name__icontains=MACH&views__lt=200", None).await;
    assert_eq!(ids(&icontains), vec![1], "{icontains}");
    let grouped = get(&app, "/api/posts/?or=(tags__name.logic,views__gt.200)", None).await;
    assert_eq!(ids(&grouped), vec![3, 2], "{grouped}");
    let none = get(&app, "/api/posts/?tags__name=nosuch", None).await;
    assert_eq!((ids(&none), count(&none)), (vec![], Some(0)), "{none}");
    // The filter and the embedding together.
    let both = get(&app, "/api/posts/?tags__name=history&expand=tags", None).await;
    assert_eq!(tag_names(&both["results"][0]), ["history", "machines"], "a filter narrows posts, not their tags");
}

async fn unknown_tag_fields_are_refused(app: TestApp) {
    for (query, kind) in [
        ("tags__slug=x", "unknown_filter"),
        ("tags__post_id=1", "unknown_filter"),
        ("tag__name=logic", "unknown_filter"),
        ("tags__name__regex=l", "unsupported_lookup"),
    ] {
        let (status, body) = app.get(&format!("/api/posts/?{query}")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {body}");
        let param = query.split('=').next().unwrap();
        assert_eq!((&body["detail"][0]["type"], &body["detail"][0]["loc"]), (&json!(kind), &json!(["query", param])));
    }
    // The refusal names the tag filters that are allowed.
    let (_, body) = app.get("/api/posts/?tags__slug=x").await;
    let msg = body["detail"][0]["msg"].as_str().unwrap_or_default();
    assert!(msg.contains("tags__name"), "{msg}");
    // More values than an `__in` takes (1,000), in a URI the blog's limits still accept.
    let many = (1..=1_001).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let (status, body) = app.get(&format!("/api/posts/?tags__id__in={many}")).await;
    assert_eq!((status, &body["detail"][0]["type"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("too_many_values")));
}

async fn anyone_reads_tags_and_staff_write_them(app: TestApp) {
    let names = |body: &Value| -> Vec<String> {
        body["results"].as_array().expect("results").iter().map(|t| t["name"].as_str().unwrap().into()).collect()
    };
    let listed = get(&app, "/api/tags/", None).await;
    assert_eq!(names(&listed), ["history", "logic", "machines"], "ordered by name: {listed}");
    assert_eq!(get(&app, "/api/tags/?search=ach", None).await["count"], 1);
    assert_eq!(get(&app, "/api/tags/3", FORGED).await, json!({"id": 3, "name": "logic"}));
    let new = Some(r#"{"name": "rust"}"#);
    for (token, refused) in
        [(None, StatusCode::UNAUTHORIZED), (FORGED, StatusCode::UNAUTHORIZED), (BOB, StatusCode::FORBIDDEN)]
    {
        let (status, body) = app.send(Method::POST, "/api/tags/", token, new).await;
        assert_eq!(status, refused, "{token:?}: {body}");
        let (status, _) = app.send(Method::PATCH, "/api/tags/1", token, Some(r#"{"name": "x"}"#)).await;
        assert_eq!(status, refused, "{token:?}");
        let (status, _) = app.send(Method::DELETE, "/api/tags/1", token, None).await;
        assert_eq!(status, refused, "{token:?}");
    }
    assert_eq!(get(&app, "/api/tags/", None).await["count"], 3, "nothing written");
    let (status, created) = app.send(Method::POST, "/api/tags/", ALICE, new).await;
    assert_eq!((status, &created["name"]), (StatusCode::CREATED, &json!("rust")), "{created}");
    // Names are unique.
    let (status, body) = app.send(Method::POST, "/api/tags/", ALICE, new).await;
    assert_eq!((status, body["code"].as_str()), (StatusCode::CONFLICT, Some("unique_violation")), "{body}");
    let (status, body) = app.send(Method::PATCH, "/api/tags/1", ALICE, Some(r#"{"name": "past"}"#)).await;
    assert_eq!((status, &body["name"]), (StatusCode::OK, &json!("past")), "{body}");
    let post = get(&app, "/api/posts/1?expand=tags", None).await;
    assert_eq!(tag_names(&post), ["machines", "past"], "{post}");
}

async fn each_pair_is_linked_once_and_goes_with_its_tag(app: TestApp) {
    let again = post_tag::ActiveModel { post_id: Set(1), tag_id: Set(2) };
    let refused = post_tag::Entity::insert(again).exec_without_returning(&app.db).await;
    assert!(refused.is_err(), "the pair (post 1, tag 2) is already linked: {refused:?}");
    let link = post_tag::ActiveModel { post_id: Set(3), tag_id: Set(2) };
    post_tag::Entity::insert(link).exec_without_returning(&app.db).await.expect("a new pair");
    let machines = get(&app, "/api/posts/?tags__name=machines", None).await;
    assert_eq!(ids(&machines), vec![3, 2, 1], "{machines}");
    // A link needs its post and its tag.
    let orphan = post_tag::ActiveModel { post_id: Set(1), tag_id: Set(999) };
    assert!(post_tag::Entity::insert(orphan).exec_without_returning(&app.db).await.is_err(), "no tag 999");
    // Deleting a tag deletes its links, not the posts.
    let (status, body) = app.send(Method::DELETE, "/api/tags/2", ALICE, None).await;
    assert_eq!((status, body), (StatusCode::OK, json!({"deleted": true, "id": 2})));
    let page = get(&app, "/api/posts/?expand=tags&ordering=id", None).await;
    let by_post: Vec<Vec<&str>> = page["results"].as_array().unwrap().iter().map(tag_names).collect();
    assert_eq!(by_post, [vec!["history"], vec![], vec!["logic"]], "{page}");
}

/// The blog with 300 more posts, each with one to three of five tags, every statement recorded.
async fn counted_blog(backend: Backend) -> (TestApp, Statements) {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let posts = insert_posts(&db, 300, &mut Rng::new(11)).await;
    let mut tags = Vec::new();
    for name in ["a", "b"] {
        tags.push(tag::ActiveModel { name: Set(name.into()), ..Default::default() }.insert(&db).await.expect("tag").id);
    }
    let tags = [1, 2, 3].into_iter().chain(tags).collect::<Vec<i32>>();
    let links: Vec<post_tag::ActiveModel> = posts
        .iter()
        .filter(|p| p.id > 3)
        .flat_map(|p| {
            let n = 1 + (p.id as usize % 3);
            (0..n).map(move |k| (p.id, k))
        })
        .map(|(post_id, k)| post_tag::ActiveModel {
            post_id: Set(post_id),
            tag_id: Set(tags[(post_id as usize + k) % tags.len()]),
        })
        .collect();
    for chunk in links.chunks(500) {
        post_tag::Entity::insert_many(chunk.to_vec()).exec_without_returning(&db).await.expect("links");
    }
    let (recorded, statements) = recording(&db);
    (TestApp::serve(blog::app(recorded), db, database).await, statements)
}

async fn a_page_with_tags_and_authors_runs_a_bounded_number_of_statements((app, statements): (TestApp, Statements)) {
    let mut seen = Vec::new();
    for limit in [1, 10, 100] {
        for expand in ["", "&expand=tags", "&expand=tags,author"] {
            statements.lock().unwrap().clear();
            let body = get(&app, &format!("/api/posts/?limit={limit}{expand}"), BOB).await;
            let results = body["results"].as_array().expect("results");
            assert_eq!(results.len(), limit);
            if !expand.is_empty() {
                let tagged = results.iter().all(|p| p["tags"].as_array().is_some_and(|t| (1..=3).contains(&t.len())));
                assert!(tagged, "every generated post has one to three tags: {body}");
            }
            if expand.contains("author") {
                assert!(results.iter().all(|p| p["author"]["id"] == p["author_id"]), "{body}");
            }
            seen.push((limit, expand, statements.lock().unwrap().len()));
        }
    }
    // A page and its count are two statements; the tags add one and the authors one, for 1, 10 or 100 posts.
    let counts: Vec<usize> = seen.iter().map(|(_, _, n)| *n).collect();
    assert_eq!(counts, [2, 3, 4, 2, 3, 4, 2, 3, 4], "{seen:?}");
}
