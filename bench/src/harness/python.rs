//! The Python original's virtualenv.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The Python side: `bench/.venv` (made by run.sh) and the app the bench owns.
#[derive(Debug, Clone)]
pub struct Python {
    pub python: PathBuf,
    pub app_dir: PathBuf,
    pub ddl: String,
    pub versions: Value,
}

pub(super) fn python_setup(venv: &Path, root: &Path) -> Result<Python, String> {
    let python = venv.join("bin/python");
    if !python.exists() {
        return Err(format!("{} is missing (run.sh creates it)", python.display()));
    }
    let app_dir = root.join("bench/python");
    let out = Command::new(&python)
        .arg(app_dir.join("benchapp.py"))
        .arg("--print-ddl")
        .env("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/unused")
        .env("AKSARA_TASKS_ENABLED", "false")
        .output()
        .map_err(|e| format!("run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!("benchapp.py --print-ddl failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let ddl = String::from_utf8_lossy(&out.stdout).to_string();
    let versions = Command::new(&python)
        .args([
            "-c",
            "import json, sys, importlib.metadata as m\n\
             v = {'python': sys.version.split()[0]}\n\
             for p in ['aksara-framework', 'uvicorn', 'uvloop', 'httptools', 'fastapi', 'asyncpg', 'pydantic']:\n\
             \x20   try: v[p] = m.version(p)\n\
             \x20   except Exception: v[p] = None\n\
             print(json.dumps(v))",
        ])
        .output()
        .ok()
        .and_then(|o| serde_json::from_slice(&o.stdout).ok())
        .unwrap_or(Value::Null);
    Ok(Python { python, app_dir, ddl, versions })
}
