//! `viewset-bench fanout`: N stream subscribers (`GET /api/posts/stream`) of one blog server over SQLite, one
//! write, and the time from sending it until each subscriber has received its `created` frame (issue 19: 10,000
//! subscribers, p99 ≤ 200 ms). The server runs in this process; the subscribers run in a second process
//! (`viewset-bench fanout-client`, started here), so each side has its own descriptor limit and the figures are
//! the server's fan-out plus the loopback, not one process parsing its own frames. The client is a plain TCP
//! reader (one small task per subscriber, no HTTP client library), so its own cost stays small on the shared
//! cores. Run twice per count: identical requests (one view: the subscribers share each event's visibility
//! check and frame) and a distinct header per subscriber (as many views as subscribers, the worst case). With
//! `--views K` (issue 47) each count runs once per K instead: subscriber i looks through view i % K, which differs
//! from the others by its principal (anonymous, `Bearer alice-token`, `Bearer bob-token` in turn) and by an
//! `x-fanout-client: <i % K>` header. With `--filters K` (issue 72) subscriber i filters the stream as the list is
//! filtered, `?views__lt=<1000000 + i % K>`: K distinct filters (each matching the created post), anonymous.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Barrier;

/// Options of `fanout`.
pub struct Options {
    counts: Vec<usize>,
    /// `--views`: the numbers of views to spread the subscribers over; empty: one view, then one per subscriber.
    views: Vec<usize>,
    /// `--filters`: the numbers of distinct stream filters to spread the subscribers over.
    filters: Vec<usize>,
}

/// How the subscribers' requests differ.
#[derive(Clone, Copy)]
enum Views {
    /// Identical requests: one view.
    Same,
    /// A distinct `x-fanout-client` header each: as many views as subscribers.
    Distinct,
    /// Subscriber i in view i % K (principal and header).
    Grouped(usize),
    /// Subscriber i with filter i % K (`?views__lt=…`).
    Filtered(usize),
}

impl Views {
    fn arg(self) -> String {
        match self {
            Views::Same => "same".into(),
            Views::Distinct => "distinct".into(),
            Views::Grouped(k) => format!("grouped:{k}"),
            Views::Filtered(k) => format!("filtered:{k}"),
        }
    }

    fn parse(arg: &str) -> Result<Views, String> {
        match arg {
            "same" => Ok(Views::Same),
            "distinct" => Ok(Views::Distinct),
            _ => match (arg.split_once(':'), arg.split_once(':').and_then(|(_, k)| k.parse().ok())) {
                (Some(("grouped", _)), Some(k)) if k > 0 => Ok(Views::Grouped(k)),
                (Some(("filtered", _)), Some(k)) if k > 0 => Ok(Views::Filtered(k)),
                _ => Err(format!("unknown view mode `{arg}`")),
            },
        }
    }

    /// The number of views among `n` subscribers.
    fn count(self, n: usize) -> usize {
        match self {
            Views::Same => 1,
            Views::Distinct => n,
            Views::Grouped(k) | Views::Filtered(k) => k.min(n),
        }
    }

    /// The path of subscriber `i`'s request.
    fn path(self, i: usize) -> String {
        match self {
            Views::Filtered(k) => format!("/api/posts/stream?views__lt={}", 1_000_000 + i % k),
            _ => "/api/posts/stream".into(),
        }
    }

    /// The headers of subscriber `i`'s request.
    fn headers(self, i: usize) -> String {
        match self {
            Views::Same | Views::Filtered(_) => String::new(),
            Views::Distinct => format!("x-fanout-client: {i}\r\n"),
            Views::Grouped(k) => {
                let view = i % k;
                let principal = ["", "authorization: Bearer alice-token\r\n", "authorization: Bearer bob-token\r\n"];
                format!("{}x-fanout-client: {view}\r\n", principal[view % 3])
            }
        }
    }
}

impl Options {
    /// `--subscribers 100,1000,10000 [--views 1000] [--filters 1000]`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options { counts: vec![10, 100, 1000, 5000, 10000], views: Vec::new(), filters: Vec::new() };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let value = it.next().ok_or(format!("`{arg}` needs a value"))?;
            match arg.as_str() {
                "--subscribers" => options.counts = numbers(value)?,
                "--views" => options.views = numbers(value)?,
                "--filters" => options.filters = numbers(value)?,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        Ok(options)
    }
}

fn numbers(value: &str) -> Result<Vec<usize>, String> {
    value.split(',').map(|n| n.trim().parse().map_err(|_| format!("`{value}`: expected numbers"))).collect()
}

/// Runs the measurement: for each count and view mode a fresh database, server and client process.
pub fn run(options: Options) -> Result<(), String> {
    raise_descriptor_limit();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        println!("| subscribers | views | first (ms) | p50 (ms) | p99 (ms) | last (ms) | received |");
        println!("|---|---|---|---|---|---|---|");
        let modes: Vec<Views> = if options.views.is_empty() && options.filters.is_empty() {
            vec![Views::Same, Views::Distinct]
        } else {
            let grouped = options.views.iter().map(|&k| Views::Grouped(k.max(1)));
            grouped.chain(options.filters.iter().map(|&k| Views::Filtered(k.max(1)))).collect()
        };
        for n in options.counts {
            for &mode in &modes {
                let line = once(n, mode).await?;
                println!("| {n} | {} | {line} |", mode.count(n));
            }
        }
        Ok(())
    })
}

async fn once(n: usize, mode: Views) -> Result<String, String> {
    let views = mode.count(n);
    let file = std::env::temp_dir().join(format!("viewset-fanout-{}-{n}-{views}.db", std::process::id()));
    let url = format!("sqlite://{}?mode=rwc", file.display());
    let db = blog::connect_and_migrate(&url).await.map_err(|e| e.to_string())?;
    blog::seed::seed_if_empty(&db).await.map_err(|e| e.to_string())?;
    // A backlog large enough for thousands of connections opened at once.
    let socket = tokio::net::TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket.bind("127.0.0.1:0".parse().expect("address")).map_err(|e| e.to_string())?;
    let listener = socket.listen(4096).map_err(|e| e.to_string())?;
    let address = listener.local_addr().map_err(|e| e.to_string())?.to_string();
    let server = tokio::spawn(async move { axum::serve(listener, blog::app(db).into_make_service()).await.ok() });
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut command = tokio::process::Command::new(exe);
    command.args(["fanout-client", &address, &n.to_string(), &mode.arg()]);
    let output = command.output().await.map_err(|e| format!("client process: {e}"))?;
    server.abort();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    match stdout.lines().find_map(|l| l.strip_prefix("RESULT ")) {
        Some(line) if output.status.success() => Ok(line.to_string()),
        _ => Err(format!("client failed: {stdout}{}", String::from_utf8_lossy(&output.stderr))),
    }
}

/// `viewset-bench fanout-client ADDRESS N same|distinct|grouped:K|filtered:K`: opens N streams, waits until each has its `ready`
/// frame, creates a post, and prints `RESULT first | p50 | p99 | last | received/N` (milliseconds from sending
/// the create until a subscriber has read its `created` frame).
pub fn client(args: &[String]) -> Result<(), String> {
    let [address, n, mode] = args else {
        return Err("fanout-client ADDRESS N same|distinct|grouped:K|filtered:K".into());
    };
    let n: usize = n.parse().map_err(|_| "N is a number")?;
    let mode = Views::parse(mode)?;
    raise_descriptor_limit();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let ready = std::sync::Arc::new(Barrier::new(n + 1));
        let opening = std::sync::Arc::new(tokio::sync::Semaphore::new(256));
        let mut subscribers = Vec::with_capacity(n);
        for i in 0..n {
            let (address, ready, opening) = (address.clone(), ready.clone(), opening.clone());
            subscribers.push(tokio::spawn(async move {
                let permit = opening.acquire_owned().await.ok();
                let header = mode.headers(i);
                let path = mode.path(i);
                let request =
                    format!("GET {path} HTTP/1.1\r\nhost: bench\r\naccept: text/event-stream\r\n{header}\r\n");
                let opened = subscribe(&address, &request).await;
                drop(permit);
                let mut stream = match opened {
                    Ok(stream) => Some(stream),
                    Err(err) => {
                        eprintln!("subscriber {i}: {err}");
                        None
                    }
                };
                ready.wait().await;
                let at = match stream.as_mut() {
                    Some(stream) => {
                        until(stream, b"event: created", Duration::from_secs(30)).await.ok().map(|()| Instant::now())
                    }
                    None => None,
                };
                // The stream stays open until every subscriber has its frame: a client leaving early would make the
                // server tear its connection down in the middle of the fan-out being measured.
                (at, stream)
            }));
        }
        ready.wait().await;
        let start = Instant::now();
        create(address).await?;
        let mut times = Vec::with_capacity(n);
        let mut open = Vec::with_capacity(n);
        for subscriber in subscribers {
            if let Ok((at, stream)) = subscriber.await {
                times.extend(at.map(|at| at.duration_since(start).as_secs_f64() * 1000.0));
                open.push(stream);
            }
        }
        drop(open);
        times.sort_by(f64::total_cmp);
        let at = |q: f64| times.get(((times.len() as f64 * q).ceil() as usize).saturating_sub(1)).copied();
        let ms = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.1}"));
        let (first, p50, p99, last) = (times.first().copied(), at(0.5), at(0.99), times.last().copied());
        println!("RESULT {} | {} | {} | {} | {}/{n}", ms(first), ms(p50), ms(p99), ms(last), times.len());
        Ok(())
    })
}

/// A connection whose stream has sent its `ready` frame.
pub(crate) async fn subscribe(address: &str, request: &str) -> Result<TcpStream, String> {
    let mut stream = TcpStream::connect(address).await.map_err(|e| e.to_string())?;
    stream.write_all(request.as_bytes()).await.map_err(|e| e.to_string())?;
    until(&mut stream, b"event: ready", Duration::from_secs(60)).await?;
    Ok(stream)
}

/// Reads until `needle` has arrived (frames are small; a needle split across two reads is still found).
async fn until(stream: &mut TcpStream, needle: &[u8], limit: Duration) -> Result<(), String> {
    let mut seen: Vec<u8> = Vec::new();
    let mut buffer = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let read = tokio::time::timeout_at(deadline, stream.read(&mut buffer)).await;
        let n = read.map_err(|_| "timed out".to_string())?.map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("connection closed".into());
        }
        // Keep only a needle's length of the past: enough to find one split across reads.
        let keep = seen.len().saturating_sub(needle.len());
        seen.drain(..keep);
        seen.extend_from_slice(&buffer[..n]);
        if seen.windows(needle.len()).any(|w| w == needle) {
            return Ok(());
        }
    }
}

/// Creates one post as bob; `Connection: close` so the answer's end is the end of the stream.
async fn create(address: &str) -> Result<(), String> {
    let body = r#"{"title": "fan-out", "body": "b", "author_id": 1}"#;
    let request = format!(
        "POST /api/posts/ HTTP/1.1\r\nhost: bench\r\nauthorization: Bearer bob-token\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(address).await.map_err(|e| e.to_string())?;
    stream.write_all(request.as_bytes()).await.map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.map_err(|e| e.to_string())?;
    let status = String::from_utf8_lossy(&answer[..answer.len().min(12)]).to_string();
    if status != "HTTP/1.1 201" {
        return Err(format!("create answered {status}"));
    }
    Ok(())
}

/// Raises this process's open-file limit to its hard limit (10,000 subscribers need 10,000 sockets per side).
pub(crate) fn raise_descriptor_limit() {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit with a valid pointer to an rlimit.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}
