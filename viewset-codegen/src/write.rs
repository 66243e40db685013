//! Applying a preview: every file it read must still have the content it had (else 409), every path is resolved
//! inside the project again, and each file is written atomically (a temporary file in the same directory, synced,
//! then renamed over the target). When a write fails midway, the files already written are put back.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::checksum::sha256_hex;
use super::errors::CodegenError;
use super::workspace::resolve;
use super::{FileChange, Preview};

/// The SHA-256 of `path` now (`None`: absent).
fn current_sha(real: &Path, relative: &str) -> Result<Option<String>, CodegenError> {
    match std::fs::read(real) {
        Ok(bytes) => Ok(Some(sha256_hex(&bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CodegenError::Io(format!("cannot read `{relative}`: {e}"))),
    }
}

/// The files of `preview` whose content changed since it was computed (each path resolved safely first).
pub(crate) fn changed_files(root: &Path, preview: &Preview) -> Result<Vec<String>, CodegenError> {
    let mut changed = Vec::new();
    for (relative, sha) in &preview.inputs {
        let real = resolve(root, relative)?;
        if current_sha(&real, relative)? != *sha {
            changed.push(relative.clone());
        }
    }
    Ok(changed)
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `text` to `real` through a temporary file in the same directory and a rename.
fn write_atomically(real: &Path, text: &str) -> std::io::Result<()> {
    let dir = real.parent().ok_or_else(|| std::io::Error::other("no parent directory"))?;
    std::fs::create_dir_all(dir)?;
    let name = real.file_name().unwrap_or_default().to_string_lossy();
    let temp =
        dir.join(format!(".{name}.viewset-{}-{}.tmp", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, real)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Writes the files of `preview` into `root` when nothing it read has changed; answers the files written.
pub(crate) fn apply(root: &Path, preview: &Preview) -> Result<Vec<FileChange>, CodegenError> {
    // Resolve every target first: nothing is written when one leads out of the project.
    let targets: Vec<(PathBuf, &FileChange)> =
        preview.files.iter().map(|f| resolve(root, &f.path).map(|real| (real, f))).collect::<Result<_, _>>()?;
    let changed = changed_files(root, preview)?;
    if !changed.is_empty() {
        return Err(CodegenError::Changed(changed));
    }
    let mut done: Vec<(&PathBuf, &FileChange)> = Vec::new();
    for (real, file) in &targets {
        if let Err(e) = write_atomically(real, &file.after) {
            for (real, file) in done.into_iter().rev() {
                let _ = match &file.before {
                    Some(before) => write_atomically(real, before),
                    None => std::fs::remove_file(real),
                };
            }
            return Err(CodegenError::Io(format!(
                "writing `{}` failed ({e}); the files written before it were restored",
                file.path
            )));
        }
        done.push((real, file));
    }
    Ok(preview.files.clone())
}
