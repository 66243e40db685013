//! The load generator: Debian's `wrk`, one thread, fixed connections and duration, a Lua script per workload that
//! builds the requests and prints the summary as JSON.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// How a workload's requests are built.
#[derive(Debug, Clone)]
pub enum Requests {
    /// The same GET every time.
    Get(String),
    /// GET `prefix` + a random id in 1..=n.
    GetRandomId { prefix: String, n: u64, uuid: bool },
    /// PATCH `prefix` + a random id with `{"views": <random>}`, authenticated.
    PatchRandomId { prefix: String, n: u64, uuid: bool },
    /// POST `path` with a fixed body, authenticated.
    Post { path: String, body: String },
}

/// What `wrk` reported for one run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct WrkSummary {
    pub requests: u64,
    pub duration_us: u64,
    pub bytes: u64,
    pub connect: u64,
    pub read: u64,
    pub write: u64,
    pub status: u64,
    pub timeout: u64,
    pub p50_us: u64,
    pub p90_us: u64,
    pub p99_us: u64,
    pub max_us: u64,
    pub mean_us: f64,
}

impl WrkSummary {
    pub fn rps(&self) -> f64 {
        if self.duration_us == 0 { 0.0 } else { self.requests as f64 / (self.duration_us as f64 / 1e6) }
    }
    /// Non-2xx/3xx responses plus socket errors.
    pub fn errors(&self) -> u64 {
        self.status + self.connect + self.read + self.write + self.timeout
    }
}

fn lua_string(s: &str) -> String {
    format!("{s:?}")
}

/// The Lua script of `requests`.
pub fn script(requests: &Requests) -> String {
    let mut lua = String::from(
        "math.randomseed(os.time())\n\
         wrk.headers[\"Accept\"] = \"application/json\"\n\
         local function id(i, uuid)\n\
         \x20 if uuid then return string.format(\"00000000-0000-0000-0000-%012x\", i) end\n\
         \x20 return tostring(i)\n\
         end\n",
    );
    let auth = "wrk.headers[\"Authorization\"] = \"Bearer bob-token\"\n\
                wrk.headers[\"Content-Type\"] = \"application/json\"\n";
    match requests {
        Requests::Get(path) => {
            lua += &format!(
                "local path = {}\nrequest = function() return wrk.format(\"GET\", path) end\n",
                lua_string(path)
            );
        }
        Requests::GetRandomId { prefix, n, uuid } => {
            lua += &format!(
                "local prefix, n, uuid = {}, {n}, {uuid}\n\
                 request = function() return wrk.format(\"GET\", prefix .. id(math.random(1, n), uuid)) end\n",
                lua_string(prefix)
            );
        }
        Requests::PatchRandomId { prefix, n, uuid } => {
            lua += auth;
            lua += &format!(
                "local prefix, n, uuid = {}, {n}, {uuid}\n\
                 request = function()\n\
                 \x20 local body = '{{\"views\": ' .. math.random(0, 1000000) .. '}}'\n\
                 \x20 return wrk.format(\"PATCH\", prefix .. id(math.random(1, n), uuid), nil, body)\n\
                 end\n",
                lua_string(prefix)
            );
        }
        Requests::Post { path, body } => {
            lua += auth;
            lua += &format!(
                "local path, body = {}, {}\nrequest = function() return wrk.format(\"POST\", path, nil, body) end\n",
                lua_string(path),
                lua_string(body)
            );
        }
    }
    lua += "done = function(summary, latency, requests)\n\
            \x20 local e = summary.errors\n\
            \x20 io.write(string.format('BENCHJSON {\"requests\":%d,\"duration_us\":%d,\"bytes\":%d,\"connect\":%d,\
            \"read\":%d,\"write\":%d,\"status\":%d,\"timeout\":%d,\"p50_us\":%d,\"p90_us\":%d,\"p99_us\":%d,\
            \"max_us\":%d,\"mean_us\":%.1f}\\n',\n\
            \x20   summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,\n\
            \x20   latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))\n\
            end\n";
    lua
}

/// Runs `wrk` against `base_url` with `connections` for `duration`, the script at `script_path`.
pub async fn run(
    base_url: &str,
    script_path: &Path,
    connections: u32,
    duration: Duration,
) -> Result<WrkSummary, String> {
    let output = tokio::process::Command::new("wrk")
        .arg("-t1")
        .arg(format!("-c{connections}"))
        .arg(format!("-d{}s", duration.as_secs().max(1)))
        .arg("--timeout")
        .arg("5s")
        .arg("-s")
        .arg(script_path)
        .arg(base_url)
        .output()
        .await
        .map_err(|e| format!("run wrk: {e} (install it: apt-get install wrk)"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().find_map(|l| l.strip_prefix("BENCHJSON ")).ok_or_else(|| {
        format!(
            "wrk printed no summary (exit {}):\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    serde_json::from_str(line).map_err(|e| format!("wrk summary `{line}`: {e}"))
}

/// `wrk -v`'s first line.
pub fn version() -> String {
    std::process::Command::new("wrk")
        .arg("-v")
        .output()
        .map(|o| {
            let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
            text.lines().next().unwrap_or("").split(" Copyright").next().unwrap_or("").trim().to_string()
        })
        .unwrap_or_else(|_| "not installed".into())
}
