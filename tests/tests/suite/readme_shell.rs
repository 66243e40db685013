//! Every `curl` the shell blocks of the README and of the guide's pages send to the blog (`localhost:8000`, `127.0.0.1:8000`), run as typed
//! (through curl) against the blog on a fresh SQLite file, with Studio mounted as the `SERVICE_*` settings of the
//! nearest block before it in the same document say: each answers 2xx, and what its comment promises is in the answer. The other
//! commands of those blocks run elsewhere: the quick start's calls in `examples/quickstart/tests/readme.rs`, the
//! opening write in `readme_first_write.rs`, `viewset new`/`generate` in `viewset-cli/tests/new.rs`, the blog's
//! start, the TypeScript client and `cargo test` in `.ci/run`. Needs `curl`.

use viewset_studio::StudioSettings;
use viewset_tests::harness::Backend;
use viewset_tests::shell::curl;
use viewset_tests::studio_fixtures::blog_with_studio;

/// What the README's comments promise of some answers: (a part of the command, a part of the answer).
const PROMISED: &[(&str, &str)] = &[
    ("curl 'localhost:8000/api/posts/?expand=author&limit=1'", r#""author":null"#),
    ("Bearer bob-token' 'localhost:8000/api/posts/?expand=author", r#""author":{"id":"#),
    ("expand=posts.author", r#""posts":[{"#),
    ("curl 'localhost:8000/api/posts/?author__name__icontains=ada'", r#""count":0"#),
    ("author__name__icontains=ada&ordering=-author__name", r#""results":[{"#),
    ("tags__name=machines&expand=tags", r#""tags":[{"id":2,"name":"machines"}]"#),
    ("tags__id__in=1,2", r#""count":2,"#),
    (r#"-d '{"name": "engines"}' 'localhost:8000/api/tags/'"#, r#""name":"engines""#),
    ("/studio/handshake", r#""protocol_version":"1.0""#),
    ("authors_retrieve", r#""jsonrpc":"2.0""#),
    ("/ai/query/execute", r#""tool":"posts_list","rows":[{"#),
    ("/ai/schema/health", r#""dialect":"sqlite""#),
];

/// One command of a block: its text (continuations joined) and the `SERVICE_*` settings in force.
struct Call {
    command: String,
    settings: Vec<(String, String)>,
}

/// The blog-bound `curl` commands of the README's `sh` blocks, in order.
fn calls(readme: &str) -> Vec<Call> {
    let (mut calls, mut settings) = (Vec::new(), Vec::new());
    for block in readme.split("```sh\n").skip(1) {
        let block = &block[..block.find("```").expect("a closed block")];
        let joined = block.replace("\\\n", " ");
        for line in joined.lines().map(str::trim) {
            let found: Vec<(String, String)> = line
                .split_whitespace()
                .filter_map(|word| word.split_once('='))
                .filter(|(name, value)| name.starts_with("SERVICE_") && !value.starts_with("$("))
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .collect();
            if !found.is_empty() {
                settings = found;
            }
            let blog_bound = line.contains("localhost:8000") || line.contains("127.0.0.1:8000");
            if line.starts_with("curl ") && blog_bound {
                calls.push(Call { command: without_comment(line).to_string(), settings: settings.clone() });
            }
        }
    }
    calls
}

/// The blog-bound `curl` commands of the README, then of each page of the guide (the settings of one document do
/// not carry over to the next).
fn every_call() -> Vec<Call> {
    let documents = std::iter::once(viewset_tests::docs::README).chain(viewset_tests::docs::GUIDE.iter().map(|p| p.1));
    documents.flat_map(calls).collect()
}

/// The command before a `#` that starts a comment (outside single quotes).
fn without_comment(line: &str) -> &str {
    let mut quoted = false;
    for (at, c) in line.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '#' if !quoted => return line[..at].trim_end(),
            _ => {}
        }
    }
    line
}

#[test]
fn the_readme_has_the_blocks_this_test_runs() {
    let calls = every_call();
    assert!(calls.len() >= 9, "{} blog-bound curl commands", calls.len());
    for (part, _) in PROMISED {
        assert!(
            calls.iter().any(|call| call.command.contains(part)),
            "no command of the README or the guide contains {part}"
        );
    }
    let studio = calls.iter().find(|call| call.command.contains("/studio/handshake")).expect("the handshake");
    assert!(studio.settings.iter().any(|(name, value)| name == "SERVICE_STUDIO_AUTH_TOKEN" && value == "s3cret"));
    assert_eq!(without_comment("curl 'a#b' -d x  # note"), "curl 'a#b' -d x");
}

#[tokio::test]
async fn every_blog_curl_in_the_readme_answers_as_its_comment_says() {
    let mut served: Option<(Vec<(String, String)>, viewset_tests::harness::TestApp)> = None;
    for call in every_call() {
        if served.as_ref().is_none_or(|(settings, _)| *settings != call.settings) {
            let settings = if call.settings.is_empty() {
                StudioSettings::default()
            } else {
                StudioSettings::from_vars(call.settings.clone()).expect("the README's Studio settings are valid")
            };
            served = Some((call.settings.clone(), blog_with_studio(Backend::Sqlite, settings).await));
        }
        let app = &served.as_ref().unwrap().1;
        let hosts = ["http://127.0.0.1:8000", "localhost:8000"];
        let (status, body) = curl(&call.command, &hosts, &app.base).await;
        assert!(status.starts_with('2'), "{}: {status} {body}", call.command);
        for (part, answer) in PROMISED.iter().filter(|(part, _)| call.command.contains(part)) {
            assert!(body.contains(answer), "{} ({part}) should answer {answer}: {body}", call.command);
        }
    }
}
