//! The code generator behind `viewset generate` (viewset-cli) and Studio's `/ai/codegen/preview`,
//! `/ai/patch/preview|apply` and `/ai/plan/preview|apply`: deterministic edits of a project laid out as
//! `viewset new` writes it (see `viewset-cli/templates`). A crate of its own so the command line uses the same code
//! as Studio without compiling Studio's server.
//!
//! [`preview`] runs [`Operation`]s over an in-memory copy of the files they read and answers a [`Preview`]: the
//! unified diff of each file and an id binding the operations to the SHA-256 of every file they read or write.
//! [`apply`] writes a preview's files only when none of them changed since, each inside the project directory
//! and atomically. No network, no shell, no formatter: the same operations on the same files give the same bytes.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use viewset_codegen::{self as codegen, Operation};
//! let dir = std::env::temp_dir().join(format!("viewset-codegen-doc-{}", std::process::id()));
//! # let _ = std::fs::remove_dir_all(&dir);
//! std::fs::create_dir_all(dir.join("src"))?;
//! let files = [
//!     ("src/lib.rs", "pub mod entity;\npub mod migration;\npub mod viewsets;\n\npub fn api() -> Result<Api, E> {\n    let mut api = Api::new();\n    api.include::<viewsets::BooksViewSet>()?;\n    Ok(api)\n}\n"),
//!     ("src/migration.rs", "use sea_orm_migration::{prelude::*, schema::*};\n\npub struct Migrator;\n\nimpl MigratorTrait for Migrator {\n    fn migrations() -> Vec<Box<dyn MigrationTrait>> {\n        vec![Box::new(CreateTable)]\n    }\n}\n"),
//!     ("src/viewsets.rs", "use viewset_core::prelude::*;\n\n#[derive(ModelViewSet)]\n#[viewset(model = entity::Entity, prefix = \"/api/books\")]\npub struct BooksViewSet;\n"),
//!     ("src/entity.rs", "#[sea_orm(table_name = \"books\")]\npub struct Model {\n    #[sea_orm(primary_key)]\n    pub id: i32,\n    pub name: String,\n}\n"),
//! ];
//! for (path, text) in files {
//!     std::fs::write(dir.join(path), text)?;
//! }
//! let op: Operation = serde_json::from_str(
//!     r#"{"op": "add_to_allowlist", "viewset": "BooksViewSet", "allowlist": "search_fields", "field": "name"}"#,
//! )?;
//! let preview = codegen::preview(&dir, &[op])?;
//! assert_eq!(preview.files.len(), 1);
//! assert!(preview.files[0].diff.contains(r#"+#[viewset(model = entity::Entity, prefix = "/api/books", search_fields = ["name"], filter_backends = [SearchFilter])]"#));
//! codegen::apply(&dir, &preview)?;
//! assert!(codegen::apply(&dir, &preview).is_err(), "the file changed since the preview");
//! # std::fs::remove_dir_all(&dir)?; Ok(()) }
//! ```

mod both_sides;
mod checksum;
mod columns;
mod errors;
mod hand_migration;
mod layout;
mod operations;
mod patch;
mod plural;
mod relations;
mod render;
mod render_join;
mod resource;
mod resource_test;
mod rust_text;
mod workspace;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

pub use self::errors::{CodegenError, FieldError, RESERVED_QUERY_NAMES, identifier_problem, is_keyword};
pub use self::layout::{migration_name, today_utc};
pub use self::operations::{
    AddColumn, AddToAllowlist, Allowlist, Column, ColumnType, ManyToMany, NewMigration, NewResource, Operation,
    Reference, ViewSetSpec, operations_json_schema,
};
pub use self::plural::{plural, singular};
use self::workspace::Workspace;
pub use self::workspace::resolve;

/// One file a preview changes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileChange {
    /// The path from the project directory (`src/entities/tags.rs`).
    pub path: String,
    /// `create` or `modify`.
    pub action: &'static str,
    /// SHA-256 of the file on disk when previewed (`None`: it does not exist).
    pub sha256_before: Option<String>,
    /// SHA-256 of what apply writes.
    pub sha256_after: String,
    /// The unified diff (`--- a/path`, `+++ b/path`; `/dev/null` for a new file).
    pub diff: String,
    /// The content before (not serialized).
    #[serde(skip)]
    pub before: Option<String>,
    /// The content apply writes (not serialized).
    #[serde(skip)]
    pub after: String,
}

/// One operation of a preview: what it does and the files it writes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// Its position in the operations (from 0).
    pub index: usize,
    /// The operation's name.
    pub op: &'static str,
    /// What it does (and what it left unchanged).
    pub notes: Vec<String>,
    /// The files it writes.
    pub files: Vec<String>,
}

/// The result of [`preview`]: diffs and the id that binds them to the files' contents.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    /// SHA-256 of the operations (as parsed) and of every file read or written, with its SHA-256 before.
    pub id: String,
    /// The operations, in order.
    pub operations: Vec<Operation>,
    /// Each operation's notes and files.
    pub steps: Vec<Step>,
    /// The files that change, in path order.
    pub files: Vec<FileChange>,
    /// Every file read or written, with its SHA-256 when previewed (`None`: absent).
    pub inputs: BTreeMap<String, Option<String>>,
}

impl Preview {
    /// Every file's diff, one after the other.
    pub fn diff(&self) -> String {
        self.files.iter().map(|f| f.diff.as_str()).collect()
    }

    /// The preview as the endpoints answer it (without file contents beyond the diffs).
    pub fn to_json(&self) -> Value {
        json!({
            "preview_id": self.id,
            "operations": self.operations,
            "steps": self.steps,
            "files": self.files,
            "diff": self.diff(),
            "inputs": self.inputs,
        })
    }
}

/// The project directory, canonical, or why it cannot be used.
pub fn project_root(dir: &Path) -> Result<PathBuf, CodegenError> {
    let root = dir
        .canonicalize()
        .map_err(|e| CodegenError::UnsupportedLayout(format!("project directory {}: {e}", dir.display())))?;
    if !root.is_dir() {
        return Err(CodegenError::UnsupportedLayout(format!("{} is not a directory", root.display())));
    }
    Ok(root)
}

fn unified_diff(path: &str, before: Option<&str>, after: &str) -> String {
    let old = before.unwrap_or("");
    let from = if before.is_some() { format!("a/{path}") } else { "/dev/null".to_string() };
    similar::TextDiff::from_lines(old, after)
        .unified_diff()
        .context_radius(3)
        .header(&from, &format!("b/{path}"))
        .to_string()
}

/// Runs `operations` over the project in `dir` without writing: the files they change with their diffs, each
/// operation's notes, and the preview id. Every operation is validated; all errors of all operations come back
/// together (each `loc` starting with the operation's index).
pub fn preview(dir: &Path, operations: &[Operation]) -> Result<Preview, CodegenError> {
    let root = project_root(dir)?;
    let mut ws = Workspace::new(&root);
    layout::check(&mut ws)?;
    let mut errors = Vec::new();
    let mut steps = Vec::new();
    for (index, operation) in operations.iter().enumerate() {
        let snapshot = ws.snapshot();
        let mut notes = Vec::new();
        let result = match operation {
            Operation::NewResource(op) => resource::apply(&mut ws, op, &mut notes),
            Operation::AddToAllowlist(op) => patch::add_to_allowlist(&mut ws, op, &mut notes),
            Operation::AddColumn(op) => patch::add_column(&mut ws, op, &mut notes),
            Operation::NewMigration(op) => hand_migration::apply(&mut ws, op, &mut notes),
        };
        match result {
            Ok(()) => {
                steps.push(Step { index, op: operation.name(), notes, files: ws.take_touched() });
            }
            Err(CodegenError::Invalid(list)) => {
                ws.restore(snapshot);
                let mut collected = errors::Errors { list };
                collected.drain_into(&[Value::from(index)], &mut errors);
            }
            Err(other) => return Err(other),
        }
    }
    if !errors.is_empty() {
        return Err(CodegenError::Invalid(errors));
    }
    let inputs = ws.inputs();
    let files = ws
        .changes()
        .into_iter()
        .map(|c| FileChange {
            action: if c.before.is_some() { "modify" } else { "create" },
            sha256_before: inputs.get(&c.path).cloned().flatten(),
            sha256_after: checksum::sha256_hex(c.after.as_bytes()),
            diff: unified_diff(&c.path, c.before.as_deref(), &c.after),
            path: c.path,
            before: c.before,
            after: c.after,
        })
        .collect();
    let id = checksum::checksum(&json!({"operations": operations, "inputs": inputs}));
    Ok(Preview { id, operations: operations.to_vec(), steps, files, inputs })
}

/// What the project holds, for a language model's prompt: each entity's table and fields (with their types) and
/// each ViewSet's `#[viewset(...)]` items as written.
pub fn describe(dir: &Path) -> Result<Value, CodegenError> {
    let mut ws = Workspace::new(&project_root(dir)?);
    layout::check(&mut ws)?;
    let entities: Vec<Value> = layout::entities(&mut ws)?
        .iter()
        .map(|e| {
            let fields: Vec<Value> = e.fields.iter().map(|f| json!({"name": f.name, "type": f.ty})).collect();
            json!({"table": e.table, "fields": fields})
        })
        .collect();
    let text = ws.require(layout::VIEWSETS, "ViewSets")?;
    let source = rust_text::Source::new(&text);
    let viewsets: Vec<Value> = rust_text::viewset_decls(&source)
        .iter()
        .map(|d| {
            let items: serde_json::Map<String, Value> =
                d.items.iter().map(|i| (i.key.clone(), Value::from(&text[i.value.clone()]))).collect();
            json!({"name": d.name, "attributes": items})
        })
        .collect();
    Ok(json!({"entities": entities, "viewsets": viewsets}))
}

/// Writes `preview`'s files into the project in `dir`: refused ([`CodegenError::Changed`]) when a file it read
/// changed since, ([`CodegenError::OutsideProject`]) when a path now leads out of the directory. Answers the files
/// written.
pub fn apply(dir: &Path, preview: &Preview) -> Result<Vec<FileChange>, CodegenError> {
    write::apply(&project_root(dir)?, preview)
}

/// The files `preview` read whose content changed since (each path resolved inside the project first; a path that
/// cannot be resolved counts as unchanged here: [`apply`] refuses it).
pub fn changed_files(dir: &Path, preview: &Preview) -> Vec<String> {
    project_root(dir).and_then(|root| write::changed_files(&root, preview)).unwrap_or_default()
}
