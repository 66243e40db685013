use super::*;
use axum::response::IntoResponse;

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

#[test]
fn mariadb_messages_name_the_unique_column_and_the_refused_value() {
    assert_eq!(unique_field("Duplicate entry 'a@b.c' for key 'email'", "authors").as_deref(), Some("email"));
    assert_eq!(unique_field("Duplicate entry 'x' for key 'posts_slug'", "posts").as_deref(), Some("slug"));
    assert_eq!(unique_field("Duplicate entry 'a' for key 'authors.email'", "authors").as_deref(), Some("email"));
    assert_eq!(unique_field("Duplicate entry '1' for key 'PRIMARY'", "authors"), None);
    let refused = db::refused_by_number(1406, "Data too long for column 'title' at row 1").expect("a 422");
    assert_eq!(refused.status(), 422);
    assert_eq!(refused.body()["errors"]["title"][0], "This value is too long for the column.");
    let message = "Incorrect datetime value: '2100-01-01 00:00:00' for column `blog`.`posts`.`created_at` at row 1";
    let refused = db::refused_by_number(1292, message).expect("a 422");
    assert!(refused.body()["errors"]["created_at"].is_array(), "{}", refused.body());
    assert!(!refused.body().to_string().contains("2100"), "the message is ours, not the server's");
    assert!(db::refused_by_number(1062, "Duplicate entry").is_none());
    assert!(db::refused_by_number(1146, "Table 'x' doesn't exist").is_none());
}

#[test]
fn contention_is_503_database_busy_with_a_short_retry_after() {
    let response = ApiError::Contention.into_response();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "1");
    assert_eq!(ApiError::Contention.body()["code"], "database_busy");
    assert!(!db::contention(&DbErr::Custom("deadlock".into())), "only the database's own codes say so");
}

#[test]
fn insufficient_scope_is_a_403_with_its_challenge() {
    let response = ApiError::insufficient_scope("posts:write").into_response();
    assert_eq!(response.status(), 403);
    assert_eq!(response.headers()["www-authenticate"], r#"Bearer error="insufficient_scope", scope="posts:write""#);
    // A scope with a quote or a control character cannot break out of the quoted-string.
    let odd = ApiError::insufficient_scope("a\"b\r\nc").challenge().unwrap();
    assert_eq!(odd, r#"Bearer error="insufficient_scope", scope="a\"bc""#);
}

#[test]
fn an_unreachable_identity_provider_is_a_503_with_retry_after_and_no_challenge() {
    let response = ApiError::IdentityProviderUnavailable { retry_after: 7 }.into_response();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "7");
    assert!(response.headers().get("www-authenticate").is_none());
}
