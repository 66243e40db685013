//! The paths of a ViewSet's routes and the names of its operations, written once: registration, route listings,
//! the OpenAPI document, the AI tools and the derive's generated action routes all build them here.

/// `prefix` without its trailing slashes: the base every route path starts with.
///
/// ```
/// assert_eq!(viewset_core::registration::paths::base("/api/posts/"), "/api/posts");
/// ```
pub fn base(prefix: &str) -> &str {
    prefix.trim_end_matches('/')
}

/// The collection path: `<base>/` (list and create).
///
/// ```
/// assert_eq!(viewset_core::registration::paths::collection("/api/posts"), "/api/posts/");
/// ```
pub fn collection(base: &str) -> String {
    format!("{base}/")
}

/// The detail path: `<base>/{pk}` (retrieve, update, delete).
///
/// ```
/// assert_eq!(viewset_core::registration::paths::detail("/api/posts"), "/api/posts/{pk}");
/// ```
pub fn detail(base: &str) -> String {
    format!("{base}/{{pk}}")
}

/// The event stream path: `<base>/stream`.
///
/// ```
/// assert_eq!(viewset_core::registration::paths::stream("/api/posts"), "/api/posts/stream");
/// ```
pub fn stream(base: &str) -> String {
    format!("{base}/stream")
}

/// The aggregate path: `<base>/aggregate` ([`crate::aggregate`]).
///
/// ```
/// assert_eq!(viewset_core::registration::paths::aggregate("/api/posts"), "/api/posts/aggregate");
/// ```
pub fn aggregate(base: &str) -> String {
    format!("{base}/aggregate")
}

/// The bulk writes' path: `<base>/bulk` (`POST` creates many, `PATCH` updates many, `DELETE` deletes many; with
/// `#[viewset(bulk)]`).
///
/// ```
/// assert_eq!(viewset_core::registration::paths::bulk("/api/posts"), "/api/posts/bulk");
/// ```
pub fn bulk(base: &str) -> String {
    format!("{base}/bulk")
}

/// The upsert's path: `<base>/upsert` (`POST`; with `#[viewset(upsert_keys = [...])]`).
///
/// ```
/// assert_eq!(viewset_core::registration::paths::upsert("/api/posts"), "/api/posts/upsert");
/// ```
pub fn upsert(base: &str) -> String {
    format!("{base}/upsert")
}

/// A custom action's path: `<base>/{pk}/<path>` for a detail action, `<base>/<path>` otherwise.
///
/// ```
/// use viewset_core::registration::paths::action;
/// assert_eq!(action("/api/posts", true, "publish"), "/api/posts/{pk}/publish");
/// assert_eq!(action("/api/posts", false, "stats"), "/api/posts/stats");
/// ```
pub fn action(base: &str, detail: bool, path: &str) -> String {
    if detail { format!("{base}/{{pk}}/{path}") } else { format!("{base}/{path}") }
}

/// The name of one operation of a ViewSet whose names start with `basename` ([`crate::contract::viewset::ViewSet::basename`]): its
/// OpenAPI `operationId` and its AI tool's name, one function for both. `handler` is `list`, `retrieve`, `create`,
/// `update`, `delete`, `stream` or an action's name; an action with several `methods` has one name per method.
///
/// ```
/// use viewset_core::registration::paths::operation_id;
/// assert_eq!(operation_id("posts", "list", "GET", 1), "posts_list");
/// assert_eq!(operation_id("posts", "publish", "POST", 1), "posts_publish");
/// assert_eq!(operation_id("posts", "flag", "GET", 2), "posts_flag_get");
/// ```
pub fn operation_id(basename: &str, handler: &str, method: &str, methods: usize) -> String {
    match methods {
        0 | 1 => format!("{basename}_{handler}"),
        _ => format!("{basename}_{handler}_{}", method.to_ascii_lowercase()),
    }
}

/// What a ViewSet's routes and AI tools are named from, gathered from its type by one small generic function
/// ([`Named::of`]), so that listing them is compiled once rather than per ViewSet.
pub(crate) struct Named {
    /// Its configuration.
    pub config: &'static crate::contract::config::Config,
    /// Its model's table.
    pub table: &'static str,
    /// `ViewSet::prefix`.
    pub prefix: String,
    /// `ViewSet::basename`.
    pub basename: String,
    /// Its custom actions.
    pub actions: Vec<crate::contract::viewset::ActionInfo>,
}

impl Named {
    /// The names of `V`.
    pub(crate) fn of<V: crate::contract::hooks::Hooks>() -> Named {
        Named {
            config: &V::CONFIG,
            table: sea_orm::EntityName::table_name(&V::Entity::default()),
            prefix: V::prefix(),
            basename: V::basename(),
            actions: V::actions(),
        }
    }
}
