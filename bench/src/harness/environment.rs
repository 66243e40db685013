//! The machine, versions and source the results were measured on.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use super::load;
use super::options::Backend;
use super::python::Python;

pub(super) fn machine(load_before: &str, load_after: &str) -> Value {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_kib: u64 = meminfo
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    json!({
        "cores": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "cpu": cpu,
        "memory_gib": (mem_kib as f64 / 1024.0 / 1024.0 * 10.0).round() / 10.0,
        "kernel": std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim(),
        "loadavg_before": load_before,
        "loadavg_after_load_tests": load_after,
    })
}

pub(super) fn command_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The source the servers were built from: `BENCH_VIEWSET_SOURCE` (run.sh records it just before building), else
/// the work tree now.
pub(super) fn viewset_source(root: &Path) -> String {
    if let Ok(source) = std::env::var("BENCH_VIEWSET_SOURCE")
        && !source.trim().is_empty()
    {
        return source.trim().to_string();
    }
    let root_s = root.to_string_lossy().to_string();
    let commit = command_line("git", &["-C", &root_s, "rev-parse", "--short", "HEAD"]);
    let dirty = !command_line(
        "git",
        &["-C", &root_s, "status", "--porcelain", "--", "viewset-core", "viewset-derive", "examples/blog"],
    )
    .is_empty();
    format!("{commit}{}", if dirty { " + uncommitted changes in viewset-core/viewset-derive/blog" } else { "" })
}

/// Versions of everything measured: crates from Cargo.lock, tools, the Python packages, the viewset commit.
pub(super) fn versions(root: &Path, backend: Backend, database: &str, python: Option<&Python>) -> Value {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
    let crate_version = |name: &str| {
        let needle = format!("name = \"{name}\"\nversion = \"");
        lock.find(&needle).map(|i| {
            let rest = &lock[i + needle.len()..];
            rest[..rest.find('"').unwrap_or(0)].to_string()
        })
    };
    let mut versions = json!({
        "viewset": viewset_source(root),
        "rustc": command_line("rustc", &["-V"]),
        "axum": crate_version("axum"),
        "sea-orm": crate_version("sea-orm"),
        "sqlx": crate_version("sqlx"),
        "tokio": crate_version("tokio"),
        "wrk": load::version(),
        "python": python.map(|p| p.versions.clone()).unwrap_or(Value::Null),
    });
    // `postgresql` (the key results have always had), or `mariadb`.
    let key = if backend == Backend::Postgres { "postgresql" } else { backend.name() };
    versions[key] = database.into();
    versions
}
