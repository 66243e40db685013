//! Helpers shared by a few test modules: the Studio UI's HTTP client, the WebDriver side of the browser tests, the
//! code generator's fixtures, writes over HTTP, the blog as a process with its metrics (`observed`).

pub mod browser;
pub mod codegen;
pub mod observed;
pub mod ui_http;
pub mod writes;
