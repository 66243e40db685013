//! The documents whose commands and snippets tests run as written: the README (the front page) and the guide's
//! pages (`viewset-core/docs/guide/`, the modules of `viewset_core::guide`).

/// The README.
pub const README: &str = include_str!("../../README.md");

/// The guide's pages, as (file name, text), in the order of the guide's index.
pub const GUIDE: &[(&str, &str)] = &[
    ("start.md", include_str!("../../viewset-core/docs/guide/start.md")),
    ("models.md", include_str!("../../viewset-core/docs/guide/models.md")),
    ("lists.md", include_str!("../../viewset-core/docs/guide/lists.md")),
    ("relations.md", include_str!("../../viewset-core/docs/guide/relations.md")),
    ("security.md", include_str!("../../viewset-core/docs/guide/security.md")),
    ("databases.md", include_str!("../../viewset-core/docs/guide/databases.md")),
    ("deploy.md", include_str!("../../viewset-core/docs/guide/deploy.md")),
    ("clients.md", include_str!("../../viewset-core/docs/guide/clients.md")),
    ("studio.md", include_str!("../../viewset-core/docs/guide/studio.md")),
    ("ai.md", include_str!("../../viewset-core/docs/guide/ai.md")),
    ("operations.md", include_str!("../../viewset-core/docs/guide/operations.md")),
];

/// The reference of `#[viewset(...)]` (the rustdoc of `viewset_core::ViewSet`).
pub const ATTRIBUTES: &str = include_str!("../../viewset-core/docs/attributes.md");

/// The guide's page `name` (`"models.md"`).
///
/// ```
/// assert!(viewset_tests::docs::page("models.md").starts_with("# "));
/// ```
pub fn page(name: &str) -> &'static str {
    GUIDE.iter().find(|(file, _)| *file == name).map(|(_, text)| *text).unwrap_or_else(|| panic!("no page {name}"))
}

/// The section of `text` under `heading` (a whole heading line, e.g. `"## Bulk writes: `bulk`"`), up to the next
/// heading of the same or a higher level (a `#` line inside a fenced block is not a heading).
///
/// ```
/// let text = "# A\n## B\nb\n```sh\n# a comment\n```\n### C\nc\n## D\nd\n";
/// assert_eq!(viewset_tests::docs::section(text, "## B"), "b\n```sh\n# a comment\n```\n### C\nc\n");
/// ```
pub fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let level = heading.chars().take_while(|c| *c == '#').count();
    let start =
        text.find(&format!("{heading}\n")).unwrap_or_else(|| panic!("no section {heading}")) + heading.len() + 1;
    let rest = &text[start..];
    let (mut offset, mut fenced) = (0, false);
    for line in rest.split_inclusive('\n') {
        fenced ^= line.starts_with("```");
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !fenced && hashes > 0 && hashes <= level && line[hashes..].starts_with(' ') {
            return &rest[..offset];
        }
        offset += line.len();
    }
    rest
}
