#!/usr/bin/env python3
"""Helpers of bench/memory.sh (where a server's resident memory goes).

  memory.py pages PID        heap (RssAnon) and file-backed (RssFile) KiB from /proc/PID/status, and the pages of
                             the executable's code that are mapped (/proc/PID/pagemap) and the 64 KiB windows they
                             fall in (the kernel maps code around a fault in windows of `fault_around_bytes`)
  memory.py heap DHAT.json   the heap live at its peak (dhat's t-gmax), by what allocated it
"""
import collections
import json
import os
import re
import struct
import sys

WINDOW = 64 * 1024

# A block is a route-table copy when `per_connection_copy` says so; otherwise it belongs to the first group one of its
# stack frames matches, or to "other".
ROUTE_COPY = "route table copied per connection"
GROUPS = [
    ("connection buffers (hyper)", r"hyper::"),
    ("in-flight request futures", r"HandlerService|MapIntoResponse|map_future::MapFuture|AuthenticateService|RouteFuture|LimitsService"),
    ("in-flight query futures", r"viewset_core::database::boxed|fetch_optional|fetch_all|fetch_one"),
    ("database connections (sqlx)", r"sqlx_"),
    ("runtime (tokio)", r"tokio::"),
]


def status(pid):
    fields = {}
    for line in open(f"/proc/{pid}/status"):
        key, _, value = line.partition(":")
        if key in ("RssAnon", "RssFile"):
            fields[key] = int(value.split()[0])
    return fields


def code_pages(pid):
    exe = os.readlink(f"/proc/{pid}/exe")
    pages = []
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for line in open(f"/proc/{pid}/maps"):
            f = line.split()
            if len(f) < 6 or f[5] != exe or "x" not in f[1]:
                continue
            start, end = (int(x, 16) for x in f[0].split("-"))
            count = (end - start) // 4096
            pagemap.seek(start // 4096 * 8)
            data = pagemap.read(count * 8)
            pages += [start + i * 4096 for i in range(count) if struct.unpack_from("<Q", data, i * 8)[0] >> 63]
    return pages


def pages(pid):
    s = status(pid)
    code = code_pages(pid)
    windows = len({p // WINDOW for p in code})
    print(f"{s['RssAnon']} {s['RssFile']} {len(code) * 4} {windows}")


def per_connection_copy(stack):
    """Allocated by the accept loop (axum's `Serve`) itself, not by the runtime's spawn of the connection's task: what
    the make-service call made for the connection (axum's `Router` as its own make-service copies its route table;
    the call may be inlined into the loop)."""
    if any("IncomingStream" in frame for frame in stack):
        return True
    serve = next((k for k, frame in enumerate(stack) if "axum::serve::Serve<" in frame), None)
    return serve is not None and not any("tokio::" in frame for frame in stack[:serve])


def heap(path):
    d = json.load(open(path))
    frames = d["ftbl"]
    patterns = [(name, re.compile(p)) for name, p in GROUPS]
    total = collections.Counter()
    blocks = collections.Counter()
    for pp in d["pps"]:
        stack = [frames[i] for i in pp["fs"]]
        if per_connection_copy(stack):
            group = ROUTE_COPY
        else:
            group = next((name for name, p in patterns if p.search(" ".join(stack))), "other")
        total[group] += pp.get("gb", 0)
        blocks[group] += pp.get("gbk", 0)
    for name in [ROUTE_COPY] + [n for n, _ in GROUPS] + ["other"]:
        print(f"{name}\t{total[name] / 1024:.0f}\t{blocks[name]}")
    print(f"total\t{sum(total.values()) / 1024:.0f}\t{sum(blocks.values())}")


if __name__ == "__main__":
    {"pages": lambda: pages(sys.argv[2]), "heap": lambda: heap(sys.argv[2])}[sys.argv[1]]()
