//! What `viewset new` writes: the templates in `templates/`, with the project's names filled in.

use std::path::{Path, PathBuf};

/// The files of a new project, by path, and their templates.
const FILES: [(&str, &str); 7] = [
    ("Cargo.toml", include_str!("../templates/Cargo.toml.tmpl")),
    ("src/main.rs", include_str!("../templates/main.rs.tmpl")),
    ("src/lib.rs", include_str!("../templates/lib.rs.tmpl")),
    ("src/entity.rs", include_str!("../templates/entity.rs.tmpl")),
    ("src/migration.rs", include_str!("../templates/migration.rs.tmpl")),
    ("src/viewsets.rs", include_str!("../templates/viewsets.rs.tmpl")),
    ("tests/api.rs", include_str!("../templates/test.rs.tmpl")),
];

const GITIGNORE: &str = "/target\n*.db\n*.db-*\n";

/// A project to write: its name and the values of the templates' placeholders.
#[derive(Debug)]
pub struct Project {
    name: String,
    values: Vec<(&'static str, String)>,
}

/// The table (and URL segment) of a crate name: `my-books` → `my_books`.
pub fn table_name(name: &str) -> String {
    name.replace('-', "_")
}

impl Project {
    /// Checks `name` and the viewset checkout, and prepares the placeholders.
    pub fn new(name: &str, postgres: bool, viewset: &Path) -> Result<Project, String> {
        let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
            && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if !valid {
            return Err(format!(
                "`{name}` is not a crate name for a project: use lowercase letters, digits, `-` and `_`, starting \
                 with a letter (e.g. `books`)"
            ));
        }
        let core = viewset.join("viewset-core");
        let core = core.canonicalize().map_err(|_| {
            format!("no viewset checkout at {} (pass --viewset <path to the repository>)", viewset.display())
        })?;
        let table = table_name(name);
        let pascal: String = table
            .split('_')
            .map(|part| part[..part.len().min(1)].to_ascii_uppercase() + &part[part.len().min(1)..])
            .collect();
        let test_db = if postgres {
            r#"std::env::var("DATABASE_URL").expect("DATABASE_URL: an empty PostgreSQL database for the tests")"#
                .to_string()
        } else {
            r#"format!("sqlite://{}?mode=rwc", std::env::temp_dir().join(format!("{{table}}-{}.db", std::process::id())).display())"#
                .to_string()
        };
        let (backend, sqlx, url) = if postgres {
            ("postgres", "sqlx-postgres", format!("postgres://postgres:postgres@127.0.0.1:5432/{table}"))
        } else {
            ("sqlite", "sqlx-sqlite", format!("sqlite://{table}.db?mode=rwc"))
        };
        let values = vec![
            ("test_db", test_db),
            ("crate", name.to_string()),
            ("lib", table.clone()),
            ("table", table),
            ("ViewSet", format!("{pascal}ViewSet")),
            ("viewset_core", format!("path = {:?}", core.display().to_string())),
            ("backend", backend.to_string()),
            ("sqlx", sqlx.to_string()),
            ("default_url", url),
        ];
        Ok(Project { name: name.to_string(), values })
    }

    /// The text of each file.
    pub fn files(&self) -> Vec<(&'static str, String)> {
        let fill = |template: &str| {
            self.values
                .iter()
                .fold(template.to_string(), |text, (key, value)| text.replace(&format!("{{{{{key}}}}}"), value))
        };
        let mut files: Vec<(&'static str, String)> = FILES.iter().map(|(path, t)| (*path, fill(t))).collect();
        files.push((".gitignore", GITIGNORE.to_string()));
        files
    }

    /// Writes the project into `dir/<name>`, which must not exist yet.
    pub fn write(&self, dir: &Path) -> Result<PathBuf, String> {
        let root = dir.join(&self.name);
        if root.exists() {
            return Err(format!("{} already exists; choose another name or --dir", root.display()));
        }
        for (path, text) in self.files() {
            let path = root.join(path);
            let parent = path.parent().expect("every file is in the project directory");
            std::fs::create_dir_all(parent).map_err(|e| format!("create {}: {e}", parent.display()))?;
            std::fs::write(&path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
        }
        Ok(root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(name: &str, postgres: bool) -> Result<Project, String> {
        Project::new(name, postgres, &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."))
    }

    #[test]
    fn names_are_checked() {
        for bad in ["Books", "1books", "", "my books", "books!", "-x"] {
            assert!(project(bad, false).unwrap_err().contains("not a crate name"), "{bad}");
        }
        assert!(project("books", false).is_ok());
    }

    #[test]
    fn every_placeholder_is_filled() {
        for postgres in [false, true] {
            for (path, text) in project("my-books", postgres).unwrap().files() {
                assert!(!text.contains("{{"), "{path}: {text}");
                if path == "src/viewsets.rs" {
                    assert!(
                        text.contains("pub struct MyBooksViewSet;") && text.contains(r#"prefix = "/api/my_books""#)
                    );
                }
                if path == "Cargo.toml" {
                    let feature = if postgres {
                        r#"features = ["postgres", "docs"]"#
                    } else {
                        r#"features = ["sqlite", "docs"]"#
                    };
                    assert!(text.contains(feature), "{text}");
                }
            }
        }
    }

    #[test]
    fn a_missing_checkout_is_named() {
        let error = Project::new("books", false, Path::new("/nonexistent")).err().unwrap();
        assert!(error.contains("--viewset"), "{error}");
    }
}
