//! The harness of viewset's cargo-fuzz targets (`fuzz_targets/`): a model of every column kind and three ViewSets
//! ([`model`]), an in-process database that checks every statement ([`proxy`]), the application and the checks
//! every answer must pass ([`app`]), and one module per target ([`query`], [`cursor`], [`body`], [`bulk`], [`jwt`]). Each target's
//! module documents its input format; `fuzz/README.md` says how to run them.

pub mod app;
pub mod body;
pub mod bulk;
pub mod cursor;
pub mod cursor_token;
pub mod input;
pub mod jwt;
pub mod model;
pub mod proxy;
pub mod query;

/// Proves that a cursor signed by [`cursor_token`] is accepted by the server (so the `cursor` target reaches past
/// the signature); panics otherwise.
pub fn cursor_self_check() {
    let call = app::Call::get(
        sea_orm::DbBackend::Sqlite,
        viewset_core::Principal::anonymous(),
        format!(
            "/cursor/items/?cursor={}",
            cursor_token::sign(&cursor_token::payload(&[5.into()], false, "-id", false))
        ),
    );
    let answer = app::send(&call);
    assert_eq!(answer.status, axum::http::StatusCode::OK, "a cursor signed by the harness is refused: {}", answer.body);
}
