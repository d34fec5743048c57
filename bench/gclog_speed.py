"""GC log analyzer speed and memory vs GCViewer 1.36, measured side by side in one run.

Run:  .venv/bin/python bench/gclog_speed.py [--copies 10] [--skip-gcviewer]

Builds a large unified G1 log (N concatenated copies of gctoolkit's
unified/g1gc/jdk11_details.log from ../shared/gclogs, ~474 MB for 10) in a temp dir, then
times the COMMAND as users run it, `jvmlab gc analyze LOG --json` and the terminal form
(`jvmlab gc analyze LOG`, output thrown away), and GCViewer (headless, `-t SUMMARY`) on the
1x and Nx files, each a fresh process timed from start to exit (process wall, CPU and peak
RSS from wait4), and prints throughput (MB/s), the ratio, peak RSS and pause counts. The
command includes the findings (computed in the summary's one pass), start-up and output.
With --python the pure-Python fallback (JVMLAB_GCLOG_NATIVE=0) is timed too ("py MB/s"). Both
the wall-clock ratio and the CPU-time ratio are printed: on a busy machine the wall clock
mostly measures the neighbours (GCViewer uses several threads, jvmlab one), CPU time less so.
The GCViewer jar is fetched once with mvn into ~/.cache/jvmlab/tools.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))
SOURCE = SHARED / "gctoolkit-testdata/gctoolkit-gclogs/unified/g1gc/jdk11_details.log.zip"
TOOLS = Path.home() / ".cache" / "jvmlab" / "tools"
JAR = TOOLS / "gcviewer-1.36.jar"
JAVA = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"

# Where the time goes: each stage of the unified reader on its own, CPU seconds.
_STAGES = """
import json, sys, time
from pathlib import Path
from jvmlab.gclog import analyze_paths, linescan, unified as u
from jvmlab.gclog.reader import iter_chunks
p = Path(sys.argv[1])
def cpu(fn):
    c = time.process_time(); fn(); return time.process_time() - c
keep = linescan.prefilter()
if keep is not None:  # the default path: C drops the detail lines, Python reads the rest
    kept = list(iter_chunks(p, keep=keep))
    fast = {"C filter: read + filter + decode": cpu(lambda: [len(c) for c in iter_chunks(p, keep=keep)]),
            "C filter: scan kept lines": cpu(lambda: [m for c in kept for m in u._GC_LINE.finditer(c)])}
    fast["C filter: total"] = cpu(lambda: analyze_paths([p]))
    fast["C filter: events and summary (rest)"] = fast["C filter: total"] - sum(
        v for k, v in fast.items() if k != "C filter: total")
    del kept
import os
os.environ["JVMLAB_GCLOG_NATIVE"] = "0"
out = {"read + decode": cpu(lambda: [len(c) for c in iter_chunks(p)])}
chunks = list(iter_chunks(p))
out["scan: GC-id lines"] = cpu(lambda: [m for c in chunks for m in u._GC_LINE.finditer(c)])
out["scan: lines without an id, all kinds"] = cpu(lambda: [u.plain_matches(c) for c in chunks])
parser = u.UnifiedParser()
for _ in parser.parse(chunks[:1]):
    pass
needed = parser._recurring(False)  # the kinds this log's collector and logging can have
out["scan: ... only the kinds needed"] = cpu(lambda: [u.plain_matches(c, needed) for c in chunks])
skipped = out.pop("scan: lines without an id, all kinds") - out["scan: ... only the kinds needed"]
out["scan: undecorated lines"] = cpu(lambda: [u._BAD_LINE.findall(c) for c in chunks])
del chunks
total = cpu(lambda: analyze_paths([p]))
out["events and summary (rest)"] = total - sum(out.values())
out["total"] = total
out["(saved by skipping kinds not needed)"] = skipped
out = {("Python: " + k if not k.startswith("(") else k): v for k, v in out.items()}
print(json.dumps({**(fast if keep is not None else {}), **out}))
"""


def ensure_gcviewer() -> Path | None:
    if JAR.is_file():
        return JAR
    TOOLS.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mvn", "-q", "dependency:copy", "-Dartifact=com.github.chewiebug:gcviewer:1.36",
                           f"-DoutputDirectory={TOOLS}"], capture_output=True, text=True, check=False)
    return JAR if proc.returncode == 0 and JAR.is_file() else None


def _timed(argv: list[str], env: dict[str, str], stdout: int) -> tuple[float, float, int, bytes]:
    """Run argv to its exit: (wall s, CPU s, peak RSS kB, stdout) of that one process (wait4)."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.DEVNULL, env=env)
    out = proc.stdout.read() if proc.stdout is not None else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{argv} exited {proc.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, out


def run_jvmlab(path: Path, native: bool = True, terminal: bool = False) -> dict[str, float]:
    """`jvmlab gc analyze PATH --json` (or the terminal form) as a user runs it."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "JVMLAB_GCLOG_NATIVE": "1" if native else "0"}
    argv = [sys.executable, "-m", "jvmlab", "gc", "analyze", str(path)] + ([] if terminal else ["--json"])
    wall, cpu, rss, out = _timed(argv, env, subprocess.DEVNULL if terminal else subprocess.PIPE)
    pauses = -1 if terminal else json.loads(out)["logs"][0]["pauses"]["count"]
    return {"seconds": wall, "cpu_s": cpu, "pauses": pauses, "rss_kb": rss}


def run_stages(path: Path) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _STAGES, str(path)], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    return json.loads(out.stdout)


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_gcviewer(path: Path, jar: Path) -> dict[str, float]:
    csv = path.with_suffix(".gcviewer.csv")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    cpu0 = _children_cpu()
    t = time.perf_counter()
    subprocess.run([JAVA, "-jar", str(jar), str(path), str(csv), "-t", "SUMMARY"],
                   capture_output=True, check=True, timeout=1800)
    dt = time.perf_counter() - t
    cpu = _children_cpu() - cpu0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    text = csv.read_text(errors="replace")
    m = re.search(r"^pauseCount; ([\d,]+);", text, re.MULTILINE)
    return {"seconds": dt, "cpu_s": cpu, "pauses": int(m[1].replace(",", "")) if m else -1,
            # ru_maxrss of children is the max over all children so far: exact when it grew.
            "rss_kb": rss if rss > before else float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--skip-gcviewer", action="store_true")
    parser.add_argument("--stages", action="store_true", help="also print where jvmlab's time goes")
    parser.add_argument("--python", action="store_true", help="also time the pure-Python fallback")
    args = parser.parse_args()
    if not SOURCE.is_file():
        sys.exit(f"missing {SOURCE}; set JVMLAB_GCLOGS")
    jar = None if args.skip_gcviewer else ensure_gcviewer()
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "g1-1x.log"
        with zipfile.ZipFile(SOURCE) as zf, one.open("wb") as out:
            name = next(n for n in zf.namelist() if n.endswith(".log"))
            out.write(zf.read(name))
        big = Path(tmp) / f"g1-{args.copies}x.log"
        data = one.read_bytes()
        with big.open("wb") as out:
            for _ in range(args.copies):
                out.write(data)
        del data
        print(f"{'file':>10} {'MB':>7} | {'--json s':>8} {'MB/s':>6} {'RSS MB':>7} {'pauses':>7} "
              f"{'term s':>6} {'RSS MB':>7} {'py MB/s':>7} | "
              f"{'GCViewer s':>10} {'RSS MB':>7} {'pauses':>7} | {'wall ratio':>10} {'CPU ratio':>9}")
        for path in (one, big):
            mb = path.stat().st_size / 1e6
            ours = run_jvmlab(path)
            term = run_jvmlab(path, terminal=True)
            py = "-"
            if args.python:
                fallback = run_jvmlab(path, native=False)
                assert fallback["pauses"] == ours["pauses"], (fallback, ours)
                py = f"{mb / fallback['seconds']:.1f}"
            theirs = run_gcviewer(path, jar) if jar else None
            ratio = f"{theirs['seconds'] / ours['seconds']:.2f}x" if theirs else "-"
            cpu_ratio = f"{theirs['cpu_s'] / ours['cpu_s']:.2f}x" if theirs else "-"
            gcv = (f"{theirs['seconds']:10.2f} {theirs['rss_kb'] / 1024:7.0f} {theirs['pauses']:7d}"
                   if theirs else f"{'-':>10} {'-':>7} {'-':>7}")
            print(f"{path.name:>10} {mb:7.1f} | {ours['seconds']:8.2f} {mb / ours['seconds']:6.1f} "
                  f"{ours['rss_kb'] / 1024:7.0f} {ours['pauses']:7d} {term['seconds']:6.2f} "
                  f"{term['rss_kb'] / 1024:7.0f} {py:>7} | {gcv} | {ratio:>10} {cpu_ratio:>9}", flush=True)
        if args.stages:
            print(f"\nwhere jvmlab's time goes on {one.name} (CPU seconds, each stage run alone):")
            for stage, secs in run_stages(one).items():
                print(f"  {stage:46s} {secs:6.3f} s  {one.stat().st_size / 1e6 / secs if secs > 0 else 0:8.0f} MB/s")

if __name__ == "__main__":
    main()
