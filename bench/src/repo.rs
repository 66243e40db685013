//! Where the repository is: the measurements build and run its crates.

use std::path::{Path, PathBuf};

/// The repository root (the bench crate's parent).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}
