//! The generated Markdown section of `BENCHMARKS.md`: run details, then one table per measure.

use std::fmt::Write as _;

use serde_json::Value;

use super::{MAIN, RATIOS, Results};
use crate::harness::Workload;
use crate::harness::options::Backend;

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

/// One row per workload and concurrency level: the workload's title, the level, then `cells(workload, level)`.
fn level_rows(levels: &[u32], cells: impl Fn(Workload, u32) -> Vec<String>) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for w in Workload::ALL {
        for &c in levels {
            let mut row = vec![workload_title(w).to_string(), c.to_string()];
            row.extend(cells(w, c));
            rows.push(row);
        }
    }
    rows
}

/// `rows`, then one row per workload: its title, then `cells(workload)`.
fn workload_rows(mut rows: Vec<Vec<String>>, cells: impl Fn(Workload) -> Vec<String>) -> Vec<Vec<String>> {
    for w in Workload::ALL {
        let mut row = vec![workload_title(w).to_string()];
        row.extend(cells(w));
        rows.push(row);
    }
    rows
}

fn table(out: &mut String, header: &[String], rows: &[Vec<String>]) {
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let _ = writeln!(out, "|{}", header.iter().map(|_| "---|").collect::<String>());
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}

/// The run's date, machine, versions, settings and noise, and the servers that did not run.
pub fn head(r: &Results) -> String {
    let mut out = String::new();
    let m = &r.machine;
    let v = &r.versions;
    let py = &v["python"];
    let s = |x: &Value| x.as_str().map(str::to_string).unwrap_or_else(|| x.to_string());
    let backend = r.backend();
    let database = backend.title();
    let _ = writeln!(
        out,
        "- **Date**: {} (whole run {:.1} min, `{}`)",
        r.date.split('.').next().unwrap_or(&r.date).replace('T', " ") + " UTC",
        r.elapsed_s / 60.0,
        r.command
    );
    let _ = writeln!(
        out,
        "- **Machine**: {} cores ({}), {} GiB memory, Linux {}; servers, {database} and wrk share it",
        m["cores"],
        s(&m["cpu"]),
        m["memory_gib"],
        s(&m["kernel"])
    );
    let _ = writeln!(
        out,
        "- **Versions**: viewset {}; {}; axum {}, sea-orm {}, sqlx {}, tokio {}; {database} {}; {}",
        s(&v["viewset"]),
        s(&v["rustc"]),
        s(&v["axum"]),
        s(&v["sea-orm"]),
        s(&v["sqlx"]),
        s(&v["tokio"]),
        s(&v[if backend == Backend::Postgres { "postgresql" } else { backend.name() }]),
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

    out
}

/// The ratio tables: of the best rounds (with `best`) and of the medians of the rounds (when there were rounds).
pub fn ratio_tables(r: &Results, best: bool) -> String {
    let mut out = String::new();
    let main = r.present(&MAIN);
    let levels = r.levels();
    let ratio_cols: Vec<_> = RATIOS.iter().filter(|(n, _)| main.contains(n)).collect();
    let mut rheader = vec!["workload".to_string(), "c".to_string()];
    rheader.extend(ratio_cols.iter().map(|(_, t)| t.to_string()));
    let rounds = r.runs.iter().any(|x| x.round > 0);
    if best || !rounds {
        let _ =
            writeln!(out, "### Ratios: viewset ÷ other (requests/s; above 1 = viewset faster, **bold** below 0.97)\n");
        let rows = level_rows(&levels, |w, c| ratio_cols.iter().map(|(n, _)| cell(r.ratio(n, w, c), ratio)).collect());
        table(&mut out, &rheader, &rows);
    }
    if rounds {
        let _ = writeln!(
            out,
            "### Ratios of the medians of the rounds (the same runs, no round picked; **bold** below 0.97)\n"
        );
        let rows =
            level_rows(&levels, |w, c| ratio_cols.iter().map(|(n, _)| cell(r.median_ratio(n, w, c), ratio)).collect());
        table(&mut out, &rheader, &rows);
    }
    out
}

/// The whole report of a run (`bench/results/latest.md`, `mariadb.md`): [`head`], then every table.
pub fn markdown(r: &Results) -> String {
    let mut out = format!(
        "# {}: the seven workloads, every table\n\nWritten by `bench/run.sh`; BENCHMARKS.md has the method and the \
         ratios.\n\n",
        r.backend().title()
    );
    out.push_str(&head(r));
    let backend = r.backend();
    let database = backend.title();
    let main = r.present(&MAIN);
    let levels = r.levels();
    let mut header = vec!["workload".to_string(), "c".to_string()];
    header.extend(main.iter().map(|n| r.label(n)));

    let _ = writeln!(out, "### Requests per second\n");
    let rows = level_rows(&levels, |w, c| main.iter().map(|n| cell(r.find(n, w, c), |x| rps(x.rps))).collect());
    table(&mut out, &header, &rows);
    out.push_str(&ratio_tables(r, true));

    let _ = writeln!(out, "### Latency p50 / p99 (ms)\n");
    let rows = level_rows(&levels, |w, c| {
        main.iter().map(|n| cell(r.find(n, w, c), |x| format!("{} / {}", ms(x.p50_ms), ms(x.p99_ms)))).collect()
    });
    table(&mut out, &header, &rows);

    let _ = writeln!(out, "### Errors (non-2xx responses + socket errors, all levels)\n");
    let mut eheader = vec!["workload".to_string()];
    eheader.extend(main.iter().map(|n| r.label(n)));
    let rows = workload_rows(Vec::new(), |w| {
        main.iter()
            .map(|n| {
                let runs: Vec<_> = r.runs.iter().filter(|x| x.server == *n && x.workload == w).collect();
                if runs.is_empty() {
                    "–".into()
                } else {
                    let errors: u64 = runs.iter().map(|x| x.errors).sum();
                    let total: u64 = runs.iter().map(|x| x.wrk.requests).sum();
                    format!("{errors} of {total}")
                }
            })
            .collect()
    });
    table(&mut out, &eheader, &rows);

    let _ = writeln!(out, "### Peak RSS of the server (MiB; VmHWM summed over its processes, max over the levels)\n");
    let mut idle = vec!["idle, after start".to_string()];
    idle.extend(main.iter().map(|n| {
        cell(r.servers.iter().find(|s| s.name == *n && s.error.is_none()), |s| {
            format!("{:.1}", s.idle_rss_kib as f64 / 1024.0)
        })
    }));
    let rows = workload_rows(vec![idle], |w| {
        main.iter()
            .map(|n| {
                let peak = r.runs.iter().filter(|x| x.server == *n && x.workload == w).map(|x| x.peak_rss_kib).max();
                cell(peak, |k| format!("{:.1}", k as f64 / 1024.0))
            })
            .collect()
    });
    table(&mut out, &eheader, &rows);

    let _ = writeln!(
        out,
        "### Where the resident set is (MiB; heap = `RssAnon`, code = `RssFile`: the executable's and libraries' \
         pages in memory; idle, and the largest after a run)\n"
    );
    let mib = |k: u64| format!("{:.1}", k as f64 / 1024.0);
    let mut idle = vec!["idle, after start".to_string()];
    idle.extend(main.iter().map(|n| {
        cell(r.servers.iter().find(|s| s.name == *n && s.error.is_none() && s.idle_rss_split_kib.1 > 0), |s| {
            format!("{} + {}", mib(s.idle_rss_split_kib.0), mib(s.idle_rss_split_kib.1))
        })
    }));
    let rows = workload_rows(vec![idle], |w| {
        main.iter()
            .map(|n| {
                let runs = || r.runs.iter().filter(|x| x.server == *n && x.workload == w && x.rss_file_kib > 0);
                let anon = runs().map(|x| x.rss_anon_kib).max();
                let file = runs().map(|x| x.rss_file_kib).max();
                cell(anon.zip(file), |(a, f)| format!("{} + {}", mib(a), mib(f)))
            })
            .collect()
    });
    table(&mut out, &eheader, &rows);

    if let Some(&top) = levels.last() {
        let _ = writeln!(
            out,
            "### CPU time per request at {top} connections (µs; the server (its user-mode part) / every {database} \
             process / wrk, mean over the rounds; the machine's cores are shared by all three)\n"
        );
        let rows = workload_rows(Vec::new(), |w| {
            main.iter()
                .map(|n| {
                    let at_top = r.runs.iter().filter(|x| x.server == *n && x.workload == w && x.concurrency == top);
                    let cpu: Vec<_> = at_top.filter_map(|x| x.cpu_us).collect();
                    let mean = |f: fn(&crate::harness::CpuPerRequest) -> f64| {
                        cpu.iter().map(f).sum::<f64>() / cpu.len() as f64
                    };
                    let user =
                        cpu.iter().all(|c| c.server_user.is_some()).then(|| mean(|c| c.server_user.unwrap_or(0.0)));
                    let parts =
                        (!cpu.is_empty()).then(|| (mean(|c| c.server), user, mean(|c| c.postgres), mean(|c| c.wrk)));
                    cell(parts, |(s, u, p, w)| match u {
                        Some(u) => format!("{s:.0} ({u:.0}) / {p:.0} / {w:.0}"),
                        None => format!("{s:.0} / {p:.0} / {w:.0}"),
                    })
                })
                .collect()
        });
        table(&mut out, &eheader, &rows);
    }

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

    if backend == Backend::Postgres {
        out += &compile_markdown(&r.compile);
    }
    out
}

fn compile_markdown(c: &Value) -> String {
    let mut out = String::from("### Compile cost (debug profile, `cargo build` of a throwaway app)\n\n");
    if c.get("default").is_none() {
        return out + &compile_profile_markdown(c);
    }
    for (key, title) in [
        ("default", "With cargo's default dev profile (`debug = true` everywhere), as a hand-written app builds:"),
        ("new", "With the dev profile `viewset new` writes (its template's `[profile.dev…]` sections):"),
    ] {
        let _ = writeln!(out, "{title}\n");
        if let Some(lines) = c[key]["dev_profile"].as_str().filter(|_| key == "new") {
            let _ = writeln!(out, "```toml\n{lines}\n```\n");
        }
        out += &compile_profile_markdown(&c[key]);
    }
    out
}

/// One profile's compile cost: the table, the cold build and the note.
fn compile_profile_markdown(c: &Value) -> String {
    let mut out = String::new();
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
                 its target directory (`target-bench/compile`, `compile-new`) held dependencies from an earlier run).\n"
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
