//! `viewset migrate status|up [n]|down [n]`: the project's migrations listed, applied or rolled back, on the
//! database the project's server uses (`DATABASE_URL`, else its default). The project runs them itself: its
//! `main.rs` (as `viewset new` writes it) answers `cargo run -- migrate ...` with its own `Migrator`, so the
//! migrations are the compiled ones, exactly those the server applies at start-up.

use std::path::Path;
use std::process::Command;

/// What `viewset migrate` does.
#[derive(Debug, Clone, PartialEq, Eq, clap::Subcommand)]
pub enum Migrate {
    /// Every migration, `applied` or `pending`, in order.
    Status,
    /// Applies the pending migrations (the first `n` of them with `n`).
    Up {
        /// How many to apply (default: all).
        n: Option<u32>,
    },
    /// Rolls back the last `n` applied migrations (default 1).
    Down {
        /// How many to roll back (default 1).
        n: Option<u32>,
    },
}

impl Migrate {
    /// The arguments the project's binary reads after `migrate`.
    ///
    /// ```text
    /// viewset migrate down 2   # runs `cargo run --quiet -- migrate down 2` in the project
    /// ```
    pub fn arguments(&self) -> Vec<String> {
        let (what, n) = match self {
            Migrate::Status => ("status", None),
            Migrate::Up { n } => ("up", *n),
            Migrate::Down { n } => ("down", Some(n.unwrap_or(1))),
        };
        std::iter::once(what.to_string()).chain(n.map(|n| n.to_string())).collect()
    }
}

/// Why the project in `dir` cannot run its migrations from the command line, if it cannot.
fn check(dir: &Path) -> Result<(), String> {
    let main = std::fs::read_to_string(dir.join("src/main.rs")).map_err(|_| {
        format!("{} has no src/main.rs: run `viewset migrate` in a project `viewset new` wrote", dir.display())
    })?;
    if !main.contains("\"migrate\"") || !dir.join("src/migration.rs").is_file() {
        return Err(format!(
            "{}/src/main.rs does not answer `migrate` (a project written before `viewset migrate` existed): call \
             `{{lib}}::migrate(&url, &args)` from main as `viewset new` writes it now, or run \
             `Migrator::up`/`down` yourself",
            dir.display()
        ));
    }
    Ok(())
}

/// Runs `cargo run --quiet -- migrate <what>` in the project `dir` (cargo's own output on stderr) and answers
/// what the project printed, one migration a line:
///
/// ```text
/// applied  m20261128_000001_viewset_idempotency
/// pending  m20261207_000002_create_category
/// ```
pub fn run(dir: &Path, what: &Migrate) -> Result<String, String> {
    check(dir)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(&cargo)
        .args(["run", "--quiet", "--", "migrate"])
        .args(what.arguments())
        .current_dir(dir)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("`{cargo} run` in {}: {e}", dir.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout).trim_end().to_string();
    if output.status.success() {
        Ok(stdout)
    } else {
        Err(format!(
            "the project's `migrate {}` failed{}",
            what.arguments().join(" "),
            if stdout.is_empty() { String::new() } else { format!(":\n{stdout}") }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_and_old_projects() {
        assert_eq!(Migrate::Status.arguments(), ["status"]);
        assert_eq!(Migrate::Up { n: None }.arguments(), ["up"]);
        assert_eq!(Migrate::Up { n: Some(2) }.arguments(), ["up", "2"]);
        assert_eq!(Migrate::Down { n: None }.arguments(), ["down", "1"]);
        let dir = std::env::temp_dir().join(format!("viewset-migrate-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        assert!(run(&dir, &Migrate::Status).unwrap_err().contains("has no src/main.rs"));
        std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
        assert!(run(&dir, &Migrate::Status).unwrap_err().contains("does not answer `migrate`"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
