"""What one `fourfold search` and one `fourfold grep` cost from a shell, beside `rg`, measured in one run.

For a literal, an identifier, a regex and a question, each asked `--repeat` times on an indexed,
unchanged root, it reports per call: wall time, the CLI process's own CPU time, the daemon's CPU
time for that call (from /proc, so the total is honest: the work moved to the daemon is still
counted), and the CLI process's peak RSS; then the same for `fourfold grep` (every matching line,
as rg prints them) and `rg -S` on the same pattern (smart case, as fourfold reads a pattern; no grep
or `rg` row for the question: it has no equivalent). The `lines` column is how many lines a grep
printed, so the two greps can be seen to list the same matches. `--in-process` adds one
`--no-daemon` call per query, the path every call took before the daemon.

    python bench/cli_bench.py --root bench/corpora/django-5.1.4 --index-dir /tmp/ff-bench/django \
        [--backend local] [--repeat 5] [--in-process] [--json out.json]

The index must exist (`fourfold index ROOT --index-dir DIR`). The daemon is started and left to
settle (indexed, embedded, then no CPU used for 2 s) before anything is measured, and the first call
of each query is not measured either. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# kind: (the `fourfold search` query, the same pattern for `fourfold grep`, and for `rg`)
QUERIES = {
    "literal": ("ValidationError", "ValidationError", "ValidationError"),
    "identifier": ("get_object_or_404", "get_object_or_404", "get_object_or_404"),
    "regex": ("re:raise \\w+Error\\(", "re:raise \\w+Error\\(", "raise \\w+Error\\("),
    "question": ("how does the csrf middleware check the token", None, None),
}
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Call:
    """One process run: wall seconds, its own CPU seconds, the daemon's CPU seconds meanwhile, peak RSS."""

    wall_s: float
    cpu_s: float
    daemon_cpu_s: float
    rss_mb: float


def run(command: list[str], daemon_pid: int | None) -> Call:
    before = _daemon_cpu(daemon_pid)
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    stderr = process.stderr.read().decode() if process.stderr else ""
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # rg exits 1 when nothing matched
        raise SystemExit(f"{command[0]} failed: {stderr[-2000:]}")
    return Call(wall, usage.ru_utime + usage.ru_stime, _daemon_cpu(daemon_pid) - before, usage.ru_maxrss / 1024)


def _daemon_cpu(pid: int | None) -> float:
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15 of stat)


def printed_lines(command: list[str]) -> int:
    """How many lines a grep prints: the same count from both greps says they list the same matches."""
    return subprocess.run(command, capture_output=True, check=False).stdout.count(b"\n")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _settle(pid: int, quiet_s: float = 2.0, timeout_s: float = 600.0) -> None:
    """Wait until the daemon's background work (warm-up, centrality) is done: no CPU used for `quiet_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        before = _daemon_cpu(pid)
        time.sleep(quiet_s)
        if _daemon_cpu(pid) - before < 2 / TICKS:
            return


def summary(calls: list[Call]) -> dict[str, float]:
    return {
        "wall_ms": 1000 * statistics.median(c.wall_s for c in calls),
        "cpu_ms": 1000 * statistics.median(c.cpu_s for c in calls),
        "daemon_cpu_ms": 1000 * statistics.median(c.daemon_cpu_s for c in calls),
        "total_cpu_ms": 1000 * statistics.median(c.cpu_s + c.daemon_cpu_s for c in calls),
        "peak_rss_mb": max(c.rss_mb for c in calls),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--index-dir", required=True)
    parser.add_argument("--backend", default="local")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--in-process", action="store_true", help="also time one --no-daemon call per query")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    fourfold = str(Path(sys.executable).parent / "fourfold")
    common = ["--root", args.root, "--index-dir", args.index_dir, "--backend", args.backend, "--json"]
    rg = shutil.which("rg")

    subprocess.run([fourfold, "daemon", "start", *common[:-1]], check=True, capture_output=True)
    ping = subprocess.run([fourfold, "daemon", "status", *common[:-1]], check=True, capture_output=True, text=True)
    pid = int(json.loads(ping.stdout)["pid"])
    subprocess.run([fourfold, "status", *common[:-1]], check=True, capture_output=True)  # indexed and embedded
    _settle(pid)
    rows: dict[str, dict[str, dict[str, float]]] = {}
    for kind, (query, grep_pattern, rg_pattern) in QUERIES.items():
        command = [fourfold, "search", query, *common]
        run(command, pid)  # the first ask of a query may build caches: not measured
        rows[kind] = {"fourfold": summary([run(command, pid) for _ in range(args.repeat)])}
        if grep_pattern:
            grep = [fourfold, "grep", grep_pattern, *common[:-1]]
            run(grep, pid)
            rows[kind]["fourfold grep"] = {**summary([run(grep, pid) for _ in range(args.repeat)]),
                                           "lines": printed_lines(grep)}
        if rg and rg_pattern:
            command_rg = [rg, "-n", "-S", "-e", rg_pattern, args.root]
            rows[kind]["rg"] = {**summary([run(command_rg, None) for _ in range(args.repeat)]),
                                "lines": printed_lines(command_rg)}
        if args.in_process:
            rows[kind]["fourfold --no-daemon"] = summary([run([*command, "--no-daemon"], None)])
            if grep_pattern:
                rows[kind]["fourfold grep --no-daemon"] = summary([run([*grep, "--no-daemon"], None)])

    print("| query | system | wall ms | CLI CPU ms | daemon CPU ms | total CPU ms | peak RSS MB | CPU × rg | lines |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, systems in rows.items():
        base = systems.get("rg", {}).get("total_cpu_ms")
        for system, figures in systems.items():
            ratio = f"{figures['total_cpu_ms'] / base:.1f}" if base else "—"
            print(f"| {kind} | {system} | {figures['wall_ms']:.0f} | {figures['cpu_ms']:.0f} | "
                  f"{figures['daemon_cpu_ms']:.0f} | {figures['total_cpu_ms']:.0f} | {figures['peak_rss_mb']:.0f} | "
                  f"{ratio} | {figures.get('lines', '')} |")
    daemon_rss = _rss_mb(pid)
    print(f"\ndaemon {pid}: resident {daemon_rss:.0f} MB (held between calls, instead of loaded by each)")
    if args.json:
        report = {"rows": rows, "daemon_rss_mb": daemon_rss, "queries": {k: q for k, (q, _, _) in QUERIES.items()},
                  "repeat": args.repeat, "cpus": os.cpu_count(), "load": os.getloadavg()}
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


__all__ = ["Call", "printed_lines", "run", "summary"]

if __name__ == "__main__":
    sys.exit(main())
