"""Helpers of .ci/sqlmap.sh (standard library only).

targets OPENAPI BASE_URL [TOKEN]
    One line per query parameter of every list operation in the OpenAPI document (GET operations whose path ends
    in `/`): `path<TAB>parameter<TAB>value`, where value is a harmless starting value for sqlmap to inject into,
    derived from the parameter's schema and description and from the first rows the caller sees (so a filter starts
    out matching a row). Operations the caller may not read (not a 200 with rows) are written as
    `path<TAB>-<TAB>skipped: <status>`.

summarize REPORTS_DIR
    Reads every `*.traffic` file sqlmap wrote (`-t`) and prints the requests sent and the status codes answered.
    Exits 1 when any answer was a 5xx or was not JSON.

payloads [--max N] TRAFFIC... > tests/fixtures/sqlmap_payloads.txt
    The values sqlmap sent for the tested parameter, deduplicated to representative lines: the starting value (the
    value of sqlmap's first request) is written `{v}` when a payload begins with it, numbers and sqlmap's random
    words are folded to find payloads that differ only in them, and at most `--max` (default 300) lines are kept,
    spread over sqlmap's techniques.
"""

import collections
import json
import re
import sys
import urllib.parse
import urllib.request


def get_json(url, token):
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, None


def alternatives(schema):
    return schema.get("anyOf") or schema.get("oneOf") or [schema]


def typed(schema):
    """The first alternative that is not the `null`/`none` word (the column's own type)."""
    for alt in alternatives(schema):
        if "null" not in alt.get("description", "") or alt.get("type") != "string":
            return alt
    return schema


def start_value(parameter, rows):
    row = rows[0]
    name = parameter["name"]
    schema = parameter.get("schema", {})
    description = parameter.get("description", "")
    if name == "limit":
        return "2"
    if name in ("offset", "page"):
        return "0" if name == "offset" else "1"
    if name == "ordering":
        allowed = re.search(r"allowed: ([^()]*?)(?: \(|$)", description)
        first = allowed.group(1).split(",")[0].strip() if allowed else "id"
        return f"-{first}"
    if name == "search":
        texts = [v for k, v in row.items() if isinstance(v, str) and k != "id" and not re.match(r"\d{4}-", v)]
        words = [w for t in texts for w in re.findall(r"[A-Za-z]{3,}", t)]
        return words[0] if words else "a"
    field, _, lookup = name.partition("__")
    value = next((r.get(field) for r in rows if r.get(field) is not None), None)
    if lookup == "isnull":
        return "false"
    item = schema.get("items", typed(schema))
    if value is None:
        if item.get("type") in ("integer", "number"):
            return "1"
        if item.get("format") == "date-time":
            return "2026-01-01T00:00:00Z"
        return "a"
    if isinstance(value, bool):
        return "true" if value else "false"
    if lookup in ("contains", "icontains"):
        return str(value).split()[0] if str(value).split() else str(value)
    return str(value)


def targets(openapi_path, base_url, token=None):
    document = json.load(open(openapi_path))
    for path, operations in document["paths"].items():
        operation = operations.get("get")
        if not operation or not path.endswith("/") or "{" in path:
            continue
        parameters = [p for p in operation.get("parameters", []) if p.get("in") == "query"]
        if not parameters:
            continue
        status, body = get_json(f"{base_url}{path}?limit=20", token)
        rows = body.get("results") if isinstance(body, dict) else None
        if status != 200 or not rows:
            print(f"{path}\t-\tskipped: {status} with {'no rows' if status == 200 else 'no access'}")
            continue
        for parameter in parameters:
            print(f"{path}\t{parameter['name']}\t{start_value(parameter, rows)}")


def exchanges(traffic_path):
    """(request line, status, response body) for each exchange in a sqlmap traffic file."""
    text = open(traffic_path, encoding="utf-8", errors="replace").read()
    for block in text.split("#" * 76):
        request = re.search(r"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (\S+) HTTP", block, re.M)
        response = re.search(r"^HTTP response \[#\d+\] \((\d+)[^\n]*\n(.*)", block, re.M | re.S)
        if request:
            status = int(response.group(1)) if response else None
            body = response.group(2).split("\n\n", 1)[-1].strip() if response else ""
            yield request.group(2), status, body


def summarize(reports_dir):
    import glob

    statuses, requests, bad = collections.Counter(), 0, []
    for path in sorted(glob.glob(f"{reports_dir}/*.traffic")):
        for target, status, body in exchanges(path):
            requests += 1
            statuses[status] += 1
            if status is None or status >= 500 or (body and not body.startswith(("{", "["))):
                bad.append(f"{path}: {status} for {target}: {body[:200]}")
    print(f"requests: {requests}; statuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items(), key=str)))
    for line in bad[:20]:
        print(f"BAD ANSWER {line}")
    return 1 if bad else 0


def query_values(target, parameter):
    query = urllib.parse.urlsplit(target).query
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if urllib.parse.unquote(name) == parameter:
            yield urllib.parse.unquote(value)


# sqlmap's technique words: the payloads kept are spread over these (plus one "other" class).
TECHNIQUES = ["UNION", "SLEEP", "RANDOMBLOB", "GENERATE_SERIES", "CAST", "CASE", "ORDER BY", "SELECT", " OR ", " AND "]


def technique(payload):
    upper = payload.upper()
    return next((t for t in TECHNIQUES if t in upper), "other")


def fold(payload):
    """Payloads equal up to sqlmap's random numbers and words."""
    folded = re.sub(r"\d+", "0", payload)
    return re.sub(r"\b[A-Za-z]{4}\b", "w", folded)


def payloads(traffic_paths, limit=300):
    seen, by_technique = set(), collections.defaultdict(list)
    for traffic in traffic_paths:
        # file names are <backend>-<identity>-<path slug>-<parameter>.traffic
        parameter = re.sub(r"\.traffic$", "", traffic).rsplit("-", 1)[-1]
        start = None
        for target, _, _ in exchanges(traffic):
            for value in query_values(target, parameter):
                if start is None:
                    start = value
                if value == start or "\n" in value or "\r" in value:
                    continue
                line = "{v}" + value[len(start) :] if start and value.startswith(start) else value
                key = fold(line)
                if key not in seen:
                    seen.add(key)
                    by_technique[technique(line)].append(line)
    # Each technique gets an equal share of `limit` (what a small one leaves goes to the others), taken evenly
    # spaced over the order sqlmap sent them in, so every backend, parameter type and boundary is represented.
    quota, left = dict.fromkeys(by_technique, 0), limit
    while left and any(quota[n] < len(by_technique[n]) for n in quota):
        for name in sorted(quota):
            if left and quota[name] < len(by_technique[name]):
                quota[name], left = quota[name] + 1, left - 1
    kept = []
    for name, items in by_technique.items():
        step = len(items) / quota[name] if quota[name] else 0
        kept.extend(items[int(i * step)] for i in range(quota[name]))
    print("# sqlmap payloads (written by .ci/sqlmap_tool.py payloads from a .ci/sqlmap.sh sweep); one per line,")
    print("# `{v}` stands for the parameter's harmless value. Used by tests/tests/suite/hardening_injection.rs.")
    for line in sorted(kept):
        print(line)


def main(argv):
    if len(argv) >= 3 and argv[0] == "targets":
        targets(argv[1], argv[2], argv[3] if len(argv) > 3 and argv[3] != "anonymous" else None)
        return 0
    if len(argv) == 2 and argv[0] == "summarize":
        return summarize(argv[1])
    if len(argv) >= 2 and argv[0] == "payloads":
        rest, limit = argv[1:], 300
        if rest[:1] == ["--max"]:
            limit, rest = int(rest[1]), rest[2:]
        payloads(rest, limit)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
