//! The guide's bulk writes (models.md) (under "Bulk writes: `bulk`") and upserts (under "Upsert: `upsert_keys`"), run as typed (through curl) against the blog on a
//! fresh SQLite file, in order: each answers the status its comment says, and the body too when the comment shows
//! it whole. Needs `curl`.

use viewset_tests::harness::{Backend, TestApp};
use viewset_tests::shell::curl;

#[tokio::test]
async fn the_bulk_writes_of_the_guide_work_as_typed() {
    run_section("## Bulk writes: `bulk`", 4).await;
}

#[tokio::test]
async fn the_upserts_of_the_guide_work_as_typed() {
    run_section("## Upsert: `upsert_keys`", 3).await;
}

/// Runs the `commands` commands of the guide's section `heading` (models.md) against a fresh blog, checking each answer.
async fn run_section(heading: &str, commands: usize) {
    let section = viewset_tests::docs::section(viewset_tests::docs::page("models.md"), heading);
    let block = section.split("```text").nth(1).and_then(|b| b.split("```").next()).expect("its examples");
    let lines: Vec<&str> = block.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 2 * commands, "{commands} commands, each with its answer: {block}");
    let app = TestApp::blog(Backend::Sqlite).await;
    for pair in lines.chunks(2) {
        let (command, answer) = (pair[0], pair[1].strip_prefix("# ").expect("an answer"));
        let (status, body) = curl(command, &["localhost:8000"], &app.base).await;
        let text = format!("{status} {body}");
        let (expected_status, expected_body) = answer.split_once(' ').unwrap();
        assert_eq!(status, expected_status, "{command}: {text}");
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        match serde_json::from_str::<serde_json::Value>(expected_body) {
            Ok(expected) => assert_eq!(body, expected, "{command}"),
            // Shown in part (`…`): the rows' outcomes (an upsert's), and the titles it names, in order.
            Err(_) => {
                for outcome in ["created", "updated", "ignored"].iter().filter(|_| body.is_object()) {
                    let shown = format!(r#""{outcome}": {}"#, body[outcome]);
                    assert!(expected_body.contains(&shown), "{shown} in {expected_body}");
                }
                let records = if body.is_object() { &body["records"] } else { &body };
                let records = records.as_array().unwrap();
                let titles: Vec<&str> = records.iter().map(|p| p["title"].as_str().unwrap()).collect();
                let ids: Vec<i64> = records.iter().map(|p| p["id"].as_i64().unwrap()).collect();
                let shown: Vec<String> =
                    titles.iter().zip(&ids).map(|(t, id)| format!(r#"{{"id": {id}, "title": "{t}""#)).collect();
                assert!(shown.iter().all(|s| expected_body.contains(s.as_str())), "{expected_body} vs {body}");
            }
        }
    }
}
