//! The README's opening write (`curl -X POST … /api/posts/` under "Or try the example"), run as typed (through
//! curl) against the blog on a fresh SQLite file: it creates a post. Without `Content-Type: application/json` it
//! was a 415. Needs `curl`.

use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::shell::curl;

#[tokio::test]
async fn the_first_write_of_the_readme_works_as_typed() {
    let readme = include_str!("../../../README.md");
    let line = readme.lines().find(|l| l.starts_with("`curl -X POST")).expect("the README's first write");
    let command = line.trim_end_matches('.').trim_matches('`');
    let app = TestApp::blog(Backend::Sqlite).await;
    let (status, body) = curl(command, &["http://127.0.0.1:8000"], &app.base).await;
    assert!(status == "201" && body.contains(r#""title":"Hi""#), "{command}: {status} {body}");
}
