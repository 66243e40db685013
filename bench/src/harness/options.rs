//! The harness's command-line options.

use std::path::PathBuf;
use std::time::Duration;

use crate::repo::repo_root;

/// The database server the servers of a run use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// PostgreSQL (`--pg URL`): every server.
    Postgres,
    /// MariaDB (`--mysql URL`): viewset against the hand-written axum + sqlx MySQL-driver server.
    Mariadb,
}

impl Backend {
    /// The value of `--database`, and of `"database"` in a results file.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Postgres => "postgres",
            Backend::Mariadb => "mariadb",
        }
    }

    /// The server's name in prose.
    pub fn title(self) -> &'static str {
        match self {
            Backend::Postgres => "PostgreSQL",
            Backend::Mariadb => "MariaDB",
        }
    }

    /// The command name (`/proc/PID/comm`) of the server's processes, whose CPU time a run records.
    pub fn process(self) -> &'static str {
        match self {
            Backend::Postgres => "postgres",
            Backend::Mariadb => "mariadbd",
        }
    }

    /// The backend named `name` (`postgres` when absent, as in results from before MariaDB runs).
    pub fn parse(name: Option<&str>) -> Result<Backend, String> {
        match name {
            None | Some("postgres") | Some("postgresql") => Ok(Backend::Postgres),
            Some("mariadb") | Some("mysql") => Ok(Backend::Mariadb),
            Some(other) => Err(format!("unknown database `{other}` (postgres, mariadb)")),
        }
    }
}

/// Options of `run`.
#[derive(Debug, Clone)]
pub struct Options {
    pub backend: Backend,
    pub pg: String,
    pub mysql: String,
    pub duration: Duration,
    pub warmup: Duration,
    pub levels: Vec<u32>,
    pub rounds: u32,
    pub rows: u64,
    pub deep_rows: u64,
    pub python_venv: Option<PathBuf>,
    pub servers: Option<Vec<String>>,
    pub out: PathBuf,
    pub markdown: Option<PathBuf>,
    pub compile: bool,
    pub command_line: String,
}

impl Options {
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let root = repo_root();
        let mut o = Options {
            backend: Backend::Postgres,
            mysql: std::env::var("BENCH_MYSQL_URL").unwrap_or_else(|_| "mysql://root@127.0.0.1:3306".into()),
            pg: std::env::var("BENCH_PG_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432".into()),
            duration: Duration::from_secs(2),
            warmup: Duration::from_secs(1),
            levels: vec![1, 16, 64],
            rounds: 1,
            rows: 5_000,
            deep_rows: 20_000,
            python_venv: Some(root.join("bench/.venv")),
            servers: None,
            out: root.join("bench/results/latest.json"),
            markdown: Some(root.join("BENCHMARKS.md")),
            compile: true,
            command_line: std::env::var("BENCH_COMMAND").unwrap_or_else(|_| "bash bench/run.sh".into()),
        };
        let mut it = args.iter();
        let secs = |v: Option<&String>, name: &str| -> Result<Duration, String> {
            v.and_then(|s| s.parse::<u64>().ok()).map(Duration::from_secs).ok_or(format!("{name} takes seconds"))
        };
        let mut out_given = false;
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--database" => o.backend = Backend::parse(Some(it.next().ok_or("--database takes a name")?))?,
                "--pg" => o.pg = it.next().cloned().ok_or("--pg takes a URL")?,
                "--mysql" => o.mysql = it.next().cloned().ok_or("--mysql takes a URL")?,
                "--duration" => o.duration = secs(it.next(), "--duration")?,
                "--warmup" => o.warmup = secs(it.next(), "--warmup")?,
                "--levels" => {
                    o.levels = it
                        .next()
                        .ok_or("--levels takes e.g. 1,16,64")?
                        .split(',')
                        .map(|s| s.trim().parse::<u32>().map_err(|e| format!("--levels: {e}")))
                        .collect::<Result<_, _>>()?
                }
                "--rounds" => {
                    o.rounds = it
                        .next()
                        .and_then(|s| s.parse().ok())
                        .filter(|r| *r > 0)
                        .ok_or("--rounds takes a number ≥ 1")?
                }
                "--rows" => o.rows = it.next().and_then(|s| s.parse().ok()).ok_or("--rows takes a number")?,
                "--deep-rows" => {
                    o.deep_rows = it.next().and_then(|s| s.parse().ok()).ok_or("--deep-rows takes a number")?
                }
                "--python-venv" => o.python_venv = Some(PathBuf::from(it.next().ok_or("--python-venv takes a dir")?)),
                "--no-python" => o.python_venv = None,
                "--servers" => {
                    o.servers = Some(it.next().ok_or("--servers takes names")?.split(',').map(str::to_string).collect())
                }
                "--out" => {
                    o.out = PathBuf::from(it.next().ok_or("--out takes a file")?);
                    out_given = true;
                }
                "--markdown" => o.markdown = Some(PathBuf::from(it.next().ok_or("--markdown takes a file")?)),
                "--no-markdown" => o.markdown = None,
                "--no-compile" => o.compile = false,
                other => return Err(format!("unknown option `{other}`\n{}", crate::USAGE)),
            }
        }
        if o.backend == Backend::Mariadb {
            // Only the Rust servers run on MariaDB; the compile cost does not depend on the database.
            o.python_venv = None;
            o.compile = false;
            if !out_given {
                o.out = root.join("bench/results/mariadb.json");
            }
        }
        if o.deep_rows < 200 || o.rows < 1 {
            return Err("--rows must be ≥ 1 and --deep-rows ≥ 200".into());
        }
        Ok(o)
    }

    /// The URL of the database server the run uses (`--pg` or `--mysql`).
    pub(super) fn db_url(&self) -> &str {
        match self.backend {
            Backend::Postgres => &self.pg,
            Backend::Mariadb => &self.mysql,
        }
    }

    pub(super) fn deep_offset(&self) -> u64 {
        self.deep_rows / 2 / 100 * 100
    }
}
