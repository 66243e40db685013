//! Typed relations in the document (issue #69, goal 4): an expandable relation is an optional property typed by
//! the related ViewSet's record, so a generated client reads `post.author?.name` without a cast.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_tests::harness::TestApp;
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog => expanded_relations_are_typed_by_the_related_record);

/// Issue #69, goal 4: an expandable relation is an optional property typed by the related ViewSet's record (a
/// component per embedded table), `null` allowed for a to-one relation, an array for a has-many one; and the
/// server's embedded records have exactly the properties the component names.
async fn expanded_relations_are_typed_by_the_related_record(app: TestApp) {
    let (status, doc) = app.get("/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    let schema =
        |path: &str| doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"].clone();
    let author = &schema("/api/posts/{pk}")["properties"]["author"];
    let alternatives: Vec<&Value> = author["oneOf"].as_array().expect("author: oneOf").iter().collect();
    assert_eq!(alternatives[0]["$ref"], "#/components/schemas/authors_record", "{author}");
    assert_eq!(alternatives[1]["type"], "null", "{author}");
    let page_item = &schema("/api/posts/")["properties"]["results"]["items"]["properties"]["author"];
    assert_eq!(page_item, author);
    let posts = &schema("/authors/{pk}")["properties"]["posts"];
    assert_eq!(
        (posts["type"].as_str(), posts["items"]["$ref"].as_str()),
        (Some("array"), Some("#/components/schemas/posts_record"))
    );
    // The components are the related ViewSets' records, their own relations typed the same way.
    let authors_record = &doc["components"]["schemas"]["authors_record"];
    assert_eq!(authors_record["properties"]["posts"]["items"]["$ref"], "#/components/schemas/posts_record");
    let posts_record = &doc["components"]["schemas"]["posts_record"];
    assert_eq!(posts_record["properties"]["title"]["type"], "string", "{posts_record}");
    // What the server embeds has the component's properties, for staff (who see `email`) and for a user (who does
    // not: a staff-only field is not required). Found by schemathesis.
    let documented: Vec<&String> = authors_record["properties"].as_object().expect("properties").keys().collect();
    for token in ["alice-token", "bob-token"] {
        let (status, post) = app.send(Method::GET, "/api/posts/1?expand=author", Some(token), None).await;
        assert_eq!(status, StatusCode::OK);
        for key in post["author"].as_object().expect("an embedded author").keys() {
            assert!(documented.contains(&key), "{key} is not documented in authors_record: {documented:?}");
        }
        for required in authors_record["required"].as_array().into_iter().flatten() {
            assert!(post["author"].get(required.as_str().unwrap()).is_some(), "{token}: {required} missing in {post}");
        }
    }
}
