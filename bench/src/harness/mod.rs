//! `viewset-bench run`: every server on its own freshly seeded database, one at a time, the same workloads at the
//! same concurrency levels, then `bench/results/latest.json` and the results section of `BENCHMARKS.md`.

mod db;
mod load;
mod procs;
mod report;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use load::{Requests, WrkSummary};
use procs::Server;

/// The repository root (the bench crate's parent).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

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
            rounds: 2,
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

    fn deep_offset(&self) -> u64 {
        self.deep_rows / 2 / 100 * 100
    }
}

/// The workloads, in the order they run on each server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Workload {
    Retrieve,
    List,
    ListPlain,
    Patch,
    Create,
    DeepOffset,
    DeepCursor,
}

impl Workload {
    pub const ALL: [Workload; 7] = [
        Workload::Retrieve,
        Workload::List,
        Workload::ListPlain,
        Workload::Patch,
        Workload::Create,
        Workload::DeepOffset,
        Workload::DeepCursor,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Workload::Retrieve => "retrieve",
            Workload::List => "list",
            Workload::ListPlain => "list_plain",
            Workload::Patch => "patch",
            Workload::Create => "create",
            Workload::DeepOffset => "deep_offset",
            Workload::DeepCursor => "deep_cursor",
        }
    }
    fn deep(self) -> bool {
        matches!(self, Workload::DeepOffset | Workload::DeepCursor)
    }
}

/// The list workload's query: a filter, a search and an ordering, a page of 20.
pub const LIST_QUERY: &str = "?published=true&search=a&ordering=-views&limit=20";
/// The same without the search (whose `ILIKE` scans make the list database-bound): a filter and an ordering.
pub const LIST_PLAIN_QUERY: &str = "?author_id=3&ordering=-views&limit=20";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Rust(crate::RustKind),
    Python { workers: u32 },
}

/// One server configuration under test.
#[derive(Debug, Clone)]
struct Spec {
    name: &'static str,
    label: &'static str,
    family: Family,
    ping_if_idle: bool,
    list_path: &'static str,
    workloads: &'static [Workload],
    variant: bool,
}

fn specs() -> Vec<Spec> {
    use crate::RustKind::*;
    let all = &Workload::ALL;
    let rust = |name, label, kind| Spec {
        name,
        label,
        family: Family::Rust(kind),
        ping_if_idle: false,
        list_path: "/api/posts/",
        workloads: all,
        variant: false,
    };
    let python = |name, label, workers| Spec {
        name,
        label,
        family: Family::Python { workers },
        ping_if_idle: false,
        list_path: "/api/posts/",
        workloads: all,
        variant: false,
    };
    vec![
        rust("viewset", "viewset", Viewset),
        rust("seaorm", "axum + sea-orm (hand)", SeaOrm),
        rust("sqlx", "axum + sqlx (hand)", Sqlx),
        python("aksara-1w", "aksara 0.7.2, 1 worker", 1),
        python("aksara-2w", "aksara 0.7.2, 2 workers", 2),
        Spec {
            ping_if_idle: true,
            workloads: &[Workload::Retrieve, Workload::List, Workload::ListPlain],
            variant: true,
            ..rust("viewset-idleping", "viewset, pool pings only idle connections", Viewset)
        },
        Spec {
            list_path: "/api/posts-window/",
            workloads: &[Workload::List, Workload::ListPlain],
            variant: true,
            ..rust("sqlx-window", "axum + sqlx, list as one query with COUNT(*) OVER ()", Sqlx)
        },
    ]
}

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
    pub wrk: WrkSummary,
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
    pub variant: bool,
    pub idle_rss_kib: u64,
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
    report::write_markdown(&md, &results)?;
    eprintln!("wrote {}", md.display());
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

/// A server under test, running, with its database.
struct Live {
    spec: Spec,
    db_name: String,
    pool: sqlx::PgPool,
    schema: db::Schema,
    server: Server,
    uuid: bool,
    sanity: Sanity,
    cursor_url: Option<String>,
}

fn loadavg() -> String {
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
    let admin = db::connect(&format!("{}/postgres", o.pg.trim_end_matches('/'))).await?;
    let pg_version = db::server_version(&admin).await;
    let client = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().map_err(|e| e.to_string())?;

    let python = match &o.python_venv {
        Some(venv) => python_setup(venv, &root),
        None => Err("skipped (--no-python)".to_string()),
    };
    // Before any measurement: the work tree may change while the run goes on.
    let versions = versions(&root, &pg_version, python.as_ref().ok());
    let mut specs = specs();
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
            variant: spec.variant,
            idle_rss_kib: 0,
            error: None,
        };
        if let (Family::Python { .. }, Err(e)) = (spec.family, &python) {
            info.error = Some(format!("not run: {e}"));
            eprintln!("   skipped: {e}");
        } else {
            match start_server(&o, spec, port, &exe, python.as_ref().ok(), &admin, &client, &tmp).await {
                Ok(l) => {
                    info.idle_rss_kib = l.server.rss_kib();
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
    let outcome = measure_all(&o, &mut live, &tmp, &client, &mut runs).await;
    if let Err(e) = &outcome {
        eprintln!("measurement stopped: {e}");
    }
    let mut sanity = Vec::new();
    for l in live {
        sanity.push(l.sanity);
        l.server.stop();
        l.pool.close().await;
        let _ = db::drop_db(&admin, &l.db_name).await;
    }
    let _ = std::fs::remove_dir_all(&tmp);
    let load_after_load = loadavg();

    let compile = if o.compile {
        eprintln!("== compile cost");
        match crate::compile::measure(&crate::compile::Options::default()).await {
            Ok(v) => v,
            Err(e) => json!({ "error": e }),
        }
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
            "error": outcome.err(),
        }),
        servers,
        runs,
        sanity,
        compile,
    };
    let json = results.to_json();
    if let Some(dir) = o.out.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(&o.out, serde_json::to_string_pretty(&json).map_err(|e| e.to_string())? + "\n")
        .map_err(|e| format!("{}: {e}", o.out.display()))?;
    eprintln!("wrote {}", o.out.display());
    if let Some(md) = &o.markdown {
        report::write_markdown(md, &results)?;
        eprintln!("wrote {}", md.display());
    }
    println!("{}", report::summary_table(&results));
    Ok(())
}

/// The workloads in two phases (the deep pages need the larger table), each workload on every server in turn:
/// per concurrency level and round, the servers run one after another in an order that rotates, so slow
/// moments of the shared machine do not all fall on one server.
async fn measure_all(
    o: &Options,
    live: &mut [Live],
    tmp: &Path,
    client: &reqwest::Client,
    runs: &mut Vec<RunResult>,
) -> Result<(), String> {
    for workload in Workload::ALL {
        if workload.deep() && !live.is_empty() && live.iter().all(|l| l.cursor_url.is_none()) {
            eprintln!("== reseed every database with {} rows for the deep pages", o.deep_rows);
            for l in live.iter_mut() {
                db::seed(&l.pool, l.schema, o.deep_rows).await?;
                l.cursor_url = check_deep(client, &l.server.base_url(), &l.spec, o.deep_offset(), &mut l.sanity).await;
                if l.cursor_url.is_none() {
                    l.cursor_url = Some(String::new());
                }
            }
        }
        let mut scripts = Vec::new();
        for (i, l) in live.iter().enumerate() {
            if !l.spec.workloads.contains(&workload) {
                continue;
            }
            let Some(requests) = requests(o, l, workload) else {
                eprintln!("   {} {}: nothing to request, skipped", l.spec.name, workload.name());
                continue;
            };
            let script = tmp.join(format!("{}-{}.lua", l.spec.name, workload.name()));
            std::fs::write(&script, load::script(&requests)).map_err(|e| e.to_string())?;
            scripts.push((i, script));
        }
        if scripts.is_empty() {
            continue;
        }
        eprintln!("== {}", workload.name());
        if !o.warmup.is_zero() {
            for (i, script) in &scripts {
                load::run(&live[*i].server.base_url(), script, 16, o.warmup).await?;
            }
        }
        for (level_index, &c) in o.levels.iter().enumerate() {
            for round in 0..o.rounds {
                let shift = (round as usize + level_index) % scripts.len();
                for k in 0..scripts.len() {
                    let (i, script) = &scripts[(k + shift) % scripts.len()];
                    let l = &live[*i];
                    l.server.reset_peak_rss();
                    let w = load::run(&l.server.base_url(), script, c, o.duration).await?;
                    let r = RunResult {
                        server: l.spec.name.into(),
                        workload,
                        concurrency: c,
                        round,
                        rps: w.rps(),
                        p50_ms: w.p50_us as f64 / 1000.0,
                        p90_ms: w.p90_us as f64 / 1000.0,
                        p99_ms: w.p99_us as f64 / 1000.0,
                        max_ms: w.max_us as f64 / 1000.0,
                        errors: w.errors(),
                        peak_rss_kib: l.server.peak_rss_kib(),
                        wrk: w,
                    };
                    eprintln!(
                        "   {:<17} c={:<3} round {} {:>8.0} req/s  p50 {:>7.2} ms  p99 {:>7.2} ms  errors {:<5} rss {:>6.1} MiB",
                        l.spec.name,
                        c,
                        round + 1,
                        r.rps,
                        r.p50_ms,
                        r.p99_ms,
                        r.errors,
                        r.peak_rss_kib as f64 / 1024.0
                    );
                    runs.push(r);
                }
            }
        }
    }
    Ok(())
}

fn requests(o: &Options, l: &Live, workload: Workload) -> Option<Requests> {
    let uuid = l.uuid;
    Some(match workload {
        Workload::Retrieve => Requests::GetRandomId { prefix: "/api/posts/".into(), n: o.rows, uuid },
        Workload::List => Requests::Get(format!("{}{LIST_QUERY}", l.spec.list_path)),
        Workload::ListPlain => Requests::Get(format!("{}{LIST_PLAIN_QUERY}", l.spec.list_path)),
        Workload::Patch => Requests::PatchRandomId { prefix: "/api/posts/".into(), n: o.rows, uuid },
        Workload::Create => Requests::Post { path: "/api/posts/".into(), body: create_body().to_string() },
        Workload::DeepOffset => Requests::Get(format!("/api/posts/?limit=20&offset={}", o.deep_offset())),
        Workload::DeepCursor => Requests::Get(l.cursor_url.clone().filter(|u| !u.is_empty())?),
    })
}

#[allow(clippy::too_many_arguments)]
async fn start_server(
    o: &Options,
    spec: &Spec,
    port: u16,
    exe: &Path,
    python: Option<&Python>,
    admin: &sqlx::PgPool,
    client: &reqwest::Client,
    tmp: &Path,
) -> Result<Live, String> {
    let db_name = format!("vsbench_{}", spec.name.replace('-', "_"));
    let url = db::recreate(admin, &o.pg, &db_name).await?;
    let schema = match spec.family {
        Family::Rust(_) => {
            blog::connect_and_migrate(&url).await.map_err(|e| format!("migrate: {e}"))?.close().await.ok();
            db::Schema::Blog
        }
        Family::Python { .. } => {
            let pool = db::connect(&url).await?;
            let py = python.ok_or("no Python")?;
            sqlx::raw_sql(sqlx::AssertSqlSafe(py.ddl.clone()))
                .execute(&pool)
                .await
                .map_err(|e| format!("aksara DDL: {e}"))?;
            pool.close().await;
            db::Schema::Aksara
        }
    };
    let pool = db::connect(&url).await?;
    db::seed(&pool, schema, o.rows).await?;

    let log = tmp.join(format!("{}.log", spec.name));
    let command = match spec.family {
        Family::Rust(kind) => {
            let mut c = Command::new(exe);
            c.arg("serve")
                .arg(match kind {
                    crate::RustKind::Viewset => "viewset",
                    crate::RustKind::SeaOrm => "seaorm",
                    crate::RustKind::Sqlx => "sqlx",
                })
                .arg("--db")
                .arg(&url)
                .arg("--bind")
                .arg(format!("127.0.0.1:{port}"));
            if spec.ping_if_idle {
                c.arg("--ping-if-idle");
            }
            c
        }
        Family::Python { workers } => {
            let py = python.ok_or("no Python")?;
            let mut c = Command::new(&py.python);
            c.args(["-m", "uvicorn", "benchapp:app", "--app-dir"])
                .arg(&py.app_dir)
                .args(["--host", "127.0.0.1", "--port", &port.to_string(), "--workers", &workers.to_string()])
                .args(["--no-access-log", "--log-level", "warning"])
                .env("DATABASE_URL", url.replace("postgres://", "postgresql://"))
                .env("AKSARA_TASKS_ENABLED", "false");
            c
        }
    };
    let mut server = Server::start(command, port, &log)?;
    if let Err(e) = server.wait_ready(client, &format!("{}?limit=1", spec.list_path), Duration::from_secs(90)).await {
        server.stop();
        pool.close().await;
        let _ = db::drop_db(admin, &db_name).await;
        return Err(e);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let uuid = matches!(spec.family, Family::Python { .. });
    let mut sanity = Sanity { server: spec.name.into(), ..Default::default() };
    check_basics(client, &server.base_url(), spec, uuid, &mut sanity).await;
    Ok(Live { spec: spec.clone(), db_name, pool, schema, server, uuid, sanity, cursor_url: None })
}

/// The Python side: `bench/.venv` (made by run.sh) and the app the bench owns.
#[derive(Debug, Clone)]
pub struct Python {
    pub python: PathBuf,
    pub app_dir: PathBuf,
    pub ddl: String,
    pub versions: Value,
}

fn python_setup(venv: &Path, root: &Path) -> Result<Python, String> {
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

fn create_body() -> Value {
    json!({"title": "Benchmark post", "body": "Written by the load generator.", "author_id": 1, "views": 3})
}

fn detail_path(uuid: bool, i: u64) -> String {
    if uuid { format!("/api/posts/00000000-0000-0000-0000-{i:012x}") } else { format!("/api/posts/{i}") }
}

async fn get_json(client: &reqwest::Client, url: &str) -> Result<(u16, Value), String> {
    let r = client.get(url).header("Accept", "application/json").send().await.map_err(|e| e.to_string())?;
    let status = r.status().as_u16();
    let body = r.json::<Value>().await.unwrap_or(Value::Null);
    Ok((status, body))
}

async fn send(client: &reqwest::Client, method: reqwest::Method, url: &str, token: bool, body: &Value) -> String {
    let mut req = client.request(method, url).header("Accept", "application/json").json(body);
    if token {
        req = req.header("Authorization", "Bearer bob-token");
    }
    match req.send().await {
        Ok(r) => r.status().as_u16().to_string(),
        Err(e) => format!("error: {e}"),
    }
}

/// One request of each kind, recorded (not asserted): the report shows them side by side.
async fn check_basics(client: &reqwest::Client, base: &str, spec: &Spec, uuid: bool, sanity: &mut Sanity) {
    let list = format!("{base}{}{LIST_QUERY}", spec.list_path);
    match get_json(client, &list).await {
        Ok((status, body)) => {
            sanity.checks.push(("list".into(), status.to_string()));
            sanity.list_count = body.get("count").and_then(Value::as_u64);
            sanity.list_keys = body.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>().join(","));
        }
        Err(e) => sanity.checks.push(("list".into(), e)),
    }
    let detail = format!("{base}{}", detail_path(uuid, 1));
    let status = get_json(client, &detail).await.map(|(s, _)| s.to_string()).unwrap_or_else(|e| e);
    sanity.checks.push(("retrieve".into(), status));
    let patch = send(client, reqwest::Method::PATCH, &detail, true, &json!({"views": 42})).await;
    sanity.checks.push(("patch".into(), patch));
    let posts = format!("{base}/api/posts/");
    let create = send(client, reqwest::Method::POST, &posts, true, &create_body()).await;
    sanity.checks.push(("create".into(), create));
    let anonymous = send(client, reqwest::Method::POST, &posts, false, &create_body()).await;
    sanity.checks.push(("create without token".into(), anonymous));
}

/// Checks the deep offset page and walks the cursor pages (100 rows at a time) to the same depth; returns the
/// URL of the cursor page that starts at row `offset`, asking for 20 rows.
async fn check_deep(
    client: &reqwest::Client,
    base: &str,
    spec: &Spec,
    offset: u64,
    sanity: &mut Sanity,
) -> Option<String> {
    let first_id = |body: &Value| {
        body.get("results").and_then(|r| r.get(0)).and_then(|r| r.get("id")).map(|v| v.to_string().replace('"', ""))
    };
    if let Ok((status, body)) = get_json(client, &format!("{base}/api/posts/?limit=20&offset={offset}")).await {
        sanity.checks.push(("deep offset".into(), status.to_string()));
        sanity.deep_offset_first = first_id(&body);
    }
    let python = matches!(spec.family, Family::Python { .. });
    let (start, size_param) =
        if python { ("/cursor/posts/?page_size=100", "page_size") } else { ("/cursor/posts/?limit=100", "limit") };
    let mut path = start.to_string();
    for _ in 0..offset / 100 {
        let (status, body) = match get_json(client, &format!("{base}{path}")).await {
            Ok(x) => x,
            Err(e) => {
                sanity.checks.push(("deep cursor".into(), e));
                return None;
            }
        };
        if status != 200 {
            sanity.checks.push(("deep cursor".into(), format!("{status} on {path}: {body}")));
            return None;
        }
        let next = if python {
            body.get("next_cursor")
                .and_then(Value::as_str)
                .map(|c| format!("/cursor/posts/?page_size=100&cursor={}", urlencode(c)))
        } else {
            body.get("next").and_then(Value::as_str).map(str::to_string)
        };
        match next {
            Some(n) => path = n,
            None => {
                sanity.checks.push(("deep cursor".into(), format!("no next link after {path}")));
                return None;
            }
        }
    }
    let deep = path.replacen(&format!("{size_param}=100"), &format!("{size_param}=20"), 1);
    match get_json(client, &format!("{base}{deep}")).await {
        Ok((status, body)) => {
            sanity.checks.push(("deep cursor".into(), status.to_string()));
            sanity.deep_cursor_first = first_id(&body);
        }
        Err(e) => sanity.checks.push(("deep cursor".into(), e)),
    }
    sanity.deep_cursor_url = Some(deep.clone());
    Some(deep)
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn machine(load_before: &str, load_after: &str) -> Value {
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

fn command_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The source the servers were built from: `BENCH_VIEWSET_SOURCE` (run.sh records it just before building), else
/// the work tree now.
fn viewset_source(root: &Path) -> String {
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
fn versions(root: &Path, pg: &str, python: Option<&Python>) -> Value {
    let lock = std::fs::read_to_string(root.join("Cargo.lock")).unwrap_or_default();
    let crate_version = |name: &str| {
        let needle = format!("name = \"{name}\"\nversion = \"");
        lock.find(&needle).map(|i| {
            let rest = &lock[i + needle.len()..];
            rest[..rest.find('"').unwrap_or(0)].to_string()
        })
    };
    json!({
        "viewset": viewset_source(root),
        "rustc": command_line("rustc", &["-V"]),
        "axum": crate_version("axum"),
        "sea-orm": crate_version("sea-orm"),
        "sqlx": crate_version("sqlx"),
        "tokio": crate_version("tokio"),
        "postgresql": pg,
        "wrk": load::version(),
        "python": python.map(|p| p.versions.clone()).unwrap_or(Value::Null),
    })
}
