//! Results: `latest.json` and the generated section of `BENCHMARKS.md` (between two marker comments; the prose
//! around them is kept as it is).

mod markdown;

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use self::markdown::markdown;
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
