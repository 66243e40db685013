//! Studio's gating over real HTTP against the blog example: off by default, the production rule, start-up errors,
//! then the Origin and credential checks.

use reqwest::StatusCode;
use viewset_studio::{STUDIO_PATHS, Studio, StudioSettings};
use viewset_tests::harness::{Backend, TestApp, TestDb};
use viewset_tests::studio_fixtures::{TOKEN, admitted, code, json, request, settings, sqlite_app, with_auth};

// ---------------------------------------------------------------------------------------------------------------
// Gating

#[tokio::test]
async fn disabled_by_default_in_every_environment_debug_included() {
    for environment in ["development", "staging", "production"] {
        for debug in ["false", "true"] {
            let s = settings(&[("SERVICE_ENVIRONMENT", environment), ("SERVICE_DEBUG", debug)]);
            assert!(!s.enable_studio);
            let app = sqlite_app(s).await;
            for path in STUDIO_PATHS {
                let (status, body) = request(&app, path, Some(TOKEN), None, None).await;
                assert_eq!(status, StatusCode::NOT_FOUND, "{environment} debug={debug} {path}: {body}");
            }
            // The rest of the app is there.
            assert_eq!(app.get("/api/posts/").await.0, StatusCode::OK);
        }
    }
}

#[tokio::test]
async fn app_for_reads_the_environment_and_keeps_studio_off_without_it() {
    assert!(std::env::var("SERVICE_ENABLE_STUDIO").is_err(), "run the tests without SERVICE_ENABLE_STUDIO");
    let (database, db) = TestDb::migrated_blog(Backend::Sqlite).await;
    let app = TestApp::serve(blog::app_for(db.clone()).await.unwrap(), db, database).await;
    for path in STUDIO_PATHS {
        assert_eq!(request(&app, path, None, None, None).await.0, StatusCode::NOT_FOUND, "{path}");
    }
}

#[tokio::test]
async fn production_mounts_only_when_enabled_and_exposed_and_with_auth() {
    let base = [
        ("SERVICE_ENVIRONMENT", "production"),
        ("SERVICE_ENABLE_STUDIO", "true"),
        ("SERVICE_STUDIO_REQUIRE_AUTH", "true"),
        ("SERVICE_STUDIO_AUTH_TOKEN", TOKEN),
    ];
    // Enabled but not exposed: no routes.
    let app = sqlite_app(settings(&base)).await;
    for path in STUDIO_PATHS {
        assert_eq!(request(&app, path, Some(TOKEN), None, None).await.0, StatusCode::NOT_FOUND, "{path}");
    }
    // Exposed but not enabled: no routes.
    let app = sqlite_app(settings(&[base[0], ("SERVICE_STUDIO_EXPOSE_IN_PRODUCTION", "true")])).await;
    assert_eq!(request(&app, "/studio/health", Some(TOKEN), None, None).await.0, StatusCode::NOT_FOUND);
    // Both: mounted, and the token is required.
    let exposed = [base[0], base[1], base[2], base[3], ("SERVICE_STUDIO_EXPOSE_IN_PRODUCTION", "true")];
    let app = sqlite_app(settings(&exposed)).await;
    assert_eq!(request(&app, "/studio/health", Some(TOKEN), None, None).await.0, StatusCode::OK);
    assert_eq!(request(&app, "/studio/health", None, None, None).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(json(&app, "/studio/handshake").await["project"]["environment"], "production");
}

#[tokio::test]
async fn unsafe_settings_are_start_up_errors() {
    let (_database, db) = TestDb::migrated_blog(Backend::Sqlite).await;
    let refused = |vars: &[(&str, &str)]| {
        let err = blog::mount_studio(blog::app(db.clone()), db.clone(), settings(vars)).unwrap_err();
        err.to_string()
    };
    let production_without_auth = refused(&[
        ("SERVICE_ENVIRONMENT", "production"),
        ("SERVICE_ENABLE_STUDIO", "true"),
        ("SERVICE_STUDIO_EXPOSE_IN_PRODUCTION", "true"),
    ]);
    assert!(production_without_auth.contains("SERVICE_STUDIO_REQUIRE_AUTH"), "{production_without_auth}");
    let auth_without_token = refused(&[("SERVICE_ENABLE_STUDIO", "true"), ("SERVICE_STUDIO_REQUIRE_AUTH", "true")]);
    assert!(auth_without_token.contains("SERVICE_STUDIO_AUTH_TOKEN"), "{auth_without_token}");
    let star_in_production = refused(&[
        ("SERVICE_ENVIRONMENT", "production"),
        ("SERVICE_ENABLE_STUDIO", "true"),
        ("SERVICE_STUDIO_EXPOSE_IN_PRODUCTION", "true"),
        ("SERVICE_STUDIO_REQUIRE_AUTH", "true"),
        ("SERVICE_STUDIO_AUTH_TOKEN", TOKEN),
        ("SERVICE_STUDIO_ALLOWED_ORIGINS", "*"),
    ]);
    assert!(star_in_production.contains("development only"), "{star_in_production}");
    // Unparseable values are errors too, not silently "off".
    assert!(StudioSettings::from_vars([("SERVICE_ENABLE_STUDIO".to_string(), "maybe".to_string())]).is_err());
}

// ---------------------------------------------------------------------------------------------------------------
// Request checks

#[tokio::test]
async fn origin_allowed_missing_disallowed_and_star() {
    let app = sqlite_app(with_auth()).await;
    for path in STUDIO_PATHS {
        let allowed = request(&app, path, Some(TOKEN), Some("http://studio.local"), None).await;
        assert_eq!(allowed.0, admitted(path), "allowed origin {path}: {}", allowed.1);
        assert_eq!(request(&app, path, Some(TOKEN), Some("https://dev.example.com/"), None).await.0, admitted(path));
        assert_eq!(request(&app, path, Some(TOKEN), None, None).await.0, admitted(path), "no Origin {path}");
        let (status, body) = request(&app, path, Some(TOKEN), Some("http://evil.example"), None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "disallowed origin {path}");
        assert_eq!(code(&body), "origin_not_allowed");
        // The Origin is checked first: a disallowed origin without credentials is still a 403.
        let (status, _) = request(&app, path, None, Some("http://evil.example"), None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "origin before credentials {path}");
    }
    // No allowed origins: any Origin is refused, none passes.
    let app = sqlite_app(settings(&[("SERVICE_ENABLE_STUDIO", "true")])).await;
    assert_eq!(request(&app, "/studio/health", None, Some("http://studio.local"), None).await.0, StatusCode::FORBIDDEN);
    assert_eq!(request(&app, "/studio/health", None, None, None).await.0, StatusCode::OK);
    // `*` allows every origin (development).
    let app = sqlite_app(settings(&[("SERVICE_ENABLE_STUDIO", "true"), ("SERVICE_STUDIO_ALLOWED_ORIGINS", "*")])).await;
    for origin in ["http://evil.example", "http://localhost:5173", "null"] {
        assert_eq!(request(&app, "/studio/health", None, Some(origin), None).await.0, StatusCode::OK, "{origin}");
    }
}

#[tokio::test]
async fn token_right_wrong_missing_and_staff_cookie() {
    let app = sqlite_app(with_auth()).await;
    for path in STUDIO_PATHS {
        assert_eq!(request(&app, path, Some(TOKEN), None, None).await.0, admitted(path), "right token {path}");
        for wrong in ["studio-test-tokem", "studio-test-token-and-more", "x", "alice-token"] {
            let (status, body) = request(&app, path, Some(wrong), None, None).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "wrong token {wrong} {path}");
            if path != viewset_studio::paths::UI {
                assert_eq!(code(&body), "not_authenticated");
            }
        }
        let (status, body) = request(&app, path, None, None, None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "missing token {path}");
        if path == viewset_studio::paths::UI {
            assert!(body.contains("type=\"password\""), "the page answers with its sign-in form: {body}");
        } else {
            assert_eq!(code(&body), "not_authenticated");
        }
        // The blog's staff-session hook: a staff user's session cookie passes, a non-staff one does not.
        let staff = request(&app, path, None, None, Some("theme=dark; blog_session=alice-token")).await;
        assert_eq!(staff.0, admitted(path), "staff cookie {path}");
        let (status, _) = request(&app, path, None, None, Some("blog_session=bob-token")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "non-staff cookie {path}");
        let (status, _) = request(&app, path, None, None, Some("blog_session=forged")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "unknown session {path}");
    }
    let response = app.client().get(format!("{}/studio/health", app.base)).send().await.unwrap();
    assert_eq!(response.headers()["www-authenticate"], "Bearer realm=\"studio\"");
    // Without auth required (development), no credentials are needed.
    let open = sqlite_app(settings(&[("SERVICE_ENABLE_STUDIO", "true")])).await;
    assert_eq!(request(&open, "/studio/handshake", None, None, None).await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_custom_staff_session_hook() {
    let (database, db) = TestDb::migrated_blog(Backend::Sqlite).await;
    let studio = Studio::new(with_auth())
        .project("hooked", "2.0.0")
        .api(&blog::api())
        .staff_session(|headers| viewset_studio::cookie(headers, "sid").as_deref() == Some("staff-session-1"));
    let router = studio.mount(blog::app(db.clone()), db.clone()).unwrap();
    let app = TestApp::serve(router, db, database).await;
    assert_eq!(request(&app, "/studio/health", None, None, Some("sid=staff-session-1")).await.0, StatusCode::OK);
    assert_eq!(request(&app, "/studio/health", None, None, Some("sid=other")).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(
        request(&app, "/studio/health", None, Some("http://evil.example"), Some("sid=staff-session-1")).await.0,
        StatusCode::FORBIDDEN
    );
}
