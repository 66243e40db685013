//! Results: `latest.json` and the generated section of `BENCHMARKS.md` (between two marker comments; the prose
//! around them is kept as it is).

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{RunResult, Sanity, ServerInfo, Workload};

pub const BEGIN: &str = "<!-- BEGIN GENERATED RESULTS (bench/run.sh rewrites this section) -->";
pub const END: &str = "<!-- END GENERATED RESULTS -->";

#[derive(Debug, Serialize, Deserialize)]
pub struct Results {
    pub date: String,
    pub elapsed_s: f64,
    pub command: String,
    pub machine: Value,
    pub versions: Value,
    pub config: Value,
    pub servers: Vec<ServerInfo>,
    pub runs: Vec<RunResult>,
    pub sanity: Vec<Sanity>,
    pub compile: Value,
}

/// The main comparison columns (in order) and what viewset is divided by.
const MAIN: [&str; 5] = ["viewset", "seaorm", "sqlx", "aksara-1w", "aksara-2w"];
const RATIOS: [(&str, &str); 4] = [
    ("seaorm", "÷ sea-orm (hand)"),
    ("sqlx", "÷ sqlx (hand)"),
    ("aksara-1w", "÷ aksara 1w"),
    ("aksara-2w", "÷ aksara 2w"),
];

impl Results {
    /// The best round (highest requests/s) of `server` on `workload` at `c` connections.
    fn find(&self, server: &str, workload: Workload, c: u32) -> Option<&RunResult> {
        self.runs
            .iter()
            .filter(|r| r.server == server && r.workload == workload && r.concurrency == c)
            .max_by(|a, b| a.rps.total_cmp(&b.rps))
    }

    /// The best round of every (server, workload, level).
    fn best(&self) -> Vec<&RunResult> {
        let mut out: Vec<&RunResult> = Vec::new();
        for r in &self.runs {
            if !out.iter().any(|b| b.server == r.server && b.workload == r.workload && b.concurrency == r.concurrency) {
                out.extend(self.find(&r.server, r.workload, r.concurrency));
            }
        }
        out
    }

    /// Relative spread (max − min) / max of requests/s between rounds: (median, 90th percentile, groups).
    fn round_spread(&self) -> Option<(f64, f64, usize)> {
        let mut spreads = Vec::new();
        for b in self.best() {
            let rounds: Vec<f64> = self
                .runs
                .iter()
                .filter(|r| r.server == b.server && r.workload == b.workload && r.concurrency == b.concurrency)
                .map(|r| r.rps)
                .collect();
            if rounds.len() > 1 && b.rps > 0.0 {
                let min = rounds.iter().copied().fold(f64::INFINITY, f64::min);
                spreads.push((b.rps - min) / b.rps);
            }
        }
        if spreads.is_empty() {
            return None;
        }
        spreads.sort_by(f64::total_cmp);
        let at = |q: f64| spreads[((spreads.len() - 1) as f64 * q).round() as usize];
        Some((at(0.5), at(0.9), spreads.len()))
    }

    fn levels(&self) -> Vec<u32> {
        let mut levels: Vec<u32> = self.runs.iter().map(|r| r.concurrency).collect();
        levels.sort_unstable();
        levels.dedup();
        levels
    }

    fn ratio(&self, other: &str, workload: Workload, c: u32) -> Option<f64> {
        let v = self.find("viewset", workload, c)?;
        let o = self.find(other, workload, c)?;
        (o.rps > 0.0).then(|| v.rps / o.rps)
    }

    /// Ratios viewset ÷ each baseline, requests per second, per workload and level.
    fn ratios(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for w in Workload::ALL {
            for c in self.levels() {
                let mut row = json!({"workload": w, "concurrency": c});
                for (other, _) in RATIOS {
                    row[format!("viewset_over_{}", other.replace('-', "_"))] =
                        self.ratio(other, w, c).map(|r| (r * 1000.0).round() / 1000.0).into();
                }
                out.push(row);
            }
        }
        out
    }

    pub fn to_json(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or(Value::Null);
        v["ratios"] = Value::Array(self.ratios());
        v["best"] = serde_json::to_value(self.best()).unwrap_or(Value::Null);
        v
    }

    fn label(&self, name: &str) -> String {
        self.servers.iter().find(|s| s.name == name).map(|s| s.label.clone()).unwrap_or_else(|| name.into())
    }

    fn present(&self, names: &[&'static str]) -> Vec<&'static str> {
        names.iter().copied().filter(|n| self.servers.iter().any(|s| s.name == *n)).collect()
    }
}

fn workload_title(w: Workload) -> &'static str {
    match w {
        Workload::Retrieve => "retrieve by pk",
        Workload::List => "list: filter + search + ordering, 20",
        Workload::ListPlain => "list: filter + ordering, 20",
        Workload::Patch => "PATCH one field",
        Workload::Create => "create",
        Workload::DeepOffset => "deep page: offset",
        Workload::DeepCursor => "deep page: cursor",
    }
}

fn cell<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map(f).unwrap_or_else(|| "–".into())
}

fn rps(v: f64) -> String {
    if v >= 100.0 { format!("{v:.0}") } else { format!("{v:.1}") }
}

fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn ratio(r: f64) -> String {
    let s = format!("{r:.2}×");
    if r < 0.97 { format!("**{s}**") } else { s }
}

fn table(out: &mut String, header: &[String], rows: &[Vec<String>]) {
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(out, "|{}", header.iter().map(|_| "---|").collect::<String>());
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}

/// The generated Markdown section.
pub fn markdown(r: &Results) -> String {
    let mut out = String::new();
    let m = &r.machine;
    let v = &r.versions;
    let py = &v["python"];
    let s = |x: &Value| x.as_str().map(str::to_string).unwrap_or_else(|| x.to_string());
    let _ = writeln!(out, "## Results of the last run\n");
    let _ = writeln!(
        out,
        "- **Date**: {} (whole run {:.1} min, `{}`)",
        r.date.split('.').next().unwrap_or(&r.date).replace('T', " ") + " UTC",
        r.elapsed_s / 60.0,
        r.command
    );
    let _ = writeln!(
        out,
        "- **Machine**: {} cores ({}), {} GiB memory, Linux {}; servers, PostgreSQL and wrk share it",
        m["cores"],
        s(&m["cpu"]),
        m["memory_gib"],
        s(&m["kernel"])
    );
    let _ = writeln!(
        out,
        "- **Versions**: viewset {}; {}; axum {}, sea-orm {}, sqlx {}, tokio {}; PostgreSQL {}; {}",
        s(&v["viewset"]),
        s(&v["rustc"]),
        s(&v["axum"]),
        s(&v["sea-orm"]),
        s(&v["sqlx"]),
        s(&v["tokio"]),
        s(&v["postgresql"]),
        s(&v["wrk"])
    );
    if py.is_object() {
        let _ = writeln!(
            out,
            "- **Python**: {} with aksara-framework {}, uvicorn {} (uvloop {}, httptools {}), FastAPI {}, asyncpg {}",
            s(&py["python"]),
            s(&py["aksara-framework"]),
            s(&py["uvicorn"]),
            s(&py["uvloop"]),
            s(&py["httptools"]),
            s(&py["fastapi"]),
            s(&py["asyncpg"])
        );
    }
    let c = &r.config;
    let _ = writeln!(
        out,
        "- **Settings**: {} s per level and round, best of {} rounds, servers interleaved, after a {} s warm-up at 16 \
         connections; concurrency {}; {} rows ({} for the deep pages, offset {}); list queries `{}` and `{}`; {}; \
         load average {} before, {} after the load tests",
        c["duration_s"],
        c["rounds"],
        c["warmup_s"],
        c["levels"]
            .as_array()
            .map(|a| a.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "))
            .unwrap_or_default(),
        c["rows"],
        c["deep_rows"],
        c["deep_offset"],
        s(&c["list_query"]),
        s(&c["list_plain_query"]),
        s(&c["load_generator"]),
        s(&m["loadavg_before"]),
        s(&m["loadavg_after_load_tests"])
    );
    if let Some((median, p90, n)) = r.round_spread() {
        let _ = writeln!(
            out,
            "- **Noise**: between the rounds of the same server, workload and level, requests/s differed by {:.0} % \
             (median over {n}), {:.0} % at the 90th percentile: differences between servers smaller than that are \
             not findings (instruction counts from `bench/profile.sh` do not have this noise)",
            median * 100.0,
            p90 * 100.0
        );
    }
    out.push('\n');
    for server in r.servers.iter().filter(|s| s.error.is_some()) {
        let _ = writeln!(out, "> **{}** — {}\n", server.label, server.error.as_deref().unwrap_or(""));
    }

    let main = r.present(&MAIN);
    let levels = r.levels();
    let mut header = vec!["workload".to_string(), "c".to_string()];
    header.extend(main.iter().map(|n| r.label(n)));

    let _ = writeln!(out, "### Requests per second\n");
    let mut rows = Vec::new();
    for w in Workload::ALL {
        for &c in &levels {
            let mut row = vec![workload_title(w).to_string(), c.to_string()];
            row.extend(main.iter().map(|n| cell(r.find(n, w, c), |x| rps(x.rps))));
            rows.push(row);
        }
    }
    table(&mut out, &header, &rows);

    let _ = writeln!(out, "### Ratios: viewset ÷ other (requests/s; above 1 = viewset faster, **bold** below 0.97)\n");
    let ratio_cols: Vec<_> = RATIOS.iter().filter(|(n, _)| main.contains(n)).collect();
    let mut rheader = vec!["workload".to_string(), "c".to_string()];
    rheader.extend(ratio_cols.iter().map(|(_, t)| t.to_string()));
    let mut rows = Vec::new();
    for w in Workload::ALL {
        for &c in &levels {
            let mut row = vec![workload_title(w).to_string(), c.to_string()];
            row.extend(ratio_cols.iter().map(|(n, _)| cell(r.ratio(n, w, c), ratio)));
            rows.push(row);
        }
    }
    table(&mut out, &rheader, &rows);

    let _ = writeln!(out, "### Latency p50 / p99 (ms)\n");
    let mut rows = Vec::new();
    for w in Workload::ALL {
        for &c in &levels {
            let mut row = vec![workload_title(w).to_string(), c.to_string()];
            row.extend(main.iter().map(|n| cell(r.find(n, w, c), |x| format!("{} / {}", ms(x.p50_ms), ms(x.p99_ms)))));
            rows.push(row);
        }
    }
    table(&mut out, &header, &rows);

    let _ = writeln!(out, "### Errors (non-2xx responses + socket errors, all levels)\n");
    let mut eheader = vec!["workload".to_string()];
    eheader.extend(main.iter().map(|n| r.label(n)));
    let mut rows = Vec::new();
    for w in Workload::ALL {
        let mut row = vec![workload_title(w).to_string()];
        row.extend(main.iter().map(|n| {
            let runs: Vec<_> = r.runs.iter().filter(|x| x.server == *n && x.workload == w).collect();
            if runs.is_empty() {
                "–".into()
            } else {
                let errors: u64 = runs.iter().map(|x| x.errors).sum();
                let total: u64 = runs.iter().map(|x| x.wrk.requests).sum();
                format!("{errors} of {total}")
            }
        }));
        rows.push(row);
    }
    table(&mut out, &eheader, &rows);

    let _ = writeln!(out, "### Peak RSS of the server (MiB; VmHWM summed over its processes, max over the levels)\n");
    let mut rows = Vec::new();
    let mut idle = vec!["idle, after start".to_string()];
    idle.extend(main.iter().map(|n| {
        cell(r.servers.iter().find(|s| s.name == *n && s.error.is_none()), |s| {
            format!("{:.1}", s.idle_rss_kib as f64 / 1024.0)
        })
    }));
    rows.push(idle);
    for w in Workload::ALL {
        let mut row = vec![workload_title(w).to_string()];
        row.extend(main.iter().map(|n| {
            let peak = r.runs.iter().filter(|x| x.server == *n && x.workload == w).map(|x| x.peak_rss_kib).max();
            cell(peak, |k| format!("{:.1}", k as f64 / 1024.0))
        }));
        rows.push(row);
    }
    table(&mut out, &eheader, &rows);

    let _ = writeln!(out, "### Same data, same answers (one request of each kind before the load)\n");
    let mut rows = Vec::new();
    for sanity in &r.sanity {
        let checks = sanity.checks.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
        rows.push(vec![
            r.label(&sanity.server),
            cell(sanity.list_count, |c| c.to_string()),
            sanity.list_keys.clone().unwrap_or_else(|| "–".into()),
            sanity.deep_offset_first.clone().unwrap_or_else(|| "–".into()),
            sanity.deep_cursor_first.clone().unwrap_or_else(|| "–".into()),
            checks,
        ]);
    }
    let sheader: Vec<String> =
        ["server", "list count", "list envelope", "deep offset: first id", "deep cursor: first id", "statuses"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    table(&mut out, &sheader, &rows);

    out += &compile_markdown(&r.compile);
    out
}

fn compile_markdown(c: &Value) -> String {
    let mut out = String::from("### Compile cost (debug profile, `cargo build` of a throwaway app)\n\n");
    if let Some(skipped) = c.get("skipped").or_else(|| c.get("error")) {
        let _ = writeln!(out, "Not measured: {}\n", skipped.as_str().unwrap_or(&skipped.to_string()));
        return out;
    }
    let secs = |v: &Value| v.as_f64().map(|x| format!("{x:.1} s")).unwrap_or_else(|| "–".into());
    let per = |v: &Value| v.as_f64().map(|x| format!("{:.0} ms", x * 1000.0)).unwrap_or_else(|| "–".into());
    let mut rows = Vec::new();
    for (key, title) in [
        ("clean_app_build_s", "clean build of the app crate (dependencies already built)"),
        ("incremental_build_s", "incremental build after a one-line change"),
        ("check_s", "`cargo check` of the app crate (expansion + type checking)"),
    ] {
        rows.push(vec![title.to_string(), secs(&c["one"][key]), secs(&c["twenty"][key]), per(&c["per_viewset"][key])]);
    }
    let header: Vec<String> =
        ["", "1 ViewSet", "20 ViewSets", "per extra ViewSet"].iter().map(|s| s.to_string()).collect();
    table(&mut out, &header, &rows);
    if let Some(first) = c["cold_build_s"].as_f64() {
        if c["cold_build_cached"].as_bool() == Some(true) {
            let _ = writeln!(
                out,
                "First build of the 1-ViewSet app in this run, dependencies included: {first:.1} s (not a cold build: \
                 `target-bench/compile` held dependencies from an earlier run).\n"
            );
        } else {
            let _ = writeln!(out, "Cold build of the 1-ViewSet app, every dependency included: {first:.1} s.\n");
        }
    }
    if let Some(note) = c["note"].as_str() {
        let _ = writeln!(out, "{note}\n");
    }
    out
}

/// Rewrites the section between the markers of `path` (creating the file from a skeleton if needed).
pub fn write_markdown(path: &Path, r: &Results) -> Result<(), String> {
    let generated = format!("{BEGIN}\n\n{}{END}", markdown(r));
    let existing = std::fs::read_to_string(path).unwrap_or_default();
    let text = match (existing.find(BEGIN), existing.find(END)) {
        (Some(b), Some(e)) if b < e => format!("{}{generated}{}", &existing[..b], &existing[e + END.len()..]),
        _ => format!("# Benchmarks\n\nRun with `bash bench/run.sh`.\n\n{generated}\n"),
    };
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// A short plain-text table for the terminal.
pub fn summary_table(r: &Results) -> String {
    let mut out = String::from("\nrequests/s (viewset ÷ sea-orm, ÷ sqlx, ÷ aksara-1w)\n");
    for w in Workload::ALL {
        for c in r.levels() {
            let Some(v) = r.find("viewset", w, c) else { continue };
            let f = |o: &str| r.ratio(o, w, c).map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into());
            let _ = writeln!(
                out,
                "{:<12} c={:<3} {:>8.0}   {:>5} {:>5} {:>6}",
                w.name(),
                c,
                v.rps,
                f("seaorm"),
                f("sqlx"),
                f("aksara-1w")
            );
        }
    }
    out
}
