//! Helpers shared by a few test modules: the Studio UI's HTTP client, the WebDriver side of the browser tests, the
//! code generator's fixtures, writes over HTTP.

pub mod browser;
pub mod codegen;
pub mod ui_http;
pub mod writes;
