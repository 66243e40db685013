//! What `viewset new` writes: the templates in `templates/`, with the project's names filled in.

use std::path::{Path, PathBuf};

/// The files of a new project, by path (placeholders allowed), and their templates.
const FILES: [(&str, &str); 9] = [
    ("Cargo.toml", include_str!("../templates/Cargo.toml.tmpl")),
    ("src/main.rs", include_str!("../templates/main.rs.tmpl")),
    ("src/lib.rs", include_str!("../templates/lib.rs.tmpl")),
    ("src/entities.rs", include_str!("../templates/entities.rs.tmpl")),
    ("src/entities/{{table}}.rs", include_str!("../templates/entity.rs.tmpl")),
    ("src/migration.rs", include_str!("../templates/migration.rs.tmpl")),
    ("src/migration/{{first_migration}}.rs", include_str!("../templates/first_migration.rs.tmpl")),
    ("src/viewsets.rs", include_str!("../templates/viewsets.rs.tmpl")),
    ("tests/api.rs", include_str!("../templates/test.rs.tmpl")),
];

const CONNECT_SQLITE: &str = include_str!("../templates/connect_sqlite.rs.tmpl");
const CONNECT_POSTGRES: &str = include_str!("../templates/connect_postgres.rs.tmpl");
const CONNECT_MYSQL: &str = include_str!("../templates/connect_mysql.rs.tmpl");

/// The database a new project is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Database {
    /// An embedded SQLite file (the default).
    Sqlite,
    /// PostgreSQL (`--postgres`).
    Postgres,
    /// MariaDB / MySQL (`--mysql`).
    Mysql,
}

const GITIGNORE: &str = "/target\n*.db\n*.db-*\n";

/// The first resource when `--resource` is not given: neutral, whatever the project is called.
pub const DEFAULT_RESOURCE: &str = "items";

/// A project to write: its name and the values of the templates' placeholders.
#[derive(Debug)]
pub struct Project {
    name: String,
    values: Vec<(&'static str, String)>,
}

impl Project {
    /// Checks `name`, `resource` and the viewset checkout (when given: the project depends on it by path, else on
    /// the published `viewset-core` of this command's version), and prepares the placeholders; the first migration
    /// is dated `date` (`YYYYMMDD`).
    pub fn new(
        name: &str,
        resource: &str,
        database: Database,
        viewset: Option<&Path>,
        date: &str,
    ) -> Result<Project, String> {
        crate::names::check_project(name)?;
        crate::names::check_resource(resource)?;
        let dependency = match viewset {
            Some(viewset) => {
                let core = viewset.join("viewset-core").canonicalize().map_err(|_| {
                    format!("no viewset checkout at {} (pass --viewset <path to the repository>)", viewset.display())
                })?;
                format!("path = {:?}", core.display().to_string())
            }
            None => format!("version = \"{}\"", env!("CARGO_PKG_VERSION")),
        };
        let lib = name.replace('-', "_");
        let pascal: String = resource
            .split('_')
            .map(|part| part[..part.len().min(1)].to_ascii_uppercase() + &part[part.len().min(1)..])
            .collect();
        let (backend, sqlx, server, connect) = match database {
            Database::Postgres => {
                ("postgres", "sqlx-postgres", "postgres://postgres:postgres@127.0.0.1:5432", CONNECT_POSTGRES)
            }
            Database::Mysql => ("mysql", "sqlx-mysql", "mysql://root@127.0.0.1:3306", CONNECT_MYSQL),
            Database::Sqlite => ("sqlite", "sqlx-sqlite", "", CONNECT_SQLITE),
        };
        let url = match database {
            Database::Sqlite => format!("sqlite://{lib}.db?mode=rwc"),
            _ => format!("{server}/{lib}"),
        };
        let values = vec![
            ("connect", connect.trim_end().to_string()),
            ("test_url", format!("{server}/{lib}_test")),
            ("first_migration", viewset_codegen::migration_name(date, 1, &format!("create_{resource}"))),
            ("crate", name.to_string()),
            ("lib", lib),
            ("table", resource.to_string()),
            ("route", viewset_codegen::plural(resource)),
            ("ViewSet", format!("{pascal}ViewSet")),
            ("viewset_core", dependency),
            ("backend", backend.to_string()),
            ("sqlx", sqlx.to_string()),
            ("default_url", url),
        ];
        Ok(Project { name: name.to_string(), values })
    }

    /// The text of each file.
    pub fn files(&self) -> Vec<(String, String)> {
        let fill = |template: &str| {
            self.values
                .iter()
                .fold(template.to_string(), |text, (key, value)| text.replace(&format!("{{{{{key}}}}}"), value))
        };
        let mut files: Vec<(String, String)> = FILES.iter().map(|(path, t)| (fill(path), fill(t))).collect();
        files.push((".gitignore".to_string(), GITIGNORE.to_string()));
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

    fn project(name: &str, database: Database) -> Result<Project, String> {
        let viewset = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        Project::new(name, "my_books", database, Some(&viewset), "20261127")
    }

    #[test]
    fn names_are_checked() {
        for bad in ["Books", "1books", "", "my books", "books!", "-x", "type", "test"] {
            assert!(project(bad, Database::Sqlite).unwrap_err().contains("cannot name a project"), "{bad}");
        }
        assert!(project("books", Database::Sqlite).is_ok());
    }

    #[test]
    fn every_placeholder_is_filled() {
        for (database, backend) in
            [(Database::Sqlite, "sqlite"), (Database::Postgres, "postgres"), (Database::Mysql, "mysql")]
        {
            for (path, text) in project("my-books", database).unwrap().files() {
                assert!(!text.contains("{{") && !path.contains("{{"), "{path}: {text}");
                if path == "src/migration.rs" {
                    assert!(text.contains("mod m20261127_000001_create_my_books;"), "{text}");
                }
                if path == "src/viewsets.rs" {
                    assert!(
                        text.contains("pub struct MyBooksViewSet;") && text.contains(r#"prefix = "/api/my_books""#)
                    );
                }
                if path == "Cargo.toml" {
                    let feature = format!(r#"features = ["{backend}", "docs"]"#);
                    assert!(text.contains(&feature) && text.contains(&format!("sqlx-{backend}")), "{text}");
                    // The trimmed dev profile (bench/notes/build-time-rounds.md).
                    let dev =
                        "[profile.dev]\ndebug = \"line-tables-only\"\n\n[profile.dev.package.\"*\"]\ndebug = false\n";
                    assert!(text.contains(dev), "{text}");
                }
                if database == Database::Mysql {
                    if path == "src/main.rs" {
                        assert!(text.contains(r#""mysql://root@127.0.0.1:3306/my_books""#), "{text}");
                    }
                    if path == "src/lib.rs" {
                        assert!(text.contains(r#""mysql://root@127.0.0.1:3306/my_books_test""#), "{text}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_first_resource_is_an_entity_module_served_at_its_plural() {
        let viewset = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let project = Project::new("shop", "category", Database::Sqlite, Some(&viewset), "20261207").unwrap();
        let files: std::collections::BTreeMap<String, String> = project.files().into_iter().collect();
        assert!(!files.contains_key("src/entity.rs"), "one layout: src/entities/");
        assert_eq!(files["src/entities.rs"].lines().last(), Some("pub mod category;"));
        assert!(files["src/entities/category.rs"].contains(r#"#[sea_orm(table_name = "category")]"#));
        assert!(files["src/lib.rs"].contains("\npub mod entities;\n"));
        let viewsets = &files["src/viewsets.rs"];
        assert!(
            viewsets.contains("use crate::entities::category;\n") && viewsets.contains("model = category::Entity,")
        );
        assert!(viewsets.contains(r#"prefix = "/api/categories","#), "{viewsets}");
        assert!(files["tests/api.rs"].contains(r#"Request::get("/api/categories/")"#));
        assert!(files["src/main.rs"].contains("try GET /api/categories/"));
    }

    #[test]
    fn a_missing_checkout_is_named() {
        let error = Project::new("books", "items", Database::Sqlite, Some(Path::new("/nonexistent")), "20261127")
            .err()
            .unwrap();
        assert!(error.contains("--viewset"), "{error}");
    }

    #[test]
    fn without_a_checkout_the_published_version_is_named() {
        let project = Project::new("books", "items", Database::Sqlite, None, "20261127").unwrap();
        let files = project.files();
        let manifest = &files.iter().find(|(path, _)| path == "Cargo.toml").unwrap().1;
        let expected =
            format!(r#"viewset-core = {{ version = "{}", default-features = false"#, env!("CARGO_PKG_VERSION"));
        assert!(manifest.contains(&expected), "{manifest}");
    }
}
