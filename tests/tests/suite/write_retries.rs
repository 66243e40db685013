//! Safe retries and minimal answers of writes over HTTP, on SQLite and PostgreSQL: `Prefer: return=minimal` on
//! create (201, `Location`, no body) and update (204), and `Idempotency-Key` (`viewset_core::idempotency`): one
//! write for any number of repeats, concurrent ones included; replayed answers; a key reused for another request;
//! keys per caller; refused callers and invalid keys store nothing; a failed first request releases its key; an
//! expired record is forgotten when its key is used again. The records' life (retention, a 5xx or a panic, no
//! table) and the document: `write_retries_lifecycle.rs`.

use reqwest::{Method, StatusCode};
use sea_orm::{ConnectionTrait, Statement};
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::on_every_database;

const ALICE: Option<&str> = Some("alice-token");
const BOB: Option<&str> = Some("bob-token");

/// The blog's posts, writable by anyone (so an anonymous caller reaches the idempotency check).
#[derive(ModelViewSet)]
#[viewset(model = blog::entities::post::Entity, prefix = "/api/open", basename = "open", permission_classes = [AllowAny])]
pub struct OpenPosts;

async fn blog_with_open_posts(backend: Backend) -> TestApp {
    let (database, db) = TestDb::seeded_blog(backend).await;
    let mut api = blog::api();
    api.include::<OpenPosts>().expect("OpenPosts registers");
    let router = blog::app_from(api, ServiceState::new(db.clone()));
    TestApp::serve(router, db, database).await
}
use crate::support::writes;
use writes::{Answer, posts_titled, records, write};

on_every_database!(TestApp::blog => minimal_answers_have_no_body_and_say_where_the_record_is);

async fn minimal_answers_have_no_body_and_say_where_the_record_is(app: TestApp) {
    let new = r#"{"title": "Minimal", "body": "b", "author_id": 1}"#;
    let created = write(&app, Method::POST, "/api/posts/", BOB, None, Some("return=minimal"), new).await;
    assert_eq!(created.status, StatusCode::CREATED);
    assert!(created.body.is_empty(), "{:?}", created.body);
    assert_eq!(created.header("preference-applied"), Some("return=minimal"));
    assert!(created.header("content-type").is_none());
    assert!(created.header("etag").is_some());
    let location = created.header("location").expect("Location").to_string();
    let (status, record) = app.get(&location).await;
    assert_eq!((status, record["title"].as_str()), (StatusCode::OK, Some("Minimal")), "{location}");
    assert_eq!(location, format!("/api/posts/{}", record["id"]));

    // Update: 204, the record's URL, no body; the write happened.
    let patch = r#"{"title": "Smaller"}"#;
    let updated = write(&app, Method::PATCH, &location, BOB, None, Some("return=minimal; x=1"), patch).await;
    assert_eq!((updated.status, updated.header("location")), (StatusCode::NO_CONTENT, Some(location.as_str())));
    assert!(updated.body.is_empty());
    assert_eq!(updated.header("preference-applied"), Some("return=minimal"));
    assert_eq!(app.get(&location).await.1["title"], "Smaller");

    // `return=representation`, unknown preferences, or none: the record, without `Preference-Applied`.
    for prefer in [Some("return=representation"), Some("respond-async, wait=5, handling=lenient"), None] {
        let answer = write(&app, Method::POST, "/api/posts/", BOB, None, prefer, new).await;
        assert_eq!((answer.status, answer.json()["title"].as_str()), (StatusCode::CREATED, Some("Minimal")));
        assert!(answer.header("preference-applied").is_none(), "{prefer:?}");
        let answer = write(&app, Method::PATCH, &location, BOB, None, prefer, patch).await;
        assert_eq!((answer.status, answer.json()["title"].as_str()), (StatusCode::OK, Some("Smaller")));
        assert!(answer.header("preference-applied").is_none(), "{prefer:?}");
    }
    // Errors are answered as always, whatever `Prefer` says.
    let refused = write(&app, Method::PATCH, "/api/posts/99999", BOB, None, Some("return=minimal"), patch).await;
    assert_eq!((refused.status, refused.code().as_deref()), (StatusCode::NOT_FOUND, Some("not_found")));
}

on_every_database!(TestApp::blog => fifty_concurrent_repeats_write_one_row);

/// 50 identical keyed creates at once: exactly one is the first answer (201, not replayed); each other is either
/// that answer replayed (201, `Idempotent-Replayed: true`, the same body and `ETag`) or 409
/// `idempotency_in_progress` (sent while the first was running); exactly one row is written.
async fn fifty_concurrent_repeats_write_one_row(app: TestApp) {
    let app = std::sync::Arc::new(app);
    let new = r#"{"title": "Once", "body": "b", "author_id": 1}"#;
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let app = app.clone();
        tasks.spawn(async move { write(&app, Method::POST, "/api/posts/", BOB, Some(b"fifty"), None, new).await });
    }
    let answers: Vec<Answer> = tasks.join_all().await;
    let firsts: Vec<&Answer> = answers.iter().filter(|a| a.status == StatusCode::CREATED && !a.replayed()).collect();
    assert_eq!(firsts.len(), 1, "{:?}", answers.iter().map(|a| a.status).collect::<Vec<_>>());
    let first = firsts[0];
    let (mut replays, mut in_progress) = (0, 0);
    for answer in &answers {
        match answer.status {
            StatusCode::CREATED if answer.replayed() => {
                assert_eq!((&answer.body, answer.header("etag")), (&first.body, first.header("etag")));
                replays += 1;
            }
            StatusCode::CONFLICT => {
                assert_eq!(answer.code().as_deref(), Some("idempotency_in_progress"));
                in_progress += 1;
            }
            StatusCode::CREATED => {}
            other => panic!("unexpected {other}: {:?}", String::from_utf8_lossy(&answer.body)),
        }
    }
    assert_eq!(1 + replays + in_progress, 50);
    println!("50 concurrent repeats: 1 first answer, {replays} replays, {in_progress} in progress (409)");
    assert_eq!(posts_titled(&app, "Once").await, 1);
    let again = write(&app, Method::POST, "/api/posts/", BOB, Some(b"fifty"), None, new).await;
    assert_eq!((again.status, again.replayed(), &again.body), (StatusCode::CREATED, true, &first.body));
    assert_eq!(posts_titled(&app, "Once").await, 1);
}

on_every_database!(TestApp::blog => repeats_replay_and_another_request_is_refused);

async fn repeats_replay_and_another_request_is_refused(app: TestApp) {
    let new = r#"{"title": "Replay", "body": "b", "author_id": 1}"#;
    let first = write(&app, Method::POST, "/api/posts/", BOB, Some(b"k-1"), None, new).await;
    assert_eq!((first.status, first.replayed()), (StatusCode::CREATED, false));
    let again = write(&app, Method::POST, "/api/posts/", BOB, Some(b"k-1"), None, new).await;
    assert_eq!((again.status, again.replayed(), &again.body), (StatusCode::CREATED, true, &first.body));
    assert_eq!(
        (again.header("etag"), again.header("content-type")),
        (first.header("etag"), first.header("content-type"))
    );
    assert_eq!(posts_titled(&app, "Replay").await, 1);

    // The same key with another body, another path or another query: 422, nothing written.
    let other = r#"{"title": "Replay 2", "body": "b", "author_id": 1}"#;
    let reused = write(&app, Method::POST, "/api/posts/", BOB, Some(b"k-1"), None, other).await;
    assert_eq!(
        (reused.status, reused.code().as_deref()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("idempotency_key_reused"))
    );
    let reused = write(&app, Method::POST, "/api/posts/?x=1", BOB, Some(b"k-1"), None, new).await;
    assert_eq!(reused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!((posts_titled(&app, "Replay").await, posts_titled(&app, "Replay 2").await), (1, 0));

    // Updates: the first answer is replayed, with its `Prefer` shape (the repeat's own `Prefer` is not asked).
    let id = first.json()["id"].clone();
    let path = format!("/api/posts/{id}");
    let patch = r#"{"views": 5}"#;
    let updated = write(&app, Method::PATCH, &path, BOB, Some(b"u-1"), Some("return=minimal"), patch).await;
    assert_eq!((updated.status, updated.replayed()), (StatusCode::NO_CONTENT, false));
    // Someone else changes the record; the repeat neither writes again nor shows the change.
    let other_write = write(&app, Method::PATCH, &path, ALICE, None, None, r#"{"views": 9}"#).await;
    assert_eq!(other_write.status, StatusCode::OK);
    let again = write(&app, Method::PATCH, &path, BOB, Some(b"u-1"), None, patch).await;
    assert_eq!(
        (again.status, again.replayed(), again.header("location")),
        (StatusCode::NO_CONTENT, true, Some(path.as_str()))
    );
    assert_eq!(app.get(&path).await.1["views"], 9);
    let reused = write(&app, Method::PATCH, &path, BOB, Some(b"u-1"), None, r#"{"views": 6}"#).await;
    assert_eq!(reused.code().as_deref(), Some("idempotency_key_reused"));
    // A key of a create used for an update is another request too.
    let reused = write(&app, Method::PATCH, &path, BOB, Some(b"k-1"), None, patch).await;
    assert_eq!(reused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(records(&app).await, 2);
}

on_every_database!(TestApp::blog => keys_belong_to_their_caller);

async fn keys_belong_to_their_caller(app: TestApp) {
    let new = r#"{"title": "Mine", "body": "b", "author_id": 1}"#;
    let bob = write(&app, Method::POST, "/api/posts/", BOB, Some(b"shared"), None, new).await;
    let alice = write(&app, Method::POST, "/api/posts/", ALICE, Some(b"shared"), None, new).await;
    assert_eq!((bob.status, bob.replayed()), (StatusCode::CREATED, false));
    assert_eq!((alice.status, alice.replayed()), (StatusCode::CREATED, false));
    assert_ne!(bob.json()["id"], alice.json()["id"]);
    assert_eq!(posts_titled(&app, "Mine").await, 2);
    // Each caller's repeat replays their own answer.
    let alice_again = write(&app, Method::POST, "/api/posts/", ALICE, Some(b"shared"), None, new).await;
    assert_eq!((alice_again.replayed(), &alice_again.body), (true, &alice.body));
    let bob_again = write(&app, Method::POST, "/api/posts/", BOB, Some(b"shared"), None, new).await;
    assert_eq!((bob_again.replayed(), &bob_again.body), (true, &bob.body));
    assert_eq!(posts_titled(&app, "Mine").await, 2);
}

on_every_database!(blog_with_open_posts => refused_callers_and_invalid_keys_store_nothing);

async fn refused_callers_and_invalid_keys_store_nothing(app: TestApp) {
    let new = r#"{"title": "Nothing", "body": "b", "author_id": 1}"#;
    // Permissions first: anonymous callers may not write posts (401, the bearer layer's challenge), and no key is
    // claimed.
    let refused = write(&app, Method::POST, "/api/posts/", None, Some(b"anon"), None, new).await;
    assert_eq!((refused.status, refused.code().as_deref()), (StatusCode::UNAUTHORIZED, Some("not_authenticated")));
    let refused = write(&app, Method::PATCH, "/api/posts/1", None, Some(b"anon"), None, r#"{"views": 1}"#).await;
    assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
    // Admitted anonymous callers may write, but not with a key: it would have no owner.
    let refused = write(&app, Method::POST, "/api/open/", None, Some(b"anon"), None, new).await;
    assert_eq!(
        (refused.status, refused.code().as_deref()),
        (StatusCode::BAD_REQUEST, Some("idempotency_requires_identity"))
    );
    let long = vec![b'k'; 256];
    let bad: [&[u8]; 5] = [b"", &long, b"two words", b"caf\xc3\xa9", b"tab\tkey"];
    for key in bad {
        let answer = write(&app, Method::POST, "/api/posts/", BOB, Some(key), None, new).await;
        let shown = String::from_utf8_lossy(key);
        assert_eq!(
            (answer.status, answer.code().as_deref()),
            (StatusCode::BAD_REQUEST, Some("invalid_idempotency_key")),
            "{shown:?}"
        );
        let answer = write(&app, Method::PATCH, "/api/posts/1", BOB, Some(key), None, r#"{"views": 1}"#).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{shown:?}");
    }
    assert_eq!((posts_titled(&app, "Nothing").await, records(&app).await), (0, 0));
    assert_ne!(app.get("/api/posts/1").await.1["views"], 1);
    // 255 visible ASCII bytes are a key.
    let longest = vec![b'~'; 255];
    let answer = write(&app, Method::POST, "/api/posts/", BOB, Some(&longest), None, new).await;
    assert_eq!((answer.status, records(&app).await), (StatusCode::CREATED, 1));
}

on_every_database!(TestApp::blog => a_failed_first_request_releases_its_key_and_expired_keys_are_forgotten);

async fn a_failed_first_request_releases_its_key_and_expired_keys_are_forgotten(app: TestApp) {
    // A 422 writes nothing and keeps nothing: the corrected request may use the same key.
    let invalid = r#"{"title": "Fixed", "author_id": 1}"#;
    let failed = write(&app, Method::POST, "/api/posts/", BOB, Some(b"retry"), None, invalid).await;
    assert_eq!(failed.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(records(&app).await, 0);
    let new = r#"{"title": "Fixed", "body": "b", "author_id": 1}"#;
    let first = write(&app, Method::POST, "/api/posts/", BOB, Some(b"retry"), None, new).await;
    assert_eq!((first.status, first.replayed()), (StatusCode::CREATED, false));
    // A 404 (no such record) is not kept either.
    let missing = write(&app, Method::PATCH, "/api/posts/99999", BOB, Some(b"gone"), None, r#"{"views": 1}"#).await;
    assert_eq!((missing.status, records(&app).await), (StatusCode::NOT_FOUND, 1));

    // Past its retention, a key is forgotten when it is used again: the request runs as a first one.
    let expire = Statement::from_string(app.db.get_database_backend(), "UPDATE viewset_idempotency SET expires_at = 0");
    app.db.execute_raw(expire).await.expect("expire");
    let after = write(&app, Method::POST, "/api/posts/", BOB, Some(b"retry"), None, new).await;
    assert_eq!((after.status, after.replayed()), (StatusCode::CREATED, false));
    assert_ne!(after.json()["id"], first.json()["id"]);
    assert_eq!((posts_titled(&app, "Fixed").await, records(&app).await), (2, 1));
}
