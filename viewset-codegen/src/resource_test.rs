//! The test `new_resource` writes beside a new ViewSet (`tests/<table>.rs`): the list answers and an anonymous
//! write is refused, in process, on the database the project's `test_database()` gives (`viewset new` writes it in
//! `src/lib.rs`; without it no test is written).

use super::errors::CodegenError;
use super::layout::LIB;
use super::rust_text::{Source, string_literal};
use super::workspace::Workspace;

/// The library's name (`[package] name` with `-` as `_`), when `Cargo.toml` says it plainly.
fn library_name(manifest: &str) -> Option<String> {
    let package = manifest.find("[package]")?;
    let line = manifest[package..].lines().skip(1).take_while(|l| !l.starts_with('[')).find_map(|l| {
        let (key, value) = l.split_once('=')?;
        (key.trim() == "name").then(|| value.trim().to_string())
    })?;
    Some(string_literal(&line)?.replace('-', "_"))
}

/// Writes `tests/<table>.rs` for a ViewSet at `prefix` whose permissions are the default
/// (`IsAuthenticatedOrReadOnly`), when the project's library has `test_database()`; answers the path written.
pub(crate) fn write(
    ws: &mut Workspace,
    table: &str,
    prefix: &str,
    default_permissions: bool,
) -> Result<Option<String>, CodegenError> {
    let lib = ws.require(LIB, "registering modules and ViewSets")?;
    let has_helper = Source::new(&lib).find("pub async fn test_database(", 0).is_some();
    let manifest = ws.read("Cargo.toml")?.unwrap_or_default();
    let (true, true, Some(library)) = (has_helper, default_permissions, library_name(&manifest)) else {
        return Ok(None);
    };
    let path = format!("tests/{table}.rs");
    if ws.read(&path)?.is_some() {
        return Ok(None);
    }
    ws.write(&path, text(&library, table, prefix))?;
    Ok(Some(path))
}

fn text(library: &str, table: &str, prefix: &str) -> String {
    format!(
        "//! `{prefix}/` in process (written by the code generator, `new_resource`): `cargo test`.

use axum::body::Body;
use axum::http::{{Request, StatusCode}};
use http_body_util::BodyExt;
use tower::ServiceExt;

#[tokio::test]
async fn {table}_are_listed_and_anonymous_writes_refused() {{
    let app = {library}::app({library}::test_database().await.unwrap()).unwrap();
    let list = app.clone().oneshot(Request::get(\"{prefix}/\").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(list.status(), StatusCode::OK);
    let body = list.into_body().collect().await.unwrap().to_bytes();
    let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(body[\"count\"], 0);
    let create =
        Request::post(\"{prefix}/\").header(\"content-type\", \"application/json\").body(Body::from(\"{{}}\")).unwrap();
    assert_eq!(app.oneshot(create).await.unwrap().status(), StatusCode::UNAUTHORIZED);
}}
"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn library_names() {
        let manifest = "[package]\nname = \"my-shop\"\nversion = \"0.1.0\"\n\n[dependencies]\nname = \"x\"\n";
        assert_eq!(super::library_name(manifest).as_deref(), Some("my_shop"));
        assert_eq!(super::library_name("[dependencies]\nname = \"x\"\n"), None);
    }
}
