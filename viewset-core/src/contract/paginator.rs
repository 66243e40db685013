//! What a pagination class is: the [`Paginator`] a ViewSet names in `pagination_class`, the [`Window`] it reads
//! from the query string and the [`PageQuery`] it asks the store for. The built-in classes and the helpers they
//! share live in [`crate::pagination`].

use std::future::Future;

use sea_orm::{EntityTrait, Select};

use crate::contract::config::Config;
use crate::contract::viewset::ViewSet;
use crate::error::ApiError;
use crate::request::RequestContext;
use crate::types::list_query::OrderTerm;
use crate::types::page_body::PageBody;
use crate::types::params::QueryParams;

/// A filtered, not yet ordered list query with its effective ordering and window: what a paginator asks the store
/// for.
#[derive(Debug)]
pub struct PageQuery<E: EntityTrait> {
    /// Conditions (filters, search, policy).
    pub select: Select<E>,
    /// Effective ordering, primary key last.
    pub order: Vec<OrderTerm<E>>,
    /// Page size.
    pub limit: u64,
    /// Offset.
    pub offset: u64,
}

/// The page a request asks for, as the spec's `list(request, limit, offset, filters)` arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Page size.
    pub limit: u64,
    /// Rows skipped (0 for cursor pagination).
    pub offset: u64,
}

/// A pagination class. Implement it for your own envelope; declare your query parameters and response fields so
/// the API documentation can show them (anything else you add to the body is documented as free-form).
///
/// ```
/// use viewset_core::{ApiError, Config, RequestContext, ViewSet};
/// use viewset_core::pagination::{PageBody, PageQuery, Paginator, Window};
/// use viewset_core::query::QueryParams;
/// /// Like limit/offset, but only `{"items": [...]}`.
/// struct ItemsOnly;
/// impl Paginator for ItemsOnly {
///     const PARAMETERS: &'static [&'static str] = &["limit", "offset"];
///     const RESPONSE_FIELDS: &'static [&'static str] = &["items"];
///     fn window(query: &QueryParams, config: &Config) -> Result<Window, ApiError> {
///         viewset_core::pagination::LimitOffsetPagination::window(query, config)
///     }
///     async fn paginate<V: ViewSet>(page: PageQuery<V::Entity>, request: &RequestContext) -> Result<PageBody, ApiError> {
///         let rows = viewset_core::pagination::fetch_rows::<V>(page, request.reader()).await?;
///         PageBody::new(&serde_json::json!({ "items": viewset_core::pagination::list_items::<V>(rows, request).await? }))
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a pagination class",
    note = "pagination_class takes a type implementing `viewset_core::pagination::Paginator`: LimitOffsetPagination, PageNumberPagination or CursorPagination"
)]
pub trait Paginator: Send + Sync + 'static {
    /// Query parameters it reads.
    const PARAMETERS: &'static [&'static str];
    /// Fields of its response body.
    const RESPONSE_FIELDS: &'static [&'static str];
    /// The window the query string asks for; 422 naming the parameter when it is invalid.
    fn window(query: &QueryParams, config: &Config) -> Result<Window, ApiError>;
    /// Fetches the page and builds the response body.
    fn paginate<V: ViewSet>(
        page: PageQuery<V::Entity>,
        request: &RequestContext,
    ) -> impl Future<Output = Result<PageBody, ApiError>> + Send;
}
