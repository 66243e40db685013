"""viewset's blog on SQLite against PocketBase, on the same 10,000 posts (run by bench/sqlite.sh; stdlib only).

Each server gets a fresh database in a temporary directory: the blog's from its own migrations, PocketBase's
`posts` collection (the blog's fields, every API rule open) through its collections API. Both are seeded with the
same rows by SQL while stopped, checked to answer the same rows for every read workload, then measured by wrk in
interleaved rounds (every server at a workload and level before the next level). Writes are undone after each run
(PATCH: the seeded `views` written back; create: rows beyond the seed deleted; delete: it deletes rows inserted for
it beforehand), so every round reads the same table. Prints the medians and the ratios viewset ÷ PocketBase, and
writes them as JSON.
"""

import argparse
import json
import os
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

SEED = 10_000
DELETE_BASE = 1_000_000  # the ids of the rows the delete workload deletes
WORKLOADS = ["retrieve", "list_count", "list_nocount", "filter_order", "search", "patch", "create", "delete"]
TITLES = {
    "retrieve": "retrieve",
    "list_count": "list of 20 with count",
    "list_nocount": "list of 20, no count",
    "filter_order": "filter + order, 20",
    "search": "search, 20",
    "patch": "PATCH",
    "create": "create",
    "delete": "delete",
}
PB_RECORDS = "/api/collections/posts/records"
PB_FILTER_SEARCH = urllib.parse.quote("(title~'rust'||body~'rust')")
PATHS = {  # (viewset, PocketBase): the same rows, the same order, the same count or none
    "list_count": ("/api/posts/?ordering=-id&limit=20", PB_RECORDS + "?sort=-id&perPage=20"),
    "list_nocount": ("/api/posts/?ordering=-id&limit=20&count=none", PB_RECORDS + "?sort=-id&perPage=20&skipTotal=1"),
    "filter_order": (
        "/api/posts/?published=true&ordering=-views&limit=20",
        PB_RECORDS + "?filter=" + urllib.parse.quote("published=true") + "&sort=-views&perPage=20",
    ),
    "search": ("/api/posts/?search=rust&ordering=-id&limit=20", PB_RECORDS + f"?filter={PB_FILTER_SEARCH}&sort=-id&perPage=20"),
}
FIELDS = ("title", "body", "published", "views", "rating", "author_id")


def row(i):
    """The seeded post `i` (1-based), the same on both sides."""
    topic = ["rust", "axum", "tokio", "serde", "sqlx", "postgres", "python", "django"][i % 8]
    word = ["fast", "slow", "typed", "dynamic", "tested", "simple"][i % 6]
    created = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1735689600 + 60 * i))
    return (f"Post {i} on {topic}", f"Notes number {i}: {word} code", i % 2 == 0, (i * 7919) % 10000, (i % 50) / 10.0,
            1 + i % 5, created)


def pb_id(i):
    return f"{i:015d}"


def insert_rows(kind, db_path, ids):
    with sqlite3.connect(db_path, timeout=60) as db:
        if kind == "pocketbase":
            db.executemany(
                "INSERT INTO posts (id, title, body, published, views, rating, author_id, slug, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, '', ?)",
                ((pb_id(i), *row(i)[:6], row(i)[6].replace("T", " ") + ".000Z") for i in ids))
        else:
            db.executemany(
                "INSERT INTO posts (id, title, body, published, views, rating, author_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                ((i, *row(i)[:6], row(i)[6] + "+00:00") for i in ids))


def undo_writes(kind, db_path):
    """Back to the seeded table: rows beyond the seed deleted, `views` as seeded."""
    key = "rowid" if kind == "pocketbase" else "id"
    with sqlite3.connect(db_path, timeout=60) as db:
        db.execute(f"DELETE FROM posts WHERE {key} > ?", (SEED,))
        db.execute(f"UPDATE posts SET views = ({key} * 7919) % 10000 WHERE views != ({key} * 7919) % 10000")


def http(method, url, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json",
                                                                            **(headers or {})})
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read()
        return answer.status, json.loads(text) if text else None


def answering(url, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:
            time.sleep(0.3)
    raise SystemExit(f"no answer from {url} within {seconds} s")


class Server:
    def __init__(self, kind, label, binary, port, work, env=None):
        self.kind, self.label, self.binary, self.port, self.env = kind, label, os.path.abspath(binary), port, env or {}
        self.dir = os.path.join(work, label)
        os.makedirs(self.dir, exist_ok=True)
        self.db = os.path.join(self.dir, "pb_data", "data.db") if kind == "pocketbase" else os.path.join(self.dir, "blog.db")
        self.base = f"http://127.0.0.1:{port}"
        self.process = None

    def start(self):
        log = open(os.path.join(self.dir, "server.log"), "ab")
        if self.kind == "pocketbase":
            command = [self.binary, "serve", f"--http=127.0.0.1:{self.port}", f"--dir={os.path.join(self.dir, 'pb_data')}",
                       f"--migrationsDir={os.path.join(self.dir, 'pb_migrations')}", "--automigrate=0"]
            env = dict(os.environ)
        else:
            command = [self.binary]
            env = dict(os.environ, DATABASE_URL=f"sqlite://{self.db}?mode=rwc", SERVICE_BIND=f"127.0.0.1:{self.port}",
                       BLOG_SEED="0", RUST_LOG="warn", **self.env)
        self.process = subprocess.Popen(command, stdout=log, stderr=log, env=env, cwd=self.dir)
        answering(self.base + ("/api/health" if self.kind == "pocketbase" else "/api/posts/?limit=1"))

    def stop(self):
        if self.process:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.process = None

    def setup(self):
        """The schema (the blog's migrations; PocketBase's collection through its API), then the seed while stopped."""
        if self.kind == "pocketbase":
            email, password = "bench@example.com", "bench-password-1"
            subprocess.run([self.binary, "superuser", "upsert", email, password,
                            f"--dir={os.path.join(self.dir, 'pb_data')}"], check=True, capture_output=True)
            self.start()
            _, auth = http("POST", self.base + "/api/collections/_superusers/auth-with-password",
                           {"identity": email, "password": password})
            collection = {
                "name": "posts", "type": "base",
                "listRule": "", "viewRule": "", "createRule": "", "updateRule": "", "deleteRule": "",
                "fields": [
                    {"name": "title", "type": "text", "required": True, "max": 200},
                    {"name": "body", "type": "text"},
                    {"name": "published", "type": "bool"},
                    {"name": "views", "type": "number", "onlyInt": True},
                    {"name": "rating", "type": "number"},
                    {"name": "author_id", "type": "number", "onlyInt": True},
                    {"name": "slug", "type": "text", "max": 100},
                    {"name": "created", "type": "autodate", "onCreate": True, "onUpdate": False},
                ],
                "indexes": ["CREATE UNIQUE INDEX idx_posts_slug ON posts (slug) WHERE slug != ''"],
            }
            http("POST", self.base + "/api/collections", collection, {"Authorization": auth["token"]})
        else:
            self.start()
        self.stop()
        if self.kind != "pocketbase":
            with sqlite3.connect(self.db) as db:
                db.executemany("INSERT INTO authors (id, name, email) VALUES (?, ?, ?)",
                               ((a, f"Author {a}", f"author{a}@example.com") for a in range(1, 6)))
        insert_rows(self.kind, self.db, range(1, SEED + 1))
        with sqlite3.connect(self.db) as db:
            db.execute("ANALYZE")
        self.start()

    def path(self, workload):
        return PATHS[workload][1 if self.kind == "pocketbase" else 0]

    def lua(self, workload, threads):
        pb = self.kind == "pocketbase"
        records = PB_RECORDS + "/" if pb else "/api/posts/"
        key = 'string.format("%015d", {})' if pb else "{}"
        auth = "" if pb else 'wrk.headers["Authorization"] = "Bearer bob-token"\n'
        head = 'wrk.headers["Accept"] = "application/json"\nwrk.headers["Content-Type"] = "application/json"\n' + auth
        if workload == "retrieve":
            body = f'request = function() return wrk.format("GET", "{records}" .. {key.format("math.random(1, %d)" % SEED)}) end'
        elif workload in PATHS:
            body = f'request = function() return wrk.format("GET", "{self.path(workload)}") end'
        elif workload == "create":
            post = '{"title": "Benchmark post", "body": "Written by the load generator.", "author_id": 1, "views": 3}'
            body = f'local body = [[{post}]]\nrequest = function() return wrk.format("POST", "{records.rstrip("/") if pb else records}", nil, body) end'
        elif workload == "patch":
            body = (f'request = function() return wrk.format("PATCH", "{records}" .. {key.format("math.random(1, %d)" % SEED)}, nil, '
                    '"{\\"views\\": " .. math.random(0, 1000000) .. "}") end')
        elif workload == "delete":
            body = (f'local n = 0\nfunction setup(thread) thread:set("tid", n); n = n + 1 end\nlocal i = 0\n'
                    f'request = function() local id = {DELETE_BASE} + tid + i * {threads}; i = i + 1\n'
                    f'  return wrk.format("DELETE", "{records}" .. {key.format("id")}) end')
        else:
            raise ValueError(workload)
        done = ('\ndone = function(s) io.write("REQUESTS " .. s.requests .. " NON2XX " .. s.errors.status .. " OTHER " .. '
                '(s.errors.connect + s.errors.read + s.errors.write + s.errors.timeout) .. "\\n") end\n')
        return head + body + done


def same_rows(servers):
    """Every read workload answers the same rows on every server (checked before timing)."""
    def records(server, answer):
        items = answer["items"] if server.kind == "pocketbase" else answer["results"]
        return [tuple(item[f] for f in FIELDS) for item in items]

    def count(server, answer):
        return answer.get("totalItems") if server.kind == "pocketbase" else answer.get("count")

    for workload in PATHS:
        seen = []
        for server in servers:
            _, answer = http("GET", server.base + server.path(workload))
            rows = records(server, answer)
            total = count(server, answer)
            if workload == "list_nocount":
                total = None
            seen.append((server.label, rows, total))
        for label, rows, total in seen[1:]:
            if (rows, total) != (seen[0][1], seen[0][2]) or len(rows) != 20:
                raise SystemExit(f"{workload}: {label} answers {len(rows)} rows, count {total}; {seen[0][0]} "
                                 f"{len(seen[0][1])} rows, count {seen[0][2]}: not the same rows\n{rows[:2]}\n{seen[0][1][:2]}")
        print(f"  {workload}: the same 20 rows on {len(servers)} servers (count {seen[0][2]})", file=sys.stderr)
    for server in servers:
        key = pb_id(1234) if server.kind == "pocketbase" else "1234"
        url = server.base + (PB_RECORDS + "/" if server.kind == "pocketbase" else "/api/posts/") + key
        _, answer = http("GET", url)
        if tuple(answer[f] for f in FIELDS) != row(1234)[:6]:
            raise SystemExit(f"retrieve on {server.label}: {answer}")
    print("  retrieve: post 1234 the same on every server", file=sys.stderr)


def wrk(server, workload, level, duration, work):
    threads = 1 if level == 1 else 2
    script = os.path.join(work, f"{server.label}-{workload}.lua")
    with open(script, "w") as f:
        f.write(server.lua(workload, threads))
    if workload == "delete":
        insert_rows(server.kind, server.db, range(DELETE_BASE, DELETE_BASE + 40_000))
    out = subprocess.run(["wrk", f"-t{threads}", f"-c{level}", f"-d{duration}s", "--latency", "-s", script, server.base],
                         capture_output=True, text=True, check=True).stdout
    if workload in ("patch", "create", "delete"):
        undo_writes(server.kind, server.db)
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    counts = re.search(r"REQUESTS (\d+) NON2XX (\d+) OTHER (\d+)", out)
    return {"rps": rate, "requests": int(counts.group(1)), "non2xx": int(counts.group(2)), "other": int(counts.group(3))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pocketbase", required=True)
    parser.add_argument("--blog", action="append", required=True,
                        help="LABEL=PATH[,VAR=VALUE...]: a blog binary (release), started with these variables")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=2)
    parser.add_argument("--levels", default="1,16,64")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    levels = [int(n) for n in args.levels.split(",")]
    workloads = args.workloads.split(",")
    work = tempfile.mkdtemp(prefix="viewset-sqlite-bench-")
    servers = []
    for n, blog in enumerate(args.blog):
        label, rest = blog.split("=", 1)
        path, *variables = rest.split(",")
        servers.append(Server("blog", label, path, 18181 + n, work, dict(v.split("=", 1) for v in variables)))
    servers.append(Server("pocketbase", "pocketbase", args.pocketbase, 18190, work))
    try:
        for server in servers:
            print(f"==> {server.label}: schema, {SEED} posts", file=sys.stderr)
            server.setup()
        same_rows(servers)
        for server in servers:  # warm-up: a second of retrieves and of lists
            wrk(server, "retrieve", 4, 1, work)
            wrk(server, "list_count", 4, 1, work)
        runs = []
        for r in range(args.rounds):
            order = servers if r % 2 == 0 else servers[::-1]
            for workload in workloads:
                for level in levels:
                    for server in order:
                        result = wrk(server, workload, level, args.duration, work)
                        result.update(server=server.label, workload=workload, level=level, round=r + 1)
                        runs.append(result)
                        bad = f"  non-2xx {result['non2xx']}" if result["non2xx"] or result["other"] else ""
                        print(f"round {r + 1} {workload:13} c={level:<3} {server.label:12} {result['rps']:9.0f} req/s{bad}",
                              file=sys.stderr)
    finally:
        for server in servers:
            server.stop()
    pb_version = subprocess.run([args.pocketbase, "--version"], capture_output=True, text=True).stdout.strip()
    medians = {}
    for run in runs:
        medians.setdefault((run["server"], run["workload"], run["level"]), []).append(run["rps"])
    medians = {k: statistics.median(v) for k, v in medians.items()}
    print(f"\n{pb_version}; medians of {args.rounds} interleaved rounds of {args.duration} s; req/s and viewset ÷ PocketBase")
    head = "| workload | " + " | ".join(f"c={c}" for c in levels) + " |"
    for server in servers[:-1]:
        print(f"\n{server.label} ÷ PocketBase\n\n{head}\n|---|" + "---|" * len(levels))
        for workload in workloads:
            cells = []
            for level in levels:
                v, p = medians[(server.label, workload, level)], medians[("pocketbase", workload, level)]
                non2xx = sum(run["non2xx"] + run["other"] for run in runs
                             if (run["server"], run["workload"], run["level"]) == (server.label, workload, level))
                cells.append(f"{v / p:.2f} ({v:.0f} / {p:.0f})" + (f" {non2xx} non-2xx" if non2xx else ""))
            print(f"| {TITLES[workload]} | " + " | ".join(cells) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pocketbase": pb_version, "rounds": args.rounds, "duration": args.duration, "runs": runs,
                       "machine": f"{os.cpu_count()} cores, {os.uname().release}"}, f, indent=1)
    print(f"\n(servers' directories and logs: {work})", file=sys.stderr)


if __name__ == "__main__":
    main()
