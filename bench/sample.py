#!/usr/bin/env python3
"""The report of bench/sample.sh: sample.py DIR WORKLOAD CONNECTIONS SECONDS SERVERS

DIR holds, per server and round, `<server>-<workload>-c<connections>-r<round>.data` (perf record of the server
process, cpu-clock at 1999 Hz) and `.requests` (wrk's `REQUESTS n ERRORS m`). Prints two markdown tables: per
server the median round's requests/s and CPU µs per request (all, user, kernel); then, for the first server against
each other, the functions whose µs per request differ most (over all rounds).
"""
import collections
import glob
import re
import statistics
import subprocess
import sys

HZ = 1999
LINE = re.compile(r"\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(.*)$")
TOP = 12


def samples(path):
    """{(space, symbol): samples} of one perf.data; space is `k` (kernel) or `u` (the process and its libraries)."""
    report = subprocess.run(
        ["perf", "report", "-i", path, "--no-children", "-n", "--sort", "dso,sym", "--stdio", "-q"],
        capture_output=True, text=True, check=True,
    ).stdout
    found = collections.Counter()
    for line in report.splitlines():
        m = LINE.match(line)
        if m:
            count, dso, space, symbol = m.groups()
            space = "k" if space == "k" or dso.startswith("[kernel") else "u"
            found[(space, symbol.strip())] += int(count)
    return found


def rounds(directory, server, workload, connections):
    """[(requests, errors, samples)] of each round of `server`."""
    found = []
    for data in sorted(glob.glob(f"{directory}/{server}-{workload}-c{connections}-r*.data")):
        words = open(data[: -len(".data")] + ".requests").read().split()
        found.append((int(words[1]), int(words[3]), samples(data)))
    return found


def per_request(count, requests):
    return count / HZ / requests * 1e6


def main():
    directory, workload, connections, seconds, servers = sys.argv[1:6]
    servers = servers.split(",")
    runs = {s: rounds(directory, s, workload, connections) for s in servers}
    print(f"\n### {workload}, {connections} connection(s): {len(runs[servers[0]])} rounds of {seconds} s each\n")
    print("| server | requests/s (median round) | rounds | CPU µs/request | user | kernel | errors |")
    print("|---|---|---|---|---|---|---|")
    for server, found in runs.items():
        rates = [r / float(seconds) for r, _, _ in found]
        cpu = [per_request(sum(s.values()), r) for r, _, s in found]
        user = [per_request(sum(v for (k, _), v in s.items() if k == "u"), r) for r, _, s in found]
        kernel = [c - u for c, u in zip(cpu, user)]
        print(
            f"| {server} | {statistics.median(rates):,.0f} | {' / '.join(f'{x:,.0f}' for x in rates)} "
            f"| {statistics.median(cpu):.1f} | {statistics.median(user):.1f} | {statistics.median(kernel):.1f} "
            f"| {sum(e for _, e, _ in found)} |"
        )
    first = servers[0]

    def totals(server):
        requests = sum(r for r, _, _ in runs[server])
        counts = collections.Counter()
        for _, _, s in runs[server]:
            counts.update(s)
        return {key: per_request(v, requests) for key, v in counts.items()}

    ours = totals(first)
    for other in servers[1:]:
        theirs = totals(other)
        keys = set(ours) | set(theirs)
        difference = sorted(keys, key=lambda k: ours.get(k, 0) - theirs.get(k, 0))
        print(f"\nµs per request by function, {first} / {other} (k: kernel), most more then most less:\n")
        print(f"| function | {first} | {other} | difference |")
        print("|---|---|---|---|")
        for key in difference[::-1][:TOP] + difference[:TOP // 2]:
            a, b = ours.get(key, 0), theirs.get(key, 0)
            name = key[1] if len(key[1]) <= 110 else key[1][:107] + "..."
            name = name.replace("|", "\\|")
            print(f"| {'(k) ' if key[0] == 'k' else ''}`{name}` | {a:.2f} | {b:.2f} | {a - b:+.2f} |")


if __name__ == "__main__":
    main()
