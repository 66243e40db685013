//! The query layer over HTTP on the blog: every lookup on every filterable field type, the spec's coercions,
//! search, ordering and the paginators, on SQLite and PostgreSQL.

use reqwest::StatusCode;
use viewset_tests::harness::{TestApp, ids};
use viewset_tests::on_every_database;

async fn ids_of(app: &TestApp, query: &str) -> Vec<i64> {
    let (status, body) = app.get(&format!("/api/posts/?{query}")).await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    ids(&body)
}

async fn rejected(app: &TestApp, query: &str, param: &str) {
    let (status, body) = app.get(&format!("/api/posts/?{query}")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {body}");
    assert_eq!(body["detail"][0]["loc"], serde_json::json!(["query", param]), "{query}: {body}");
    assert!(body["detail"][0]["msg"].as_str().is_some_and(|m| !m.is_empty()));
}

// Seed: 1 "Notes on the Analytical Engine" (published, 120 views, 4.5, author 1),
//       2 "Computing Machinery and Intelligence" (published, 300, 5.0, author 2),
//       3 "On Computable Numbers" (draft, 7, no rating, author 2).
on_every_database!(TestApp::blog =>
    bool_lookups_and_coercions,
    integer_lookups,
    nullable_float_lookups,
    text_lookups,
    timestamp_lookups,
    bad_values_are_422,
    search_matches_title_or_body,
    search_with_hostile_characters_changes_only_the_match,
    ordering_terms_and_rejections,
    unknown_parameters_ignored_unless_filter_shaped,
);

on_every_database!(TestApp::seeded_query_app => default_ordering_without_an_allowlist);

async fn bool_lookups_and_coercions(app: TestApp) {
    for word in ["true", "True", "YES", "1"] {
        assert_eq!(ids_of(&app, &format!("published={word}")).await, vec![2, 1], "{word}");
    }
    for word in ["false", "no", "0", "FALSE"] {
        assert_eq!(ids_of(&app, &format!("published={word}")).await, vec![3], "{word}");
    }
    assert_eq!(ids_of(&app, "published__in=true,false").await, vec![3, 2, 1]);
    assert_eq!(ids_of(&app, "published__isnull=false").await, vec![3, 2, 1]);
}

async fn integer_lookups(app: TestApp) {
    assert_eq!(ids_of(&app, "views=120").await, vec![1]);
    assert_eq!(ids_of(&app, "views__gt=120").await, vec![2]);
    assert_eq!(ids_of(&app, "views__gte=120").await, vec![2, 1]);
    assert_eq!(ids_of(&app, "views__lt=120").await, vec![3]);
    assert_eq!(ids_of(&app, "views__lte=120").await, vec![3, 1]);
    assert_eq!(ids_of(&app, "views__in=7,%20300,,").await, vec![3, 2], "comma list, trimmed, empties dropped");
    assert_eq!(ids_of(&app, "views__gt=119.5").await, vec![2, 1], "a dot makes the operand a float");
    assert_eq!(ids_of(&app, "views__gte=119.5").await, vec![2, 1]);
    assert_eq!(ids_of(&app, "views__lt=120.5").await, vec![3, 1]);
    assert_eq!(ids_of(&app, "views__lte=119.9").await, vec![3]);
    assert_eq!(ids_of(&app, "views__lte=120.0").await, vec![3, 1]);
    assert_eq!(ids_of(&app, "author_id=2").await, vec![3, 2]);
    assert_eq!(ids_of(&app, "author_id__in=1").await, vec![1]);
}

async fn nullable_float_lookups(app: TestApp) {
    assert_eq!(ids_of(&app, "rating__isnull=true").await, vec![3]);
    assert_eq!(ids_of(&app, "rating__isnull=no").await, vec![2, 1]);
    assert_eq!(ids_of(&app, "rating=null").await, vec![3], "null/none/empty mean NULL");
    assert_eq!(ids_of(&app, "rating=none").await, vec![3]);
    assert_eq!(ids_of(&app, "rating=").await, vec![3]);
    assert_eq!(ids_of(&app, "rating=4.5").await, vec![1]);
    assert_eq!(ids_of(&app, "rating__gte=4.5").await, vec![2, 1]);
    assert_eq!(ids_of(&app, "rating__lt=5").await, vec![1]);
    assert_eq!(ids_of(&app, "rating__in=5.0,4.5").await, vec![2, 1]);
}

async fn text_lookups(app: TestApp) {
    assert_eq!(ids_of(&app, "title=On%20Computable%20Numbers").await, vec![3]);
    assert_eq!(ids_of(&app, "title__contains=Comput").await, vec![3, 2]);
    assert_eq!(ids_of(&app, "title__contains=comput").await, Vec::<i64>::new(), "contains is case-sensitive");
    assert_eq!(ids_of(&app, "title__icontains=comput").await, vec![3, 2]);
    assert_eq!(ids_of(&app, "title__icontains=%25").await, Vec::<i64>::new(), "% is literal in contains");
    assert_eq!(ids_of(&app, "title__in=On%20Computable%20Numbers,Nope").await, vec![3]);
    assert_eq!(ids_of(&app, "title__gt=N").await, vec![3, 1], "byte order on both databases");
}

async fn timestamp_lookups(app: TestApp) {
    assert_eq!(ids_of(&app, "created_at__gt=2000-01-01").await, vec![3, 2, 1]);
    assert_eq!(ids_of(&app, "created_at__lt=2000-01-01T00:00:00Z").await, Vec::<i64>::new());
    assert_eq!(ids_of(&app, "created_at__isnull=true").await, Vec::<i64>::new());
    let (_, first) = app.get("/api/posts/1").await;
    let stamp = first["created_at"].as_str().unwrap().to_string();
    let encoded: String = stamp.replace('+', "%2B").replace(':', "%3A");
    assert_eq!(ids_of(&app, &format!("created_at={encoded}")).await, vec![1], "exact round trip of {stamp}");
    assert_eq!(ids_of(&app, &format!("created_at__lte={encoded}")).await, vec![1]);
}

async fn bad_values_are_422(app: TestApp) {
    rejected(&app, "views=abc", "views").await;
    rejected(&app, "views__gt=x", "views__gt").await;
    rejected(&app, "views__in=1,two", "views__in").await;
    rejected(&app, "published=maybe", "published").await;
    rejected(&app, "published__gt=true", "published__gt").await;
    rejected(&app, "rating__isnull=perhaps", "rating__isnull").await;
    rejected(&app, "rating__gt=NaN", "rating__gt").await;
    rejected(&app, "title__startswith=a", "title__startswith").await;
    rejected(&app, "views__contains=1", "views__contains").await;
    rejected(&app, "created_at__gt=yesterday", "created_at__gt").await;
    rejected(&app, "author_id=99999999999", "author_id").await;
}

async fn search_matches_title_or_body(app: TestApp) {
    assert_eq!(ids_of(&app, "search=machine").await, vec![2], "title, case-insensitive");
    assert_eq!(ids_of(&app, "search=ALGEBRAIC").await, vec![1], "body");
    assert_eq!(ids_of(&app, "search=a").await, vec![3, 2, 1], "one substring over either field");
    assert_eq!(ids_of(&app, "search=machines%20think").await, vec![2], "the whole value is one substring");
    assert_eq!(ids_of(&app, "search=").await, vec![3, 2, 1], "empty search is no search");
    assert_eq!(ids_of(&app, "search=comput&published=false").await, vec![3], "combined with filters");
    assert_eq!(ids_of(&app, "search=C_mputing").await, vec![2], "`_` is a wildcard, as in ILIKE");
}

async fn search_with_hostile_characters_changes_only_the_match(app: TestApp) {
    for hostile in ["'", "\"", ";", "--", "\\", "'; DROP TABLE posts; --", "é", "ü", "日本", "%00", "\\%"] {
        let encoded: String = form_urlencoded::byte_serialize(hostile.as_bytes()).collect();
        assert_eq!(ids_of(&app, &format!("search={encoded}")).await, Vec::<i64>::new(), "{hostile}");
    }
    let (status, body) = app.get("/api/posts/").await;
    assert_eq!((status, body["count"].as_i64()), (StatusCode::OK, Some(3)), "the table is intact");
}

async fn ordering_terms_and_rejections(app: TestApp) {
    assert_eq!(ids_of(&app, "ordering=views").await, vec![3, 1, 2]);
    assert_eq!(ids_of(&app, "ordering=-views,title").await, vec![2, 1, 3]);
    assert_eq!(ids_of(&app, "ordering=title").await, vec![2, 1, 3]);
    assert_eq!(ids_of(&app, "ordering=bogus,-views").await, vec![2, 1, 3], "invalid terms are dropped");
    assert_eq!(
        ids_of(&app, "ordering=body").await,
        vec![1, 2, 3],
        "only invalid terms: no default, pk tie-breaker only"
    );
    assert_eq!(ids_of(&app, "ordering=bogus").await, vec![1, 2, 3]);
    assert_eq!(ids_of(&app, "ordering=").await, vec![3, 2, 1], "empty ordering: the default -id");
    assert_eq!(ids_of(&app, "ordering=%20-id%20,%20").await, vec![3, 2, 1]);
}

async fn unknown_parameters_ignored_unless_filter_shaped(app: TestApp) {
    // A parameter that is not shaped like a filter is ignored; one that is (a `__` name, a lookup on a field without
    // lookups) is a 422, never silently ignored (strict_filters.rs has the rest).
    assert_eq!(ids_of(&app, "colour=red&utm_source=x").await, vec![3, 2, 1]);
    rejected(&app, "x__y=1", "x__y").await;
    rejected(&app, "body__gt=zzz", "body__gt").await;
    rejected(&app, "views__between=1", "views__between").await; // an allowlisted field with an unknown lookup is not ignored
}

/// Issue 20 item 1: `OrderingFilter` with no `ordering_fields` has no allowlist, so the class `ordering` (`-views`)
/// stays the default whatever `?ordering=` asks (spec: "…or no ordering allowlist exists").
async fn default_ordering_without_an_allowlist(app: TestApp) {
    for query in ["", "?ordering=id", "?ordering=bogus", "?ordering=-id,title", "?ordering="] {
        let (status, body) = app.get(&format!("/unlisted/posts/{query}")).await;
        assert_eq!(status, StatusCode::OK, "{query}: {body}");
        assert_eq!(ids(&body), vec![2, 1, 3], "{query}: the default -views");
    }
}
