//! The names `viewset new` accepts: a project (the crate) and its first resource (a table, a module, a URL
//! segment). A name that would not build is refused with the reason and a name that would.

/// Crate names a project cannot take: the standard library's crates, the crate names the project depends on (its
/// `use` lines would name itself), and `test` (the built-in test harness's crate).
const TAKEN_CRATES: &[&str] = &[
    "std",
    "core",
    "alloc",
    "proc_macro",
    "test",
    "viewset_core",
    "sea_orm",
    "sea_orm_migration",
    "axum",
    "tokio",
    "serde",
    "serde_json",
    "tower",
    "http_body_util",
    "tracing_subscriber",
];

/// Module names of the project itself, which a resource (its table is the first entity's module in later
/// generated code) must not take.
const TAKEN_MODULES: &[&str] = &["entity", "entities", "migration", "viewsets"];

/// `text` lowercased with every run of other characters as one `sep`, trimmed, starting with a letter.
fn tidy(text: &str, sep: char) -> String {
    let mut out = String::new();
    for c in text.trim().chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with(sep) {
            out.push(sep);
        }
    }
    let out = out.trim_end_matches(sep).to_string();
    if out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out
    } else {
        format!("app{sep}{out}").trim_end_matches(sep).to_string()
    }
}

/// Why `name` cannot be a project's crate name, with a name that can.
pub fn check_project(name: &str) -> Result<(), String> {
    let problem = project_problem(name);
    let Some(problem) = problem else { return Ok(()) };
    let mut suggestion = tidy(name, '-');
    if project_problem(&suggestion).is_some() {
        suggestion = format!("{suggestion}-app");
    }
    Err(format!("`{name}` cannot name a project: {problem}; try `{suggestion}`"))
}

fn project_problem(name: &str) -> Option<String> {
    let lib = name.replace('-', "_");
    if !(name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_'))
    {
        Some("a crate name is lowercase letters, digits, `-` and `_`, starting with a letter".into())
    } else if name.ends_with(['-', '_']) || name.contains("--") || name.contains("__") {
        Some("a crate name does not end with `-` or `_` nor repeat them".into())
    } else if viewset_codegen::is_keyword(&lib) {
        Some(format!("`{lib}` is a Rust keyword, so the library could not be named in `use` or paths"))
    } else if TAKEN_CRATES.contains(&lib.as_str()) {
        Some(format!("`{lib}` is already a crate the project uses (or Rust's own), so its paths would be ambiguous"))
    } else {
        None
    }
}

/// Why `name` cannot be a resource (a table, module and URL segment), with a name that can.
pub fn check_resource(name: &str) -> Result<(), String> {
    let problem = if TAKEN_MODULES.contains(&name) {
        Some(format!("`{name}` is the name of one of the project's own modules"))
    } else {
        viewset_codegen::identifier_problem(name, false)
    };
    let Some(problem) = problem else { return Ok(()) };
    let mut suggestion = tidy(name, '_');
    if TAKEN_MODULES.contains(&suggestion.as_str()) || viewset_codegen::identifier_problem(&suggestion, false).is_some()
    {
        suggestion = format!("{suggestion}_items");
    }
    Err(format!("`{name}` cannot name a resource: {problem}; try `{suggestion}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_project_names_come_with_a_working_suggestion() {
        for (bad, suggested) in [
            ("type", "type-app"),
            ("match", "match-app"),
            ("self", "self-app"),
            ("test", "test-app"),
            ("std", "std-app"),
            ("sea-orm", "sea-orm-app"),
            ("My Shop", "my-shop"),
            ("1shop", "app-1shop"),
            ("shop-", "shop"),
            ("", "app"),
        ] {
            let error = check_project(bad).unwrap_err();
            assert!(error.ends_with(&format!("try `{suggested}`")), "{bad}: {error}");
            assert!(check_project(suggested).is_ok(), "{suggested}");
        }
        for good in ["shop", "my-shop", "books2", "test-app", "typed"] {
            assert!(check_project(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn refused_resource_names_come_with_a_working_suggestion() {
        for (bad, suggested) in [
            ("type", "type_items"),
            ("Products", "products"),
            ("order-lines", "order_lines"),
            ("entity", "entity_items"),
        ] {
            let error = check_resource(bad).unwrap_err();
            assert!(error.ends_with(&format!("try `{suggested}`")), "{bad}: {error}");
            assert!(check_resource(suggested).is_ok(), "{suggested}");
        }
        assert!(check_resource("products").is_ok());
    }
}
