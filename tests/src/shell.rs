//! The README's shell commands, run as typed: split a command written with single quotes only into its words, and
//! run `curl` with them against a test server (the README's host rewritten to the server's).

/// The words of a shell command written with single quotes only.
///
/// ```
/// let words = viewset_tests::shell::words("curl -H 'Accept: a, b' 'x?y=1'");
/// assert_eq!(words, ["curl", "-H", "Accept: a, b", "x?y=1"]);
/// ```
pub fn words(command: &str) -> Vec<String> {
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

/// Runs the `curl` command `command` (its first word must be `curl`) with every `hosts` prefix in its words
/// replaced by `base`, off the runtime's thread (the server answers on it meanwhile); returns the HTTP status (as
/// curl writes it, `"201"`) and the body.
///
/// ```no_run
/// # async fn run(app: viewset_tests::harness::TestApp) {
/// let (status, body) = viewset_tests::shell::curl("curl -s localhost:8000/api/posts/", &["localhost:8000"], &app.base).await;
/// assert_eq!(status, "200");
/// # }
/// ```
pub async fn curl(command: &str, hosts: &[&str], base: &str) -> (String, String) {
    let mut args = words(command);
    assert_eq!(args.remove(0), "curl", "{command}");
    for arg in &mut args {
        for host in hosts {
            *arg = arg.replace(host, base);
        }
    }
    let run = move || std::process::Command::new("curl").args(["-s", "-w", "\n%{http_code}"]).args(args).output();
    let output = tokio::task::spawn_blocking(run).await.unwrap().expect("curl is installed");
    let text = String::from_utf8(output.stdout).expect("a UTF-8 answer");
    let (body, status) = text.rsplit_once('\n').expect("curl wrote the status last");
    (status.to_string(), body.to_string())
}
