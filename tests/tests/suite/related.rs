//! Related-field filters and ordering (`?author__name__icontains=ada`, `?ordering=author__name`) over HTTP on SQLite
//! and PostgreSQL, through the related ViewSet's policy: the blog's authors need an identity (anonymous callers match
//! nothing and cannot order by them) and show `email` to staff only (for anyone else `author__email` is an unknown
//! field, exactly as a hidden field of the post itself).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use viewset_core::prelude::*;
use viewset_tests::harness::TestApp;
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog => filters_through_the_related_policy, orders_through_the_related_policy, refuses_bad_related_filters);

const ALICE: Option<&str> = Some("alice-token"); // staff
const BOB: Option<&str> = Some("bob-token");

/// The post ids of a list page and its count.
async fn ids(app: &TestApp, query: &str, token: Option<&str>) -> (Vec<i64>, i64) {
    let path = format!("/api/posts/?{query}");
    let (status, body) = app.send(Method::GET, &path, token, None).await;
    assert_eq!(status, StatusCode::OK, "{path}: {body}");
    let ids = body["results"].as_array().expect("results").iter().map(|p| p["id"].as_i64().unwrap()).collect();
    (ids, body["count"].as_i64().expect("count"))
}

async fn filters_through_the_related_policy(app: TestApp) {
    assert_eq!(ids(&app, "author__name__icontains=ADA&ordering=id", BOB).await, (vec![1], 1));
    assert_eq!(ids(&app, "author__name=Alan%20Turing&ordering=id", BOB).await, (vec![2, 3], 2));
    assert_eq!(ids(&app, "author__name__in=Ada%20Lovelace,Alan%20Turing&ordering=id", BOB).await, (vec![1, 2, 3], 3));
    assert_eq!(ids(&app, "author__name__icontains=ada&views__gte=200", BOB).await, (vec![], 0), "ANDed with the rest");
    // Anonymous callers may list posts but not authors: a filter through authors matches nothing, count included.
    assert_eq!(ids(&app, "author__name__icontains=a", None).await, (vec![], 0));
    // Staff see the email, so they may filter by it; the same filter in an `or` group.
    assert_eq!(ids(&app, "author__email=ada@example.com", ALICE).await, (vec![1], 1));
    let group = "or=(author__name.Ada%20Lovelace,views__lt.10)&ordering=id";
    assert_eq!(ids(&app, group, BOB).await, (vec![1, 3], 2));
    assert_eq!(ids(&app, group, None).await, (vec![3], 1), "the related term holds for no anonymous row");
}

async fn orders_through_the_related_policy(app: TestApp) {
    assert_eq!(ids(&app, "ordering=author__name,id", BOB).await.0, vec![1, 2, 3]);
    assert_eq!(ids(&app, "ordering=-author__name,id", BOB).await.0, vec![2, 3, 1]);
    assert_eq!(ids(&app, "ordering=-author__name,-id", BOB).await.0, vec![3, 2, 1]);
    // Anonymous callers cannot see authors: the term is dropped like any term they may not order by, and the rest
    // of the ordering applies, so nothing of the authors shows through the order.
    assert_eq!(ids(&app, "ordering=-author__name,id", None).await.0, vec![1, 2, 3]);
    assert_eq!(ids(&app, "ordering=-author__name", None).await.0, vec![1, 2, 3], "only invalid: primary key");
    // Paging an ordering by a related field with limit/offset is stable.
    assert_eq!(ids(&app, "ordering=-author__name,id&limit=1&offset=2", BOB).await, (vec![1], 3));
}

async fn refuses_bad_related_filters(app: TestApp) {
    for (query, token, loc, kind) in [
        ("author__email=ada@example.com", BOB, "author__email", "unknown_field"),
        ("author__name__bogus=1", BOB, "author__name__bogus", "unsupported_lookup"),
        ("author__name__gt=a&author__name__gt=b", BOB, "author__name__gt", "duplicate_parameter"),
        ("or=(author__email.x)", BOB, "or", "unknown_field"),
        ("author__name__isnull=maybe", BOB, "author__name__isnull", "bool_parsing"),
    ] {
        let path = format!("/api/posts/?{query}");
        let (status, body) = app.send(Method::GET, &path, token, None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["query", loc]), "{query}: {body}");
        assert_eq!(body["detail"][0]["type"], Value::from(kind), "{query}: {body}");
    }
    // A bad value is a 422 for every caller, also one for whom nothing could match (anonymous: authors need an
    // identity). Found by schemathesis.
    let (status, body) = app.send(Method::GET, "/api/posts/?author__name__isnull=maybe", None, None).await;
    assert_eq!((status, &body["detail"][0]["type"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("bool_parsing")));
    // A related path that is not in `filterable_fields` is not a filter: a 422 naming it, never silently ignored.
    let (status, body) = app.send(Method::GET, "/api/posts/?author__id=1", BOB, None).await;
    assert_eq!((status, &body["detail"][0]["type"]), (StatusCode::UNPROCESSABLE_ENTITY, &json!("unknown_filter")));
}

/// Authors filtered through their posts (a to-many relation): an author matches when any of their posts does, once.
#[derive(ModelViewSet)]
#[viewset(
    model = blog::entities::author::Entity,
    prefix = "/by-posts/authors",
    filter_backends = [ServiceFilterBackend, OrderingFilter],
    relations(posts = blog::entities::post::Entity),
    filterable_fields = ["posts__title", "posts__views"],
    ordering_fields = ["id", "posts__title"],
)]
pub struct AuthorsByPosts;

async fn authors_by_posts(backend: viewset_tests::harness::Backend) -> TestApp {
    let (database, db) = viewset_tests::harness::TestDb::seeded_blog(backend).await;
    let mut api = Api::new();
    api.include::<AuthorsByPosts>().unwrap().include::<blog::viewsets::PostViewSet>().unwrap();
    let router = api.into_router().with_state(ServiceState::new(db.clone())).layer(blog::auth::layer());
    TestApp::serve(router, db, database).await
}

on_every_database!(authors_by_posts => filters_through_a_to_many_relation);

async fn filters_through_a_to_many_relation(app: TestApp) {
    let authors = |query: &'static str| {
        let app = &app;
        async move {
            let (status, body) = app.send(Method::GET, &format!("/by-posts/authors/?{query}"), None, None).await;
            assert_eq!(status, StatusCode::OK, "{query}: {body}");
            let ids: Vec<i64> = body["results"].as_array().unwrap().iter().map(|a| a["id"].as_i64().unwrap()).collect();
            (ids, body["count"].as_i64().unwrap())
        }
    };
    // Alan wrote two posts; each matching post does not repeat him.
    assert_eq!(authors("posts__views__gte=1&ordering=id").await, (vec![1, 2], 2));
    assert_eq!(authors("posts__title__icontains=computable").await, (vec![2], 1));
    assert_eq!(authors("posts__views__gt=1000").await, (vec![], 0));
    // Ordering through a to-many relation is dropped (which post would decide?): the rest of the ordering applies.
    assert_eq!(authors("ordering=-posts__title,id").await.0, vec![1, 2]);
}
