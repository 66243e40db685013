//! The UI's files, embedded at build time from `src/ui/assets/`: written by hand as plain ES modules (no build
//! step, no framework, nothing fetched from another host), each small enough to read.

/// The page (`{{project}}`, `{{csrf}}`, `{{auth}}` and `{{debug}}` are filled in per request).
pub(super) const INDEX_HTML: &str = include_str!("assets/index.html");

/// The sign-in page (`{{message}}` and `{{action}}` filled in).
pub(super) const SIGN_IN_HTML: &str = include_str!("assets/sign-in.html");

/// Every file served under `/studio/ui/assets/`: name, content type, contents.
pub(crate) const FILES: &[(&str, &str, &str)] = &[
    ("studio.css", "text/css; charset=utf-8", include_str!("assets/studio.css")),
    ("app.js", JS, include_str!("assets/app.js")),
    ("api.js", JS, include_str!("assets/api.js")),
    ("dom.js", JS, include_str!("assets/dom.js")),
    ("models.js", JS, include_str!("assets/models.js")),
    ("bulk.js", JS, include_str!("assets/bulk.js")),
    ("aggregates.js", JS, include_str!("assets/aggregates.js")),
    ("chart.js", JS, include_str!("assets/chart.js")),
    ("records.js", JS, include_str!("assets/records.js")),
    ("query.js", JS, include_str!("assets/query.js")),
    ("migrations.js", JS, include_str!("assets/migrations.js")),
    ("inspector.js", JS, include_str!("assets/inspector.js")),
    ("console.js", JS, include_str!("assets/console.js")),
    ("runtime.js", JS, include_str!("assets/runtime.js")),
    ("metrics.js", JS, include_str!("assets/metrics.js")),
    ("plots.js", JS, include_str!("assets/plots.js")),
    ("webhooks.js", JS, include_str!("assets/webhooks.js")),
    ("feed.js", JS, include_str!("assets/feed.js")),
    ("sse.js", JS, include_str!("assets/sse.js")),
];

const JS: &str = "text/javascript; charset=utf-8";

/// The content type and contents of asset `name`.
pub(super) fn find(name: &str) -> Option<(&'static str, &'static str)> {
    FILES.iter().find(|(file, _, _)| *file == name).map(|(_, content_type, body)| (*content_type, *body))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No file names another host: no `http(s)://` or protocol-relative URL (the SVG namespace, an identifier that is
    /// never requested, is the one exception), no CSS `@import` or `url(` other than a same-document `url(#...)`.
    #[test]
    fn no_asset_names_another_host() {
        let pages = [("index.html", INDEX_HTML), ("sign-in.html", SIGN_IN_HTML)];
        for (name, body) in FILES.iter().map(|(n, _, b)| (*n, *b)).chain(pages) {
            let body = body.replace("'http://www.w3.org/2000/svg'", "");
            for needle in ["http://", "https://", "'//", "\"//", "@import", "src=\"//", "href=\"//"] {
                assert!(!body.contains(needle), "{name} contains `{needle}`");
            }
            for (i, _) in body.match_indices("url(") {
                assert!(body[i + 4..].starts_with("#"), "{name}: a url() that is not a fragment");
            }
        }
    }

    /// The page and the sign-in page carry no inline script or style (the CSP would block them).
    #[test]
    fn no_inline_code() {
        for (name, body) in [("index.html", INDEX_HTML), ("sign-in.html", SIGN_IN_HTML)] {
            assert!(!body.contains("<style"), "{name}");
            assert!(!body.contains(" style="), "{name}");
            let lower = body.to_ascii_lowercase();
            for (i, _) in lower.match_indices(" on") {
                let word: String = lower[i + 1..].chars().take_while(|c| c.is_ascii_alphabetic()).collect();
                assert!(!lower[i + 1 + word.len()..].starts_with('='), "{name}: inline handler `{word}=`");
            }
            for script in body.split("<script").skip(1) {
                assert!(script.trim_start().starts_with("type=\"module\" src="), "{name}: inline script");
            }
        }
    }
}
