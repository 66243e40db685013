//! What can go wrong: invalid operations (422, each error with its `loc`), a project the generator does not
//! support, a path that would leave the project, files changed since their preview, and I/O.

use serde::Serialize;
use serde_json::{Value, json};

/// One invalid value: where (`loc`, from the operation's root), what (`msg`) and which rule (`type`), as the rest
/// of the API reports 422s.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldError {
    /// The path to the value (`["columns", 1, "name"]`).
    pub loc: Vec<Value>,
    /// What is wrong and what to do.
    pub msg: String,
    /// The rule (`invalid_identifier`, `unknown_viewset`, ...).
    #[serde(rename = "type")]
    pub kind: String,
}

/// Why the generator refused.
#[derive(Debug, Clone, PartialEq)]
pub enum CodegenError {
    /// Operations that do not validate (422).
    Invalid(Vec<FieldError>),
    /// The project is not laid out as `viewset new` writes it, or a file the operation needs is missing (409).
    UnsupportedLayout(String),
    /// A path that is absolute, has `..`, or leads out of the project through a symlink (403).
    OutsideProject(String),
    /// Files whose content changed since the preview (409): their project-relative paths.
    Changed(Vec<String>),
    /// Reading or writing failed (500).
    Io(String),
}

impl std::fmt::Display for CodegenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodegenError::Invalid(errors) => {
                let all: Vec<String> = errors.iter().map(|e| format!("{:?}: {}", e.loc, e.msg)).collect();
                write!(f, "invalid operations: {}", all.join("; "))
            }
            CodegenError::UnsupportedLayout(m) | CodegenError::OutsideProject(m) | CodegenError::Io(m) => {
                f.write_str(m)
            }
            CodegenError::Changed(files) => {
                write!(f, "changed since the preview: {}; preview again", files.join(", "))
            }
        }
    }
}

impl std::error::Error for CodegenError {}

impl CodegenError {
    /// The HTTP status and JSON body of this error; `loc_prefix` is prepended to each 422 location.
    pub fn to_response(&self, loc_prefix: &[Value]) -> (u16, Value) {
        match self {
            CodegenError::Invalid(errors) => {
                let detail: Vec<Value> = errors
                    .iter()
                    .map(|e| {
                        let loc: Vec<Value> = loc_prefix.iter().chain(&e.loc).cloned().collect();
                        json!({"loc": loc, "msg": e.msg, "type": e.kind})
                    })
                    .collect();
                (422, json!({"detail": detail}))
            }
            CodegenError::UnsupportedLayout(m) => (409, json!({"detail": m, "code": "unsupported_layout"})),
            CodegenError::OutsideProject(m) => (403, json!({"detail": m, "code": "outside_project"})),
            CodegenError::Changed(files) => {
                (409, json!({"detail": self.to_string(), "code": "changed_since_preview", "files": files}))
            }
            CodegenError::Io(m) => (500, json!({"detail": m, "code": "io_error"})),
        }
    }
}

/// Collects the errors of one operation under a location prefix.
#[derive(Debug, Default)]
pub(crate) struct Errors {
    pub(crate) list: Vec<FieldError>,
}

impl Errors {
    /// Records `msg` at `loc`.
    pub(crate) fn push(&mut self, loc: &[Value], kind: &str, msg: impl Into<String>) {
        self.list.push(FieldError { loc: loc.to_vec(), msg: msg.into(), kind: kind.to_string() });
    }

    /// Whether nothing was recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Moves every error into `into`, under `prefix`.
    pub(crate) fn drain_into(&mut self, prefix: &[Value], into: &mut Vec<FieldError>) {
        for mut error in self.list.drain(..) {
            error.loc = prefix.iter().cloned().chain(error.loc).collect();
            into.push(error);
        }
    }
}

/// `loc!["columns", 1, "name"]`: a location as JSON values.
macro_rules! loc {
    ($($part:expr),* $(,)?) => { [$(serde_json::Value::from($part)),*] };
}

pub(crate) use loc;

/// The query parameter names viewset-core keeps for itself (`viewset_core::query::RESERVED_QUERY_NAMES`, which
/// viewset-studio's tests compare with this copy): a column with one of these names could not be filtered. A copy,
/// so that this crate does not compile viewset-core.
pub const RESERVED_QUERY_NAMES: &[&str] = &[
    "limit",
    "offset",
    "page",
    "page_size",
    "cursor",
    "search",
    "ordering",
    "fields",
    "expand",
    "count",
    "format",
    "or",
    "q",
];

/// Rust's strict and reserved keywords (2024 edition), which are not field or module names.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
    "Self", "static", "struct", "super", "trait", "true", "try", "type", "unsafe", "use", "where", "while", "abstract",
    "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "union",
];

/// Whether `name` is a Rust keyword (strict or reserved, 2024 edition).
pub fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// Checks a table or column name: snake case whose words start with a letter (so sea-orm's `Column` variant maps
/// back to the same name), at most 63 bytes (PostgreSQL's limit), not a Rust keyword; a column is also not a
/// reserved query name. Records an `invalid_identifier` error at `loc` otherwise.
pub(crate) fn identifier(name: &str, column: bool, loc: &[Value], errors: &mut Errors) -> bool {
    match identifier_problem(name, column) {
        Some(msg) => {
            errors.push(loc, "invalid_identifier", msg);
            false
        }
        None => true,
    }
}

/// What is wrong with `name` as a table (`column: false`) or column name, as `identifier` checks it.
pub fn identifier_problem(name: &str, column: bool) -> Option<String> {
    let words_ok = !name.is_empty()
        && name.split('_').all(|word| {
            word.starts_with(|c: char| c.is_ascii_lowercase())
                && word.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
    if !words_ok {
        Some(format!(
            "`{name}` is not a snake_case identifier: lowercase words of letters and digits, each starting with a \
             letter, joined by single underscores (e.g. `author_id`)"
        ))
    } else if name.len() > 63 {
        Some(format!("`{name}` is longer than 63 bytes (PostgreSQL's identifier limit)"))
    } else if KEYWORDS.contains(&name) {
        Some(format!("`{name}` is a Rust keyword"))
    } else if column && RESERVED_QUERY_NAMES.contains(&name) {
        Some(format!(
            "`{name}` is a reserved query name ({}): a field with this name could not be filtered",
            RESERVED_QUERY_NAMES.join(", ")
        ))
    } else {
        None
    }
}

/// Checks a ViewSet's name: UpperCamelCase ASCII, at most 100 bytes.
pub(crate) fn type_name(name: &str, loc: &[Value], errors: &mut Errors) -> bool {
    let ok = name.starts_with(|c: char| c.is_ascii_uppercase())
        && name.len() <= 100
        && name.chars().all(|c| c.is_ascii_alphanumeric())
        && name != "Self";
    if !ok {
        errors.push(
            loc,
            "invalid_identifier",
            format!("`{name}` is not an UpperCamelCase type name (e.g. `TagViewSet`)"),
        );
    }
    ok
}

/// `tag_links` → `TagLinks`.
pub(crate) fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        let mut errors = Errors::default();
        for good in ["title", "author_id", "v2_name", "sensor2"] {
            assert!(identifier(good, true, &[], &mut errors), "{good}");
        }
        for bad in ["", "Title", "sensor_2", "a__b", "_a", "a_", "type", "../x", "a-b", "ordering", "é"] {
            assert!(!identifier(bad, true, &[], &mut errors), "{bad}");
        }
        assert!(identifier("ordering", false, &[], &mut errors), "a table may be called ordering");
        assert_eq!(pascal("tag_links"), "TagLinks");
    }
}
