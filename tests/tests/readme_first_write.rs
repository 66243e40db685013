//! The README's opening write (`curl -X POST … /api/posts/` under "Or try the example"), run as typed (through
//! curl) against the blog on a fresh SQLite file: it creates a post. Without `Content-Type: application/json` it
//! was a 415. Needs `curl`.

use viewset_tests::harness::{Backend, TestApp};

/// The words of a shell command written with single quotes only.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut word, mut quoted, mut started) = (String::new(), false, false);
    for c in command.chars() {
        match c {
            '\'' => (quoted, started) = (!quoted, true),
            ' ' if !quoted => {
                if started {
                    out.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => (word, started) = (word + &c.to_string(), true),
        }
    }
    if started {
        out.push(word);
    }
    out
}

#[tokio::test]
async fn the_first_write_of_the_readme_works_as_typed() {
    let readme = include_str!("../../README.md");
    let line = readme.lines().find(|l| l.starts_with("`curl -X POST")).expect("the README's first write");
    let command = line.trim_end_matches('.').trim_matches('`');
    let app = TestApp::blog(Backend::Sqlite).await;
    let mut args = words(command);
    assert_eq!(args.remove(0), "curl");
    let url = args.iter_mut().find(|a| a.starts_with("http://127.0.0.1:8000")).expect("the blog's URL");
    *url = url.replace("http://127.0.0.1:8000", &app.base);
    // Off the runtime's thread: the server answers on it meanwhile.
    let curl = move || std::process::Command::new("curl").args(["-s", "-w", "\n%{http_code}"]).args(args).output();
    let output = tokio::task::spawn_blocking(curl).await.unwrap().expect("curl is installed");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.ends_with("\n201") && text.contains(r#""title":"Hi""#), "{command}: {text}");
}
