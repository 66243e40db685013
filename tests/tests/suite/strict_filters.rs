//! No filter silently ignored (issue #69, goal 3): on the list, the CSV export and the stream, a parameter shaped
//! like a filter that no filter reads is a 422 naming it, with the filters this caller may use; other unknown
//! parameters stay ignored on the list, and a field hidden from the caller answers as a name the model lacks.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use viewset_tests::harness::TestApp;
use viewset_tests::identities::blog::{ALICE, BOB};
use viewset_tests::on_every_database;

on_every_database!(TestApp::blog =>
    unknown_related_filter_is_refused,
    misspelt_filter_suggests_the_field,
    lookup_on_a_field_without_lookups_is_refused,
    unrelated_parameters_stay_ignored,
    hidden_field_answers_as_unknown,
    csv_export_refuses_the_same,
);

/// The `loc`, `type` and `msg` of a 422's first error.
fn first_error(body: &Value) -> (String, String, String) {
    let error = &body["detail"][0];
    let loc: Vec<String> = error["loc"]
        .as_array()
        .unwrap_or_else(|| panic!("no loc: {body}"))
        .iter()
        .map(|l| l.as_str().unwrap().into())
        .collect();
    (loc.join("."), error["type"].as_str().unwrap().into(), error["msg"].as_str().unwrap().into())
}

async fn unknown_related_filter_is_refused(app: TestApp) {
    let (status, body) = app.get("/api/posts/?category__name=Tools").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (loc, kind, msg) = first_error(&body);
    assert_eq!((loc.as_str(), kind.as_str()), ("query.category__name", "unknown_filter"));
    for listed in ["author__name", "views__<lookup>", "published__<lookup>"] {
        assert!(msg.contains(listed), "{msg}");
    }
    // An allowed related filter still narrows (authors are listed by signed-in callers only).
    let (status, body) = app.send(Method::GET, "/api/posts/?author__name=Ada%20Lovelace", BOB, None).await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(1)), "{body}");
}

async fn misspelt_filter_suggests_the_field(app: TestApp) {
    let (status, body) = app.get("/api/posts/?veiws__gte=100").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let (loc, _, msg) = first_error(&body);
    assert_eq!(loc, "query.veiws__gte");
    assert!(msg.contains("did you mean `views__gte`?"), "{msg}");
    let (status, body) = app.get("/api/posts/?nosuch__in=1,2").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(!first_error(&body).2.contains("did you mean"), "{body}");
}

async fn lookup_on_a_field_without_lookups_is_refused(app: TestApp) {
    // `body` is a field (an exact filter of the router) but not in `filterable_fields`: no lookup on it.
    let (status, body) = app.get("/api/posts/?body__icontains=engine").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(first_error(&body).1, "unknown_filter");
    let (status, body) = app.get("/api/posts/?body=Can%20machines%20think%3F").await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(1)), "{body}");
}

async fn unrelated_parameters_stay_ignored(app: TestApp) {
    let (status, body) = app.get("/api/posts/?utm_source=mail&_=12345&callback=x").await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(3)), "{body}");
    // `or=` groups check their own fields.
    let (status, body) = app.get("/api/posts/?or=(nosuch.1)").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
}

async fn hidden_field_answers_as_unknown(app: TestApp) {
    // `email` is staff-only on authors: for a user it is as absent as `nosuch`, with or without a lookup.
    for (hidden, unknown) in [("email", "nosuch"), ("email__icontains", "nosuch__icontains")] {
        let (hidden_status, hidden_body) = app.send(Method::GET, &format!("/authors/?{hidden}=a"), BOB, None).await;
        let (unknown_status, unknown_body) = app.send(Method::GET, &format!("/authors/?{unknown}=a"), BOB, None).await;
        assert_eq!(hidden_status, unknown_status, "{hidden_body} / {unknown_body}");
        if hidden_status == StatusCode::OK {
            assert_eq!(hidden_body["count"], unknown_body["count"]);
        } else {
            let (_, kind, msg) = first_error(&hidden_body);
            let (_, unknown_kind, unknown_msg) = first_error(&unknown_body);
            assert_eq!(kind, unknown_kind);
            // Equal but for the name: `email` is not listed among this caller's filters either.
            assert_eq!(msg.replace(hidden, unknown), unknown_msg);
        }
    }
    // Staff may see `email`: for them it is a field, so a lookup on it is refused by name.
    let (status, body) = app.send(Method::GET, "/authors/?email__icontains=a", ALICE, None).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let (status, body) = app.send(Method::GET, "/authors/?email=ada@example.com", ALICE, None).await;
    assert_eq!((status, body["count"].as_u64()), (StatusCode::OK, Some(1)), "{body}");
}

async fn csv_export_refuses_the_same(app: TestApp) {
    let (status, body) = app.get("/api/posts/?format=csv&category__name=Tools").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(first_error(&body).0, "query.category__name");
}
