//! A private PostgreSQL cluster for fault tests: created with Debian's `pg_createcluster` on a free loopback port,
//! stopped and started at will, dropped (stopped and deleted) when the [`PrivateCluster`] is dropped, even when the
//! test fails. The shared server at `VIEWSET_TEST_PG_URL` is never touched. A cluster can have a streaming replica
//! ([`PrivateCluster::standby_of`]): a base backup of it, started as a hot standby.

use std::process::Command;

/// A running private cluster; dropping it stops and deletes it.
pub struct PrivateCluster {
    id: ClusterId,
    port: u16,
}

/// What `pg_ctlcluster` needs to name a cluster.
#[derive(Clone)]
struct ClusterId {
    version: String,
    name: String,
}

impl ClusterId {
    fn ctl(&self, action: &[&str]) -> Result<(), String> {
        let mut args = vec!["--skip-systemctl-redirect", &self.version, &self.name];
        args.extend_from_slice(action);
        run("pg_ctlcluster", &args)
    }
}

impl ClusterId {
    /// The cluster's data directory, as its `postgresql.conf` names it.
    fn data_directory(&self) -> Result<String, String> {
        let conf = format!("/etc/postgresql/{}/{}/postgresql.conf", self.version, self.name);
        let text = std::fs::read_to_string(&conf).map_err(|e| format!("{conf}: {e}"))?;
        let line = text.lines().find_map(|line| line.trim().strip_prefix("data_directory"));
        let value = line.and_then(|rest| rest.split('\'').nth(1)).filter(|dir| dir.starts_with('/'));
        value.map(String::from).ok_or_else(|| format!("no data_directory in {conf}"))
    }
}

/// Runs `program args` and returns an error with its output unless it succeeds.
fn run(program: &str, args: &[&str]) -> Result<(), String> {
    let output = Command::new(program).args(args).output().map_err(|e| format!("{program}: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(format!("{program} {} failed ({}): {}", args.join(" "), output.status, stderr.trim()))
}

/// The newest PostgreSQL server installed the Debian way (`/usr/lib/postgresql/<version>/bin/postgres`).
fn installed_version() -> Option<String> {
    let versions = std::fs::read_dir("/usr/lib/postgresql").ok()?;
    versions
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|v| std::path::Path::new(&format!("/usr/lib/postgresql/{v}/bin/postgres")).exists())
        .max_by_key(|v| v.parse::<u32>().unwrap_or(0))
}

impl PrivateCluster {
    /// Creates and starts `viewset_<purpose>_<pid>` on a free port, trusting local connections (it listens on
    /// loopback only and lives as long as the test). An error says why it could not (no `pg_createcluster`, not
    /// root, …), for the test to skip or fail.
    ///
    /// ```no_run
    /// let cluster = viewset_tests::cluster::PrivateCluster::create("doc").expect("a private cluster");
    /// assert!(cluster.url().starts_with("postgres://postgres@127.0.0.1:"));
    /// ```
    pub fn create(purpose: &str) -> Result<PrivateCluster, String> {
        let cluster = PrivateCluster::created(purpose)?;
        cluster.id.ctl(&["start"])?;
        Ok(cluster)
    }

    /// A hot standby of `primary` (created by [`PrivateCluster::create`], whose `pg_hba.conf` trusts local
    /// replication connections and whose `wal_level` is PostgreSQL's default `replica`): a cluster created on a
    /// free port whose data directory is then replaced by `pg_basebackup -R` of the primary (so it starts as a
    /// standby streaming from it), started. Read-only; `pg_wal_replay_pause()` holds its replay.
    ///
    /// ```no_run
    /// let primary = viewset_tests::cluster::PrivateCluster::create("doc").expect("a private cluster");
    /// let standby = viewset_tests::cluster::PrivateCluster::standby_of(&primary, "doc_standby").expect("a standby");
    /// assert_ne!(primary.url(), standby.url());
    /// ```
    pub fn standby_of(primary: &PrivateCluster, purpose: &str) -> Result<PrivateCluster, String> {
        let standby = PrivateCluster::created(purpose)?;
        let data = standby.id.data_directory()?;
        std::fs::remove_dir_all(&data).map_err(|e| format!("emptying {data}: {e}"))?;
        run("install", &["-d", "-o", "postgres", "-g", "postgres", "-m", "700", &data])?;
        let port = primary.port.to_string();
        let backup = ["-u", "postgres", "--", "pg_basebackup", "-h", "127.0.0.1", "-p", &port, "-U", "postgres"];
        run("runuser", &[&backup[..], &["-D", &data, "-R", "-X", "stream"]].concat())?;
        standby.id.ctl(&["start"])?;
        Ok(standby)
    }

    /// `viewset_<purpose>_<pid>`, created on a free port and not started.
    fn created(purpose: &str) -> Result<PrivateCluster, String> {
        let version = installed_version().ok_or("no PostgreSQL server under /usr/lib/postgresql")?;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        drop(listener);
        let name = format!("viewset_{purpose}_{}", std::process::id());
        let port_arg = port.to_string();
        run("pg_createcluster", &[&version, &name, "--port", &port_arg, "--start-conf=manual", "--", "--auth=trust"])?;
        Ok(PrivateCluster { id: ClusterId { version, name }, port })
    }

    /// `postgres://postgres@127.0.0.1:<port>` (no database: append `/<name>`).
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}", self.port)
    }

    async fn ctl(&self, action: Vec<&'static str>) {
        let id = self.id.clone();
        let result = tokio::task::spawn_blocking(move || id.ctl(&action)).await.expect("pg_ctlcluster ran");
        result.unwrap_or_else(|e| panic!("{e}"));
    }

    /// Stops the server with `pg_ctlcluster … stop -m <mode>`: `immediate` cuts every connection as a crash does
    /// (the backends only warn their clients); `fast` ends each session with a FATAL `admin_shutdown` (57P01), as
    /// a normal shutdown, a failover or `pg_terminate_backend` does.
    pub async fn stop(&self, mode: &'static str) {
        self.ctl(vec!["stop", "-m", mode]).await;
    }

    /// Starts the server again.
    pub async fn start(&self) {
        self.ctl(vec!["start"]).await;
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        let ClusterId { version, name } = &self.id;
        if let Err(e) = run("pg_dropcluster", &["--stop", version, name]) {
            eprintln!("could not drop the private cluster {version} {name}: {e}");
        }
    }
}
