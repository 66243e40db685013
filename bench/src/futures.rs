//! `viewset-bench futures`: the size in bytes of the futures the viewset server's default handlers return, for the
//! blog's `PostViewSet` (limit/offset pages) and the bench's cursor-paginated ViewSet. Each in-flight request holds
//! one such future in a heap allocation (the list's is boxed by its route, the others are in the route's future,
//! which axum boxes), so its size is memory per request in flight and bytes written per request. The futures are
//! built and dropped, never run; the request context holds a disconnected database handle.

use blog::viewsets::PostViewSet;
use viewset_core::access::Lookup;
use viewset_core::viewset::handlers;
use viewset_core::{Operation, RequestContext, ViewSet};

use crate::viewset_server::BenchCursorPosts;

/// Prints one line per future: what it is, and its size in bytes.
pub fn run() -> Result<(), String> {
    let request = || RequestContext::new(sea_orm::DatabaseConnection::default(), Operation::List);
    let pk = || Lookup { raw: "1".into(), value: 1i32.into() };
    let created: <PostViewSet as ViewSet>::Create =
        serde_json::from_value(serde_json::json!({"title": "t", "body": "b", "author_id": 1}))
            .map_err(|e| format!("create body: {e}"))?;
    let changed: <PostViewSet as ViewSet>::Update =
        serde_json::from_value(serde_json::json!({"views": 1})).map_err(|e| format!("update body: {e}"))?;
    let sizes = [
        ("RequestContext (not a future)", size_of::<RequestContext>()),
        (
            "list, limit/offset (handlers::list)",
            size_of_val(&handlers::list::<PostViewSet>(request(), 20, 0, Default::default())),
        ),
        (
            "list, cursor (handlers::list)",
            size_of_val(&handlers::list::<BenchCursorPosts>(request(), 20, 0, Default::default())),
        ),
        ("retrieve (handlers::retrieve)", size_of_val(&handlers::retrieve::<PostViewSet>(pk(), request()))),
        ("create (handlers::create)", size_of_val(&handlers::create::<PostViewSet>(created, request()))),
        ("PATCH (handlers::update)", size_of_val(&handlers::update::<PostViewSet>(pk(), changed, request()))),
        ("delete (handlers::delete)", size_of_val(&handlers::delete::<PostViewSet>(pk(), request()))),
    ];
    for (what, bytes) in sizes {
        println!("{what:<40} {bytes:>6} bytes");
    }
    Ok(())
}
