//! The project as the generator sees it: paths resolved safely inside its directory, and an overlay of edits over
//! the files on disk, recording the SHA-256 of every file read (absent files too) so that a preview binds its
//! operations to exactly the content it was computed from.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use super::checksum::sha256_hex;
use super::errors::CodegenError;

/// Resolves `relative` inside `root` (canonical): no absolute path, no `..`, and no symlink (of the file or of any
/// directory on the way) that leads out. Returns the real path to read or write: the canonical path of an
/// existing file, or the canonical existing ancestor joined with the rest.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let root = std::env::temp_dir().join(format!("viewset-resolve-doc-{}", std::process::id()));
/// std::fs::create_dir_all(root.join("src"))?;
/// let root = root.canonicalize()?;
/// assert!(viewset_codegen::resolve(&root, "src/new.rs").is_ok());
/// assert!(viewset_codegen::resolve(&root, "../outside.rs").is_err());
/// assert!(viewset_codegen::resolve(&root, "/etc/passwd").is_err());
/// # std::fs::remove_dir_all(&root)?; Ok(()) }
/// ```
pub fn resolve(root: &Path, relative: &str) -> Result<PathBuf, CodegenError> {
    let outside = |why: &str| CodegenError::OutsideProject(format!("`{relative}` {why}; nothing was written"));
    let path = Path::new(relative);
    if relative.is_empty() || path.is_absolute() || relative.contains('\\') {
        return Err(outside("is not a relative path inside the project"));
    }
    if !path.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(outside("has `..`, `.` or a root: only plain names are written"));
    }
    let joined = root.join(path);
    // The deepest existing ancestor (the path itself when it exists), canonicalized: symlinks resolved.
    let mut existing = joined.as_path();
    let mut rest = Vec::new();
    loop {
        match std::fs::symlink_metadata(existing) {
            Ok(_) => break,
            Err(_) => {
                rest.push(existing.file_name().unwrap_or_default().to_owned());
                existing = existing.parent().ok_or_else(|| outside("has no existing parent"))?;
            }
        }
    }
    let real = existing.canonicalize().map_err(|_| outside("goes through a symlink whose target does not exist"))?;
    if !real.starts_with(root) {
        return Err(outside("leads out of the project directory (through a symlink)"));
    }
    Ok(rest.into_iter().rev().fold(real, |path, name| path.join(name)))
}

/// One file the generator read, and what it will hold.
#[derive(Debug, Clone)]
struct Entry {
    /// SHA-256 of the content on disk when first read (`None`: no such file).
    sha256: Option<String>,
    /// The content on disk when first read.
    original: Option<String>,
    /// The content after the edits so far.
    current: Option<String>,
}

/// A file the operations change.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    pub(crate) path: String,
    pub(crate) before: Option<String>,
    pub(crate) after: String,
}

/// The project directory and the overlay of edits.
#[derive(Debug)]
pub(crate) struct Workspace {
    root: PathBuf,
    files: BTreeMap<String, Entry>,
    /// The paths written by the current operation (for its step).
    touched: Vec<String>,
}

impl Workspace {
    /// The project at `root` (canonical).
    pub(crate) fn new(root: &Path) -> Self {
        Workspace { root: root.to_path_buf(), files: BTreeMap::new(), touched: Vec::new() }
    }

    fn entry(&mut self, path: &str) -> Result<&mut Entry, CodegenError> {
        if !self.files.contains_key(path) {
            let real = resolve(&self.root, path)?;
            let original = match std::fs::read(&real) {
                Ok(bytes) => Some(
                    String::from_utf8(bytes)
                        .map_err(|_| CodegenError::UnsupportedLayout(format!("`{path}` is not UTF-8 text")))?,
                ),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(CodegenError::Io(format!("cannot read `{path}`: {e}"))),
            };
            let sha256 = original.as_deref().map(|t| sha256_hex(t.as_bytes()));
            self.files.insert(path.to_string(), Entry { sha256, current: original.clone(), original });
        }
        Ok(self.files.get_mut(path).expect("inserted above"))
    }

    /// The file's content after the edits so far (`None`: absent).
    pub(crate) fn read(&mut self, path: &str) -> Result<Option<String>, CodegenError> {
        Ok(self.entry(path)?.current.clone())
    }

    /// The file's content, or the unsupported-layout error naming what it is needed for.
    pub(crate) fn require(&mut self, path: &str, needed_for: &str) -> Result<String, CodegenError> {
        self.read(path)?.ok_or_else(|| {
            CodegenError::UnsupportedLayout(format!(
                "`{path}` is missing; it is needed for {needed_for}. The generator edits projects laid out as \
                 `viewset new` writes them (src/lib.rs, src/migration.rs, src/viewsets.rs, src/entity.rs)"
            ))
        })
    }

    /// Replaces the file's content (creating it).
    pub(crate) fn write(&mut self, path: &str, text: String) -> Result<(), CodegenError> {
        self.entry(path)?.current = Some(text);
        if !self.touched.iter().any(|p| p == path) {
            self.touched.push(path.to_string());
        }
        Ok(())
    }

    /// The paths written since the last call (one operation's files).
    pub(crate) fn take_touched(&mut self) -> Vec<String> {
        std::mem::take(&mut self.touched)
    }

    /// Every file read or written, with the SHA-256 it had on disk (`None`: absent).
    pub(crate) fn inputs(&self) -> BTreeMap<String, Option<String>> {
        self.files.iter().map(|(path, entry)| (path.clone(), entry.sha256.clone())).collect()
    }

    /// The files whose content changes, in path order.
    pub(crate) fn changes(&self) -> Vec<Change> {
        self.files
            .iter()
            .filter_map(|(path, entry)| match &entry.current {
                Some(after) if entry.original.as_ref() != Some(after) => {
                    Some(Change { path: path.clone(), before: entry.original.clone(), after: after.clone() })
                }
                _ => None,
            })
            .collect()
    }

    /// Forgets the edits since `snapshot` (an operation that failed validation leaves no trace).
    pub(crate) fn snapshot(&self) -> BTreeMap<String, Option<String>> {
        self.files.iter().map(|(path, entry)| (path.clone(), entry.current.clone())).collect()
    }

    /// Restores the contents of [`Workspace::snapshot`] (files first read after it keep their disk content).
    pub(crate) fn restore(&mut self, snapshot: BTreeMap<String, Option<String>>) {
        for (path, entry) in &mut self.files {
            entry.current = match snapshot.get(path) {
                Some(current) => current.clone(),
                None => entry.original.clone(),
            };
        }
        self.touched.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlinks_out_of_the_project_are_refused() {
        let base = std::env::temp_dir().join(format!("viewset-resolve-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("project/src")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        let root = base.join("project").canonicalize().unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(base.join("outside"), root.join("src/entities")).unwrap();
            std::os::unix::fs::symlink(root.join("src"), root.join("inside")).unwrap();
            std::os::unix::fs::symlink(base.join("missing"), root.join("dangling")).unwrap();
            assert!(matches!(resolve(&root, "src/entities/x.rs"), Err(CodegenError::OutsideProject(_))));
            assert_eq!(resolve(&root, "inside/a.rs").unwrap(), root.join("src/a.rs"));
            assert!(matches!(resolve(&root, "dangling/a.rs"), Err(CodegenError::OutsideProject(_))));
        }
        for bad in ["src/../../x", "./src/a.rs", "", "/tmp/x", "src\\..\\x"] {
            assert!(matches!(resolve(&root, bad), Err(CodegenError::OutsideProject(_))), "{bad}");
        }
        assert_eq!(resolve(&root, "src/new/dir/a.rs").unwrap(), root.join("src/new/dir/a.rs"));
        std::fs::remove_dir_all(&base).unwrap();
    }
}
