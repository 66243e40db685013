//! The harness's command-line options.

use std::path::PathBuf;
use std::time::Duration;

use crate::repo::repo_root;

/// Options of `run`.
#[derive(Debug, Clone)]
pub struct Options {
    pub pg: String,
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
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--pg" => o.pg = it.next().cloned().ok_or("--pg takes a URL")?,
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
                "--out" => o.out = PathBuf::from(it.next().ok_or("--out takes a file")?),
                "--markdown" => o.markdown = Some(PathBuf::from(it.next().ok_or("--markdown takes a file")?)),
                "--no-markdown" => o.markdown = None,
                "--no-compile" => o.compile = false,
                other => return Err(format!("unknown option `{other}`\n{}", crate::USAGE)),
            }
        }
        if o.deep_rows < 200 || o.rows < 1 {
            return Err("--rows must be ≥ 1 and --deep-rows ≥ 200".into());
        }
        Ok(o)
    }

    pub(super) fn deep_offset(&self) -> u64 {
        self.deep_rows / 2 / 100 * 100
    }
}
