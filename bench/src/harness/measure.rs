//! The measurement: every workload on every live server, at every level and round, interleaved.

use std::path::Path;

use super::live::Live;
use super::load::{self, Requests};
use super::procs;
use super::sanity::*;
use super::workload::*;
use super::{CpuPerRequest, Options, RunResult};

/// The workloads in two phases (the deep pages need the larger table), each workload on every server in turn:
/// per concurrency level and round, the servers run one after another in an order that rotates, so slow
/// moments of the shared machine do not all fall on one server.
pub(super) async fn measure_all(
    o: &Options,
    live: &mut [Live],
    tmp: &Path,
    client: &reqwest::Client,
    runs: &mut Vec<RunResult>,
) -> Result<(), String> {
    for workload in Workload::ALL {
        if workload.deep() && !live.is_empty() && live.iter().all(|l| l.cursor_url.is_none()) {
            eprintln!("== reseed every database with {} rows for the deep pages", o.deep_rows);
            let mut ended = 0;
            for l in live.iter_mut() {
                let n = l.pool.end_idle_transactions().await?;
                if n > 0 {
                    eprintln!("   {}: {n} connection(s) idle inside a transaction, ended", l.spec.name);
                    l.sanity.checks.push(("connections idle in a transaction before the reseed".into(), n.to_string()));
                    ended += n;
                }
            }
            if ended > 0 {
                // The servers' pools ping a connection that sat idle for 30 s before handing it out: past that, the
                // ended connections are replaced without failing a request.
                eprintln!("   waiting 31 s for the pools to replace them");
                tokio::time::sleep(std::time::Duration::from_secs(31)).await;
            }
            for l in live.iter_mut() {
                l.pool.seed(l.schema, o.deep_rows).await?;
                l.cursor_url = check_deep(client, &l.server.base_url(), &l.spec, o.deep_offset(), &mut l.sanity).await;
                if l.cursor_url.is_none() {
                    l.cursor_url = Some(String::new());
                }
            }
        }
        let mut scripts = Vec::new();
        for (i, l) in live.iter().enumerate() {
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
                    let before = (
                        l.server.cpu_ticks(),
                        procs::database_cpu_ticks(o.backend.process()),
                        procs::children_cpu_us(),
                    );
                    let w = load::run(&l.server.base_url(), script, c, o.duration).await?;
                    let after = (
                        l.server.cpu_ticks(),
                        procs::database_cpu_ticks(o.backend.process()),
                        procs::children_cpu_us(),
                    );
                    let (anon, file) = l.server.rss_split_kib();
                    let cpu_us = cpu_per_request(before, after, w.requests);
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
                        rss_anon_kib: anon,
                        rss_file_kib: file,
                        cpu_us,
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
        Workload::List => Requests::Get(format!("{LIST_PATH}{LIST_QUERY}")),
        Workload::ListPlain => Requests::Get(format!("{LIST_PATH}{LIST_PLAIN_QUERY}")),
        Workload::Patch => Requests::PatchRandomId { prefix: "/api/posts/".into(), n: o.rows, uuid },
        Workload::Create => Requests::Post { path: "/api/posts/".into(), body: create_body().to_string() },
        Workload::DeepOffset => Requests::Get(format!("/api/posts/?limit=20&offset={}", o.deep_offset())),
        Workload::DeepCursor => Requests::Get(l.cursor_url.clone().filter(|u| !u.is_empty())?),
    })
}

/// CPU time per request between two samples of ((server user, system ticks), database ticks, wrk µs).
fn cpu_per_request(before: Sample, after: Sample, requests: u64) -> Option<CpuPerRequest> {
    if requests == 0 {
        return None;
    }
    let tick_us = 1_000_000.0 / procs::ticks_per_second() as f64;
    let per = |us: f64| us / requests as f64;
    let ticks = |after: u64, before: u64| after.saturating_sub(before) as f64 * tick_us;
    let (user, system) = (ticks(after.0.0, before.0.0), ticks(after.0.1, before.0.1));
    Some(CpuPerRequest {
        server: per(user + system),
        server_user: Some(per(user)),
        postgres: per(ticks(after.1, before.1)),
        wrk: per(after.2.saturating_sub(before.2) as f64),
    })
}

/// One sample of the counters `cpu_per_request` reads.
type Sample = ((u64, u64), u64, u64);
