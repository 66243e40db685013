use super::*;

#[test]
fn unique_field_from_both_dialects() {
    assert_eq!(unique_field("UNIQUE constraint failed: authors.email", "authors").as_deref(), Some("email"));
    assert_eq!(
        unique_field("duplicate key value violates unique constraint \"blog_posts_slug_key\"", "blog_posts").as_deref(),
        Some("slug")
    );
    assert_eq!(unique_field("something else", "x"), None);
}

#[test]
fn connection_failures_are_503_with_retry_after() {
    let err = ApiError::from(DbErr::ConnectionAcquire(sea_orm::ConnAcquireErr::Timeout));
    let response = err.into_response();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "5");
    assert_eq!(ApiError::from(DbErr::Custom("x".into())).status(), 500, "other errors stay 500");
}

#[test]
fn ended_sessions_are_unavailable_other_statement_errors_are_not() {
    for code in ["57P01", "57P02", "57P03", "08006", "08003"] {
        assert!(session_ended(code), "{code}");
    }
    for code in ["57014", "23505", "42P01", "2067", "5"] {
        assert!(!session_ended(code), "{code}");
    }
}

#[test]
fn database_error_body_hides_details() {
    let err = ApiError::Database(DbErr::Custom("SELECT secret FROM x".into()));
    assert!(!err.body().to_string().contains("SELECT"));
    assert_eq!(err.status(), 500);
}
