//! `viewset-bench run`: every server on its own freshly seeded database, one at a time, the same workloads at the
//! same concurrency levels, then `bench/results/latest.json` and the results section of `BENCHMARKS.md` (with
//! `--database mariadb`: the Rust servers on MariaDB, `bench/results/mariadb.json` and the MariaDB section).

pub(crate) mod db;
mod db_mysql;
mod environment;
mod live;
pub(crate) mod load;
mod measure;
mod options;
pub(crate) mod procs;
mod python;
mod report;
mod sanity;
mod workload;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use environment::*;
use live::{Live, start_server};
use load::WrkSummary;
use measure::measure_all;
pub use options::Options;
use python::*;
use workload::*;

use crate::repo::repo_root;

/// One measured run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResult {
    pub server: String,
    pub workload: Workload,
    pub concurrency: u32,
    pub round: u32,
    pub rps: f64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub errors: u64,
    pub peak_rss_kib: u64,
    /// `RssAnon` and `RssFile` right after the run (0 in results from before they were recorded).
    #[serde(default)]
    pub rss_anon_kib: u64,
    #[serde(default)]
    pub rss_file_kib: u64,
    /// CPU time per request during the run (µs): the server's process tree, every database process, wrk.
    #[serde(default)]
    pub cpu_us: Option<CpuPerRequest>,
    pub wrk: WrkSummary,
}

/// Where the CPU time of a run went, per completed request (µs).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct CpuPerRequest {
    pub server: f64,
    /// The part of `server` spent in user mode (absent in results from before it was recorded).
    #[serde(default)]
    pub server_user: Option<f64>,
    /// The database server's processes (PostgreSQL's, or MariaDB's; the field keeps its first name).
    pub postgres: f64,
    pub wrk: f64,
}

/// What a server answered to one request of each kind before the load (same data → same answers).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Sanity {
    pub server: String,
    pub checks: Vec<(String, String)>,
    pub list_count: Option<u64>,
    pub list_keys: Option<String>,
    pub deep_offset_first: Option<String>,
    pub deep_cursor_first: Option<String>,
    pub deep_cursor_url: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerInfo {
    pub name: String,
    pub label: String,
    /// Set by earlier versions of the harness (extra server configurations); kept so old results still load.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub variant: bool,
    pub idle_rss_kib: u64,
    /// `RssAnon` and `RssFile` at idle, after start.
    #[serde(default)]
    pub idle_rss_split_kib: (u64, u64),
    pub error: Option<String>,
}

/// `viewset-bench report`: renders the Markdown section again from a results file (no measurement).
pub fn rerender(args: &[String]) -> Result<(), String> {
    let root = repo_root();
    let mut from = root.join("bench/results/latest.json");
    let mut md = root.join("BENCHMARKS.md");
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--from" => from = PathBuf::from(it.next().ok_or("--from takes a file")?),
            "--markdown" => md = PathBuf::from(it.next().ok_or("--markdown takes a file")?),
            other => return Err(format!("unknown option `{other}`\n{}", crate::USAGE)),
        }
    }
    let text = std::fs::read_to_string(&from).map_err(|e| format!("{}: {e}", from.display()))?;
    let results: report::Results = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", from.display()))?;
    let full = from.with_extension("md");
    report::write_markdown(&md, &full, &results)?;
    eprintln!("wrote {} and {}", md.display(), full.display());
    Ok(())
}

pub fn run(options: Options) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(run_async(options))
}

/// The load averages of `/proc/loadavg` (1, 5, 15 minutes).
pub(crate) fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

async fn run_async(o: Options) -> Result<(), String> {
    let started = Instant::now();
    let date = chrono::Utc::now();
    let load_before = loadavg();
    let root = repo_root();
    let tmp = root.join(format!("bench/results/tmp-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let admin = db::Store::admin(o.backend, o.db_url()).await?;
    let db_version = admin.version().await;
    // MariaDB's commits stop waiting for the disk for the run (PostgreSQL's databases: `synchronous_commit = off`).
    let flush = match &admin {
        db::Store::My(pool) => Some(db_mysql::relax_flush(pool).await?),
        db::Store::Pg(_) => None,
    };
    let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().map_err(|e| e.to_string())?;

    let python = match &o.python_venv {
        Some(venv) => python_setup(venv, &root),
        None => Err("skipped (--no-python)".to_string()),
    };
    // Before any measurement: the work tree may change while the run goes on.
    let versions = versions(&root, o.backend, &db_version, python.as_ref().ok());
    let mut specs = specs(o.backend);
    if let Some(only) = &o.servers {
        specs.retain(|s| only.iter().any(|n| n == s.name));
    }

    // Every server on its own fresh database, all started before any load so that runs can be interleaved.
    let mut servers = Vec::new();
    let mut live: Vec<Live> = Vec::new();
    for (index, spec) in specs.iter().enumerate() {
        let port = 18_100 + index as u16;
        eprintln!("== start {} ({}) on port {port}", spec.name, spec.label);
        let mut info = ServerInfo {
            name: spec.name.into(),
            label: spec.label.into(),
            variant: false,
            idle_rss_kib: 0,
            idle_rss_split_kib: (0, 0),
            error: None,
        };
        if let (Family::Python { .. }, Err(e)) = (spec.family, &python) {
            info.error = Some(format!("not run: {e}"));
            eprintln!("   skipped: {e}");
        } else {
            match start_server(&o, spec, port, &exe, python.as_ref().ok(), &admin, &client, &tmp).await {
                Ok(l) => {
                    info.idle_rss_kib = l.server.rss_kib();
                    info.idle_rss_split_kib = l.server.rss_split_kib();
                    live.push(l);
                }
                Err(e) => {
                    eprintln!("   FAILED: {e}");
                    info.error = Some(e);
                }
            }
        }
        servers.push(info);
    }

    let mut runs = Vec::new();
    // A run that stopped part-way is not a result: its partial figures go to `<out>.failed.json`, BENCHMARKS.md
    // keeps the last complete run, the servers' logs stay in `tmp`, and the command fails.
    let stopped = measure_all(&o, &mut live, &tmp, &client, &mut runs).await.err();
    if let Some(e) = &stopped {
        eprintln!("measurement stopped: {e}");
    }
    let mut sanity = Vec::new();
    for l in live {
        sanity.push(l.sanity);
        l.server.stop();
        l.pool.close().await;
        let _ = admin.drop_db(&l.db_name).await;
    }
    if let (db::Store::My(pool), Some(previous)) = (&admin, flush) {
        db_mysql::set_flush(pool, previous).await?;
    }
    if stopped.is_none() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    let load_after_load = loadavg();

    let compile = if stopped.is_some() {
        json!({ "skipped": "the measurement stopped" })
    } else if o.compile {
        // Cargo's default dev profile (a hand-written app's), then the one `viewset new` writes.
        let mut both = json!({});
        for (key, profile) in [("default", crate::compile::Profile::Default), ("new", crate::compile::Profile::New)] {
            eprintln!("== compile cost ({key} dev profile)");
            let options = crate::compile::Options { profile, ..Default::default() };
            both[key] = crate::compile::measure(&options).await.unwrap_or_else(|e| json!({ "error": e }));
        }
        both
    } else {
        json!({ "skipped": "--no-compile" })
    };

    let results = report::Results {
        date: date.to_rfc3339(),
        elapsed_s: started.elapsed().as_secs_f64(),
        command: o.command_line.clone(),
        machine: machine(&load_before, &load_after_load),
        versions,
        config: json!({
            "database": o.backend.name(),
            "duration_s": o.duration.as_secs(),
            "warmup_s": o.warmup.as_secs(),
            "rounds": o.rounds,
            "levels": o.levels,
            "rows": o.rows,
            "deep_rows": o.deep_rows,
            "deep_offset": o.deep_offset(),
            "list_query": LIST_QUERY,
            "list_plain_query": LIST_PLAIN_QUERY,
            "load_generator": "wrk -t1 (one thread), keep-alive connections = concurrency",
            "error": stopped,
        }),
        servers,
        runs,
        sanity,
        compile,
    };
    let json = results.to_json();
    let out = if stopped.is_some() { o.out.with_extension("failed.json") } else { o.out.clone() };
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(&out, serde_json::to_string_pretty(&json).map_err(|e| e.to_string())? + "\n")
        .map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("wrote {}", out.display());
    println!("{}", report::summary_table(&results));
    if stopped.is_some() {
        return Err(format!(
            "the measurement stopped (why: above); {} and the results section were left as they were, the servers' \
             logs are in {}",
            o.out.display(),
            tmp.display()
        ));
    }
    if let Some(md) = &o.markdown {
        let full = o.out.with_extension("md");
        report::write_markdown(md, &full, &results)?;
        eprintln!("wrote {} and {}", md.display(), full.display());
    }
    Ok(())
}
