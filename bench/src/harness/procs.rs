//! Server processes: start, wait until ready, peak RSS of the process tree, stop.

use std::fs;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running server (and, for uvicorn with workers, its children).
pub struct Server {
    pub child: Child,
    pub port: u16,
    pub log: std::path::PathBuf,
}

impl Server {
    /// Starts `command` with stdout and stderr in `log`.
    pub fn start(mut command: Command, port: u16, log: &Path) -> Result<Server, String> {
        let out = fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let child = command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("start {:?}: {e}", command.get_program()))?;
        Ok(Server { child, port, log: log.to_path_buf() })
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Polls `path` until it answers 200 (or the process exits, or `timeout` passes).
    pub async fn wait_ready(&mut self, client: &reqwest::Client, path: &str, timeout: Duration) -> Result<(), String> {
        let start = Instant::now();
        let url = format!("{}{path}", self.base_url());
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("server exited with {status} before it was ready; log:\n{}", self.log_tail()));
            }
            if let Ok(r) = client.get(&url).header("Accept", "application/json").send().await
                && r.status().is_success()
            {
                return Ok(());
            }
            if start.elapsed() > timeout {
                return Err(format!("server not ready after {timeout:?}; log:\n{}", self.log_tail()));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    pub fn log_tail(&self) -> String {
        let text = fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// The server's process and all its descendants.
    pub fn tree(&self) -> Vec<u32> {
        descendants(self.child.id())
    }

    /// Resets the peak RSS counters (`VmHWM`) of the whole tree (`echo 5 > /proc/PID/clear_refs`).
    pub fn reset_peak_rss(&self) {
        for pid in self.tree() {
            let _ = fs::write(format!("/proc/{pid}/clear_refs"), "5");
        }
    }

    /// Sum of `VmHWM` over the tree, in KiB: the peak resident set since the last reset.
    pub fn peak_rss_kib(&self) -> u64 {
        self.tree().into_iter().filter_map(|pid| status_field(pid, "VmHWM:")).sum()
    }

    /// Current `RssAnon` (heap, stacks) and `RssFile` (the executable's and libraries' pages in memory) sums over
    /// the tree, in KiB: where the resident set goes.
    pub fn rss_split_kib(&self) -> (u64, u64) {
        let sum = |field: &str| self.tree().into_iter().filter_map(|pid| status_field(pid, field)).sum();
        (sum("RssAnon:"), sum("RssFile:"))
    }

    /// CPU time the tree has used so far, in clock ticks: (user, system).
    pub fn cpu_ticks(&self) -> (u64, u64) {
        self.tree().into_iter().filter_map(stat_cpu_ticks).fold((0, 0), |(u, s), (pu, ps)| (u + pu, s + ps))
    }

    /// Current `VmRSS` sum over the tree, in KiB.
    pub fn rss_kib(&self) -> u64 {
        self.tree().into_iter().filter_map(|pid| status_field(pid, "VmRSS:")).sum()
    }

    /// SIGTERM to the tree, then SIGKILL whatever is left after 10 s.
    pub fn stop(mut self) {
        let pids = self.tree();
        for &pid in &pids {
            signal(pid, libc::SIGTERM);
        }
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if matches!(self.child.try_wait(), Ok(Some(_))) && pids.iter().all(|&p| !alive(p)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        for &pid in &pids {
            signal(pid, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}

/// CPU time (user + system) used so far by every process on the machine whose command is `comm` (`postgres`: the
/// shared server and its backends; `mariadbd`: MariaDB's one process, all its threads), in clock ticks.
pub fn database_cpu_ticks(comm: &str) -> u64 {
    let Ok(entries) = fs::read_dir("/proc") else { return 0 };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == comm))
        .filter_map(stat_cpu_ticks)
        .map(|(user, system)| user + system)
        .sum()
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`).
pub fn ticks_per_second() -> u64 {
    // SAFETY: sysconf reads a constant of the running system.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).unwrap_or(100).max(1)
}

/// `(utime, stime)` of `pid` (fields 14 and 15 of `/proc/PID/stat`, counted after the command name).
fn stat_cpu_ticks(pid: u32) -> Option<(u64, u64)> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat.rsplit(')').next()?.split_whitespace().skip(11);
    Some((fields.next()?.parse::<u64>().ok()?, fields.next()?.parse::<u64>().ok()?))
}

/// CPU time (user + system) of this process's children that have been waited for (wrk), in microseconds.
pub fn children_cpu_us() -> u64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    us(usage.ru_utime) + us(usage.ru_stime)
}

fn signal(pid: u32, sig: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: kill(2) on a process this harness started (or a descendant of one); no memory is shared.
        unsafe {
            libc::kill(pid, sig);
        }
    }
}

fn alive(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.rsplit(')').next().unwrap_or("").trim_start().starts_with('Z'))
        .unwrap_or(false)
}

pub(crate) fn status_field(pid: u32, field: &str) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..].split_whitespace().next()?.parse().ok()
}

/// `root` and every process whose parent chain leads to it.
fn descendants(root: u32) -> Vec<u32> {
    let mut parents = Vec::new();
    if let Ok(entries) = fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
            // Fields after the parenthesised command name: state ppid ...
            if let Some(ppid) = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().nth(1))
                && let Ok(ppid) = ppid.parse::<u32>()
            {
                parents.push((pid, ppid));
            }
        }
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(parents.iter().filter(|(_, pp)| *pp == parent).map(|(p, _)| *p));
        i += 1;
    }
    tree
}
