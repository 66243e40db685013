//! The whole document of an application, and its served form: `GET /openapi.json` and the `/docs` page, where the
//! document is built and serialized on the first request rather than at start-up, so an application nobody asks
//! for its documentation spends neither the memory of the document nor the start-up time of building it.

use utoipa::openapi::{InfoBuilder, OpenApi, OpenApiBuilder, Paths};

use super::embedded::{Described, record_components};
use super::responses::components;

/// The OpenAPI document of the `registered` ViewSets (their paths, and the records their relations embed), plus
/// the hand-written `manual` paths.
pub(crate) fn document(
    registered: impl IntoIterator<Item = Described>,
    manual: Paths,
    title: &str,
    version: &str,
) -> OpenApi {
    let mut paths = Paths::new();
    let mut records = Vec::new();
    for viewset in registered {
        paths.merge((viewset.paths)());
        records.push((viewset.record)());
    }
    paths.merge(manual);
    let mut components = components();
    components.schemas.extend(super::nested::create_components(&records));
    components.schemas.extend(record_components(records));
    OpenApiBuilder::new()
        .info(InfoBuilder::new().title(title).version(version).build())
        .paths(paths)
        .components(Some(components))
        .build()
}

/// What `/openapi.json` serves, built once on its first request.
#[cfg(feature = "docs")]
struct Served {
    registered: Vec<Described>,
    manual: Paths,
    title: String,
    version: String,
    json: std::sync::OnceLock<axum::body::Bytes>,
}

#[cfg(feature = "docs")]
impl Served {
    fn json(&self) -> axum::body::Bytes {
        let build = || {
            let document = document(self.registered.iter().copied(), self.manual.clone(), &self.title, &self.version);
            serde_json::to_vec(&document).expect("an OpenAPI document serializes").into()
        };
        self.json.get_or_init(build).clone()
    }
}

/// `GET /openapi.json` (the document, built on its first request) and the Swagger UI at `/docs` reading it.
#[cfg(feature = "docs")]
pub(crate) fn docs_router<S: Clone + Send + Sync + 'static>(
    registered: Vec<Described>,
    manual: Paths,
    title: &str,
    version: &str,
) -> axum::Router<S> {
    use axum::http::header::CONTENT_TYPE;
    let served = std::sync::Arc::new(Served {
        registered,
        manual,
        title: title.to_string(),
        version: version.to_string(),
        json: std::sync::OnceLock::new(),
    });
    let json = axum::routing::get(move || async move { ([(CONTENT_TYPE, "application/json")], served.json()) });
    let config = utoipa_swagger_ui::Config::new(["/openapi.json"]);
    let ui: axum::Router<S> = utoipa_swagger_ui::SwaggerUi::new("/docs").config(config).into();
    ui.route("/openapi.json", json)
}

#[cfg(all(test, feature = "docs"))]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use axum::body::Body;
    use axum::extract::Request;
    use tower::Service;

    use super::*;

    static BUILT: AtomicUsize = AtomicUsize::new(0);

    fn counted_paths() -> Paths {
        BUILT.fetch_add(1, Ordering::SeqCst);
        Paths::new()
    }

    fn no_record() -> super::super::embedded::Record {
        let (schema, create) = (Default::default(), Default::default());
        super::super::embedded::Record { table: "t", schema, embeds: Vec::new(), create, writes: Vec::new() }
    }

    #[tokio::test]
    async fn the_document_is_built_on_the_first_request_and_once() {
        let mut router: axum::Router =
            docs_router(vec![Described { paths: counted_paths, record: no_record }], Paths::new(), "Lazy", "1.0");
        assert_eq!(BUILT.load(Ordering::SeqCst), 0, "built at start-up");
        let mut bodies = Vec::new();
        for _ in 0..2 {
            let request = Request::builder().uri("/openapi.json").body(Body::empty()).expect("request");
            let response = router.call(request).await.expect("a router never fails");
            assert_eq!(response.headers()["content-type"], "application/json");
            bodies.push(axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("body"));
        }
        assert_eq!(BUILT.load(Ordering::SeqCst), 1, "built once");
        assert_eq!(bodies[0], bodies[1]);
        let document: serde_json::Value = serde_json::from_slice(&bodies[0]).expect("JSON");
        assert_eq!((document["openapi"].as_str(), document["info"]["title"].as_str()), (Some("3.1.0"), Some("Lazy")));
    }
}
