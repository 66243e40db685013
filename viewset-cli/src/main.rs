//! `viewset`: starts a project and grows it. `viewset new <name>` writes a project that builds and serves with no
//! edits; `viewset generate resource|field|migration` adds to it with the code generator Studio's `/ai/codegen`
//! endpoints use (the `viewset-codegen` crate).
//!
//! ```text
//! cargo install --path viewset-cli                   # once: puts `viewset` on PATH
//! viewset new shop                                    # SQLite; --postgres, --mysql; --resource products
//! cd shop && viewset generate resource category name:string
//! viewset generate resource product name:string price:f64 category_id:references:category tags:many_to_many:items
//! viewset migrate status                              # or: up [n], down [n]
//! API_TOKEN=change-me cargo run                       # GET http://127.0.0.1:3000/api/products/?expand=category
//! ```

mod generate;
mod migrate;
mod names;
mod project;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Starts a viewset project and grows it.
#[derive(Parser)]
#[command(name = "viewset", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Writes a new project in `<dir>/<name>`, serving its first resource at `/api/<plural of resource>/`.
    New {
        /// The crate's name: lowercase letters, digits, `-` and `_`, starting with a letter (e.g. `shop`).
        name: String,
        /// The first resource (table, module and URL segment), in snake_case.
        #[arg(long, default_value = project::DEFAULT_RESOURCE)]
        resource: String,
        /// PostgreSQL instead of the embedded SQLite file (the database is created at the first start if missing).
        #[arg(long, conflicts_with = "mysql")]
        postgres: bool,
        /// MariaDB / MySQL instead of the embedded SQLite file (the database is created, `utf8mb4`, at the first
        /// start if missing).
        #[arg(long)]
        mysql: bool,
        /// Where to create the project's directory.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// A viewset checkout to depend on by path; default: the checkout this command was built from when it was
        /// (`cargo install --path viewset-cli`), else the published `viewset-core` of this command's version.
        #[arg(long)]
        viewset: Option<PathBuf>,
    },
    /// Lists, applies or rolls back the project's migrations (run by the project itself: `cargo run -- migrate`), on
    /// the database its server uses (`DATABASE_URL`, else the project's default).
    Migrate {
        #[command(subcommand)]
        what: migrate::Migrate,
        /// The project's directory (written by `viewset new`).
        #[arg(long, global = true, default_value = ".")]
        project: PathBuf,
    },
    /// Adds to the project in the current directory (or --project): prints what it wrote, or the diff with --dry-run.
    Generate {
        #[command(subcommand)]
        what: Generate,
        /// Print the diff and write nothing.
        #[arg(long, global = true)]
        dry_run: bool,
        /// The project's directory (laid out as `viewset new` writes it).
        #[arg(long, global = true, default_value = ".")]
        project: PathBuf,
    },
}

#[derive(Subcommand)]
enum Generate {
    /// A table: entity, its migration file, a ViewSet with allowlists, its registration and a test.
    Resource {
        /// The table (snake_case, e.g. `product`): also the module; served at `/api/<plural>/` (`/api/products/`).
        name: String,
        /// `<name>:<type>` each, `?` for nullable, `=<value>` for a default; types: string (at most 255
        /// characters), text, i32, i64, f64, decimal (DECIMAL(19, 4): 15 digits before the point, 4 after; a JSON
        /// string), bool, date, datetime, uuid, json, `references:<resource>` (a foreign key, declared on both
        /// sides), `many_to_many:<resource>` (`tags:many_to_many:tag`: a join table, declared on both sides).
        #[arg(required = true)]
        fields: Vec<String>,
    },
    /// A column on an existing resource: its migration, the entity's field and the ViewSet's allowlists.
    Field {
        /// The resource (table).
        resource: String,
        /// `<name>:<type>`, nullable (`?`) or with a default (`=<value>`): existing rows need a value.
        field: String,
        /// The ViewSet to add it to (default: `<Resource>ViewSet`).
        #[arg(long)]
        viewset: Option<String>,
    },
    /// An empty migration in its own file, registered, for a change written by hand.
    Migration {
        /// What it does, in snake_case (e.g. `add_index_on_name`).
        name: String,
    },
}

/// The viewset checkout this command was built from, when it was built from one that is still there (installed
/// from a registry, its sources have no `viewset-core` folder beside them).
fn built_from_checkout() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    root.join("viewset-core").join("Cargo.toml").is_file().then_some(root)
}

fn new(
    name: &str,
    resource: &str,
    database: project::Database,
    dir: &std::path::Path,
    viewset: Option<PathBuf>,
) -> Result<String, String> {
    let viewset = viewset.or_else(built_from_checkout);
    let date = viewset_codegen::today_utc();
    let path = project::Project::new(name, resource, database, viewset.as_deref(), &date)?.write(dir)?;
    let path = path.display();
    Ok(format!(
        "created {path}\nnext: cd {path} && API_TOKEN=change-me cargo run\nthen: curl http://127.0.0.1:3000/api/{}/",
        viewset_codegen::plural(resource)
    ))
}

fn generate(what: Generate, dry_run: bool, project: &std::path::Path) -> Result<String, String> {
    let (operations, arguments) = match what {
        Generate::Resource { name, fields } => {
            let parsed = fields.iter().map(|f| generate::parse_argument(f)).collect::<Result<Vec<_>, _>>()?;
            let arguments: Vec<String> = std::iter::once(name.clone()).chain(fields).collect();
            (generate::resource(&name, parsed), arguments)
        }
        Generate::Field { resource, field, viewset } => {
            if field.contains(":many_to_many:") {
                return Err(format!(
                    "`{field}`: `generate field` adds a column; a many-to-many relation comes with a new resource \
                     (`generate resource <name> {field}`)"
                ));
            }
            let column = generate::parse_field(&field)?;
            let viewset = viewset.unwrap_or_else(|| format!("{}ViewSet", pascal(&resource)));
            (generate::field(&resource, &viewset, column), vec![resource, field])
        }
        Generate::Migration { name } => (generate::migration(&name), vec![name]),
    };
    generate::run(project, &operations, dry_run, &arguments)
}

/// `order_lines` → `OrderLines`.
fn pascal(snake: &str) -> String {
    snake.split('_').map(|w| w[..w.len().min(1)].to_ascii_uppercase() + &w[w.len().min(1)..]).collect()
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::New { name, resource, postgres, mysql, dir, viewset } => {
            let database = match (postgres, mysql) {
                (true, _) => project::Database::Postgres,
                (_, true) => project::Database::Mysql,
                _ => project::Database::Sqlite,
            };
            new(&name, &resource, database, &dir, viewset)
        }
        Command::Generate { what, dry_run, project } => generate(what, dry_run, &project),
        Command::Migrate { what, project } => migrate::run(&project, &what),
    };
    match result {
        Ok(output) => {
            println!("{output}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
