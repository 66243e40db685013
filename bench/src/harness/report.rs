//! Results: `latest.json` (`mariadb.json`), every table of the run beside it (`latest.md`, `mariadb.md`), and the
//! summary in `BENCHMARKS.md` (between two marker comments, a pair per database; the prose around them is kept).

mod markdown;

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use self::markdown::markdown;
use super::options::Backend;
use super::{RunResult, Sanity, ServerInfo, Workload};

/// The markers around the generated section of a PostgreSQL run.
pub const BEGIN: &str = "<!-- BEGIN GENERATED RESULTS (bench/run.sh rewrites this section) -->";
/// See [`BEGIN`].
pub const END: &str = "<!-- END GENERATED RESULTS -->";
/// The markers around the generated section of a MariaDB run.
pub const BEGIN_MARIADB: &str =
    "<!-- BEGIN GENERATED MARIADB RESULTS (bench/run.sh --database mariadb rewrites this section) -->";
/// See [`BEGIN_MARIADB`].
pub const END_MARIADB: &str = "<!-- END GENERATED MARIADB RESULTS -->";

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
const MAIN: [&str; 6] = ["viewset", "seaorm", "sqlx", "sqlx-mysql", "aksara-1w", "aksara-2w"];
const RATIOS: [(&str, &str); 5] = [
    ("seaorm", "÷ sea-orm (hand)"),
    ("sqlx", "÷ sqlx (hand)"),
    ("sqlx-mysql", "÷ sqlx MySQL driver (hand)"),
    ("aksara-1w", "÷ aksara 1w"),
    ("aksara-2w", "÷ aksara 2w"),
];

impl Results {
    /// The database the run used (`config.database`; PostgreSQL in results from before it was recorded).
    pub fn backend(&self) -> Backend {
        Backend::parse(self.config["database"].as_str()).unwrap_or(Backend::Postgres)
    }

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

    /// The median requests/s over the rounds of `server` on `workload` at `c` connections (the mean of the middle
    /// two for an even count).
    fn median_rps(&self, server: &str, workload: Workload, c: u32) -> Option<f64> {
        let mut rounds: Vec<f64> = self
            .runs
            .iter()
            .filter(|r| r.server == server && r.workload == workload && r.concurrency == c)
            .map(|r| r.rps)
            .collect();
        rounds.sort_by(f64::total_cmp);
        let n = rounds.len();
        (n > 0).then(|| (rounds[(n - 1) / 2] + rounds[n / 2]) / 2.0)
    }

    /// viewset's median requests/s ÷ `other`'s: the same runs as [`Results::ratio`], read without picking rounds.
    fn median_ratio(&self, other: &str, workload: Workload, c: u32) -> Option<f64> {
        let v = self.median_rps("viewset", workload, c)?;
        let o = self.median_rps(other, workload, c)?;
        (o > 0.0).then(|| v / o)
    }

    /// Ratios viewset ÷ each baseline, requests per second, per workload and level.
    fn ratios(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for w in Workload::ALL {
            for c in self.levels() {
                let mut row = json!({"workload": w, "concurrency": c});
                for (other, _) in RATIOS.iter().filter(|(n, _)| self.servers.iter().any(|s| s.name == *n)) {
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

/// Writes the run's whole report to `full` and rewrites the section between the markers of `path` (BENCHMARKS.md)
/// for the run's database with its summary: the run's head and the ratio tables, linking to `full` (appending the
/// section to a file without markers, creating the file from a skeleton if needed).
pub fn write_markdown(path: &Path, full: &Path, r: &Results) -> Result<(), String> {
    std::fs::write(full, markdown(r)).map_err(|e| format!("{}: {e}", full.display()))?;
    let (begin, end) = match r.backend() {
        Backend::Postgres => (BEGIN, END),
        Backend::Mariadb => (BEGIN_MARIADB, END_MARIADB),
    };
    let link = match (path.parent(), full.strip_prefix(path.parent().unwrap_or(Path::new("")))) {
        (Some(_), Ok(relative)) => relative.display().to_string(),
        _ => full.display().to_string(),
    };
    let summary = format!(
        "{}{}Every table of this run (requests/s, latency, errors, memory, CPU time per request, the same answers, \
         compile cost): [{link}]({link}).\n\n",
        markdown::head(r),
        markdown::ratio_tables(r, false)
    );
    let generated = format!("{begin}\n\n{summary}{end}");
    let existing = std::fs::read_to_string(path).unwrap_or_default();
    let text = match (existing.find(begin), existing.find(end)) {
        (Some(b), Some(e)) if b < e => format!("{}{generated}{}", &existing[..b], &existing[e + end.len()..]),
        _ if !existing.trim().is_empty() => format!("{}\n\n{generated}\n", existing.trim_end()),
        _ => format!("# Benchmarks\n\nRun with `bash bench/run.sh`.\n\n{generated}\n"),
    };
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// A short plain-text table for the terminal: viewset's requests/s and its ratios to each baseline that ran.
pub fn summary_table(r: &Results) -> String {
    let others: Vec<&str> = ["seaorm", "sqlx", "sqlx-mysql", "aksara-1w"]
        .into_iter()
        .filter(|n| r.servers.iter().any(|s| s.name == *n))
        .collect();
    let mut out = format!("\nrequests/s (viewset ÷ {})\n", others.join(", ÷ "));
    for w in Workload::ALL {
        for c in r.levels() {
            let Some(v) = r.find("viewset", w, c) else { continue };
            let _ = write!(out, "{:<12} c={:<3} {:>8.0} ", w.name(), c, v.rps);
            for o in &others {
                let _ =
                    write!(out, "  {:>5}", r.ratio(o, w, c).map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into()));
            }
            out.push('\n');
        }
    }
    out
}
