//! `viewset`: the project starter. `viewset new <name>` writes a project that builds and serves with no edits:
//! `Cargo.toml`, an entity, its migration, a ViewSet, `main`, and a test.
//!
//! ```text
//! cargo run -p viewset-cli -- new books            # SQLite (a file next to the binary's working directory)
//! cargo run -p viewset-cli -- new books --postgres # PostgreSQL (DATABASE_URL)
//! cd books && API_TOKEN=change-me cargo run        # GET http://127.0.0.1:3000/api/books/
//! ```

mod project;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The viewset project starter.
#[derive(Parser)]
#[command(name = "viewset", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Writes a new project in `<dir>/<name>`: its API serves `/api/<name>/`.
    New {
        /// The crate's name: lowercase letters, digits, `-` and `_`, starting with a letter (e.g. `books`).
        name: String,
        /// PostgreSQL instead of the embedded SQLite file.
        #[arg(long)]
        postgres: bool,
        /// Where to create the project's directory.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// The viewset checkout to depend on (viewset is not on crates.io yet); default: the one this command was
        /// built from.
        #[arg(long)]
        viewset: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let Command::New { name, postgres, dir, viewset } = Cli::parse().command;
    let viewset = viewset.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".."));
    let result = project::Project::new(&name, postgres, &viewset).and_then(|project| project.write(&dir));
    match result {
        Ok(path) => {
            println!("created {}", path.display());
            println!("next: cd {} && API_TOKEN=change-me cargo run", path.display());
            println!("then: curl http://127.0.0.1:3000/api/{}/", project::table_name(&name));
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
