//! The JSON 404 of a path no route matches. The trailing slash is significant (`/api/posts/` is the collection,
//! `/api/posts/1` a record) and is never redirected: a request that differs from a registered path only by it gets
//! a 404 naming that path (`canonical_path`), whatever its method, so a client sees its mistake instead of a
//! redirect that some clients follow without the body.

use std::sync::Arc;

use axum::http::Uri;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// The JSON 404 of a path no route matches, reminding of the trailing-slash rule. [`Api::into_router`]'s fallback
/// also names the registered path that differs only by the slash.
///
/// [`Api::into_router`]: crate::registration::Api::into_router
///
/// ```
/// # tokio_test_block(async {
/// let response = viewset_core::registration::unknown_path("/nowhere".parse().unwrap()).await;
/// assert_eq!(response.status(), 404);
/// # });
/// # fn tokio_test_block<F: std::future::Future>(f: F) { tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f); }
/// ```
pub async fn unknown_path(uri: Uri) -> Response {
    ApiError::UnknownPath { path: uri.path().to_string(), canonical: None }.into_response()
}

/// The fallback of a router whose routes have the axum path templates `templates`.
pub(crate) fn among(templates: Vec<String>) -> impl Fn(Uri) -> std::future::Ready<Response> + Clone + Send + 'static {
    let templates: Arc<[String]> = templates.into();
    move |uri: Uri| {
        let path = uri.path().to_string();
        let canonical = slash_twin(&path, &templates);
        std::future::ready(ApiError::UnknownPath { path, canonical }.into_response())
    }
}

/// `path` with its trailing slash added or removed, when that matches one of `templates` (`{name}` matches one
/// non-empty segment).
///
/// ```
/// use viewset_core::registration::slash_twin;
/// let templates = ["/api/books/".to_string(), "/api/books/{pk}".to_string()];
/// assert_eq!(slash_twin("/api/books", &templates).as_deref(), Some("/api/books/"));
/// assert_eq!(slash_twin("/api/books/7/", &templates).as_deref(), Some("/api/books/7"));
/// assert_eq!(slash_twin("/api/authors", &templates), None);
/// ```
pub fn slash_twin(path: &str, templates: &[String]) -> Option<String> {
    let twin = match path.strip_suffix('/') {
        Some("") => return None,
        Some(without) => without.to_string(),
        None => format!("{path}/"),
    };
    templates.iter().any(|template| matches(template, &twin)).then_some(twin)
}

fn matches(template: &str, path: &str) -> bool {
    let (mut template, mut path) = (template.split('/'), path.split('/'));
    loop {
        match (template.next(), path.next()) {
            (None, None) => return true,
            (Some(t), Some(p)) if t.starts_with('{') && t.ends_with('}') && !p.is_empty() => {}
            (Some(t), Some(p)) if t == p => {}
            _ => return false,
        }
    }
}
