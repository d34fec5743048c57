"""jvmlab's GC log parser against GCViewer 1.36, side by side in one run (issue 34 item 2).

    .venv/bin/python bench/gclog_vs_gcviewer.py [--runs 3] [--copies 10] [--skip-gcviewer]
    .venv/bin/python bench/gclog_vs_gcviewer.py --figures     # figures, not speed (below)

Speed: builds the 474 MB unified G1 log (``--copies`` concatenated copies of gctoolkit's
``unified/g1gc/jdk11_details.log`` from ../shared/gclogs) in a temp dir and times the
COMMAND as users run it, ``jvmlab gc analyze LOG --json`` and the terminal form (``jvmlab gc
analyze LOG``, output thrown away): process wall, CPU and peak RSS of the whole process under
``/usr/bin/time`` (start-up, parse, findings, output), and GCViewer (headless, ``-t SUMMARY``)
the same way, alternating the three ``--runs`` times each so load hits all alike; prints
each run, the medians of wall time, CPU time and peak RSS, the wall ratio, the pause counts,
and PASS/FAIL for: wall ratio >= 3, jvmlab RSS <= 200 MB, same pause count. Then, per
unified collector (G1, Parallel, ZGC as the goal; Serial, Shenandoah and generational ZGC
for information), a corpus log concatenated to ~50 MB is read in one process: its lines/s
and MB/s of CPU time (best of ``--runs``), PASS when >= 250 MB/s for G1, Parallel and ZGC.
On a loaded machine the wall figures measure the neighbours too; the ratio of runs taken
side by side, and the CPU rates, still mean something; say "loaded" when quoting them.

Figures (``--figures``): per log of ``REFERENCE-RUNS.tsv``, GCViewer 1.36's pause count,
accumulated pause time and longest pause next to ours (a reference, not ground truth: it
counts ZGC cycles as pauses and misreads some JDK 8u logs).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))
G1_ZIP = "gctoolkit-testdata/gctoolkit-gclogs/unified/g1gc/jdk11_details.log.zip"
RATE_LOGS = (  # (label, corpus file, part of the 250 MB/s goal)
    ("G1", G1_ZIP, True),
    ("Parallel", "gctoolkit-testdata/gctoolkit-gclogs/unified/parallel/parallelgc.log", True),
    ("ZGC", "gcgc/datasets/ZGCMetaspace.log", True),
    ("Serial", "gctoolkit-testdata/gctoolkit-gclogs/unified/serial/gc.log", False),
    ("Shenandoah", "gcviewer/src/test/resources/openjdk/unified-jvm-logging/SampleShenandoahSeveralSystemGC.txt",
     False),
    ("ZGC (generational)", "jvm-gc-logs-analyzer/safepoint-analyzer-commons/src/test/resources/zgc.log.gz", False),
)
JAVA = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
JAR = Path.home() / ".cache" / "jvmlab" / "tools" / "gcviewer-1.36.jar"
RATIO_GOAL, RSS_GOAL_MB, RATE_GOAL_MB_S = 3.0, 200.0, 250.0

_RATES = """
import json, sys, time
from pathlib import Path
from jvmlab.gclog import analyze_paths
p, runs = Path(sys.argv[1]), int(sys.argv[2])
analyze_paths([p])  # warm: the compiled filter is built once, the file is in the page cache
best = None
for _ in range(runs):
    c = time.process_time()
    (s,) = analyze_paths([p])
    c = time.process_time() - c
    best = c if best is None else min(best, c)
print(json.dumps({"cpu_s": best, "pauses": s.pause_count, "collector": s.collector}))
"""


def ensure_gcviewer() -> Path | None:
    """The GCViewer 1.36 jar, fetched once from Maven Central with mvn."""
    if JAR.is_file():
        return JAR
    JAR.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["mvn", "-q", "dependency:copy", "-Dartifact=com.github.chewiebug:gcviewer:1.36",
                           f"-DoutputDirectory={JAR.parent}"], capture_output=True, text=True, check=False)
    return JAR if proc.returncode == 0 and JAR.is_file() else None


def _text_of(path: Path) -> bytes:
    if path.name.endswith(".zip"):
        with zipfile.ZipFile(path) as zf:
            return zf.read(next(n for n in zf.namelist() if n.endswith(".log")))
    if path.name.endswith(".gz"):
        import gzip
        return gzip.decompress(path.read_bytes())
    return path.read_bytes()


def _write_copies(data: bytes, target: Path, copies: int) -> Path:
    with target.open("wb") as out:
        for _ in range(copies):
            out.write(data)
    return target


def run_jvmlab(path: Path, terminal: bool = False, src: Path = REPO / "src") -> dict[str, float]:
    """`jvmlab gc analyze PATH --json` (or the terminal form) under /usr/bin/time; ``src``: the
    checkout whose jvmlab runs (``--before``: another one, e.g. an export of main)."""
    env = {**os.environ, "PYTHONPATH": str(src), "COLUMNS": "120"}
    cmd = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", str(path.with_suffix(".time")), sys.executable, "-m",
           "jvmlab", "gc", "analyze", str(path)] + ([] if terminal else ["--json"])
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env, timeout=1800)
    wall = time.perf_counter() - t
    _, user, sys_s, rss_kb = path.with_suffix(".time").read_text().strip().splitlines()[-1].split()
    pauses = -1 if terminal else json.loads(proc.stdout)["logs"][0]["pauses"]["count"]
    return {"wall_s": wall, "cpu_s": float(user) + float(sys_s), "rss_mb": int(rss_kb) / 1024, "pauses": pauses}


def run_gcviewer(path: Path, jar: Path) -> dict[str, float]:
    csv_out = path.with_suffix(".gcviewer.csv")
    cmd = ["/usr/bin/time", "-f", "%e %U %S %M", JAVA, "-jar", str(jar), str(path), str(csv_out), "-t", "SUMMARY"]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=1800)
    wall = time.perf_counter() - t
    _, user, sys_s, rss_kb = proc.stderr.strip().splitlines()[-1].split()
    m = re.search(r"^pauseCount; ([\d,]+);", csv_out.read_text(errors="replace"), re.MULTILINE)
    return {"wall_s": wall, "cpu_s": float(user) + float(sys_s), "rss_mb": int(rss_kb) / 1024,
            "pauses": int(m[1].replace(",", "")) if m else -1}


def _lines(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 24), b""))


def speed(args: argparse.Namespace) -> bool:
    jar = None if args.skip_gcviewer else ensure_gcviewer()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        big = _write_copies(_text_of(args.gclogs / G1_ZIP), Path(tmp) / f"g1-{args.copies}x.log", args.copies)
        mb, lines = big.stat().st_size / 1e6, _lines(big)
        print(f"{big.name}: {mb:.0f} MB, {lines} lines; {args.runs} runs each, alternating; "
              f"load average {os.getloadavg()[0]:.1f} at start")
        ours: list[dict[str, float]] = []
        term: list[dict[str, float]] = []
        theirs: list[dict[str, float]] = []
        before: list[dict[str, float]] = []
        for i in range(args.runs):
            if args.before is not None:
                before.append(run_jvmlab(big, src=args.before))
                print(f"  run {i + 1} before: gc analyze --json wall {before[-1]['wall_s']:7.2f} s  "
                      f"cpu {before[-1]['cpu_s']:6.2f} s  rss {before[-1]['rss_mb']:6.0f} MB", flush=True)
            ours.append(run_jvmlab(big))
            print(f"  run {i + 1} jvmlab gc analyze --json wall {ours[-1]['wall_s']:7.2f} s  "
                  f"cpu {ours[-1]['cpu_s']:6.2f} s  rss {ours[-1]['rss_mb']:6.0f} MB  pauses {ours[-1]['pauses']:.0f}",
                  flush=True)
            term.append(run_jvmlab(big, terminal=True))
            print(f"  run {i + 1} jvmlab gc analyze (terminal) wall {term[-1]['wall_s']:7.2f} s  "
                  f"cpu {term[-1]['cpu_s']:6.2f} s  rss {term[-1]['rss_mb']:6.0f} MB", flush=True)
            if jar is not None:
                theirs.append(run_gcviewer(big, jar))
                print(f"  run {i + 1} GCViewer wall {theirs[-1]['wall_s']:7.2f} s  cpu {theirs[-1]['cpu_s']:6.2f} s  "
                      f"rss {theirs[-1]['rss_mb']:6.0f} MB  pauses {theirs[-1]['pauses']:.0f}", flush=True)

        def med(rows: list[dict[str, float]], key: str) -> float:
            return statistics.median(r[key] for r in rows)

        ow, oc, orss = med(ours, "wall_s"), med(ours, "cpu_s"), max(r["rss_mb"] for r in ours + term)
        print(f"jvmlab --json median wall {ow:.2f} s ({mb / ow:.0f} MB/s, {lines / ow / 1e6:.2f} M lines/s), "
              f"cpu {oc:.2f} s ({mb / oc:.0f} MB/s); terminal form median wall {med(term, 'wall_s'):.2f} s, "
              f"cpu {med(term, 'cpu_s'):.2f} s; peak RSS {orss:.0f} MB")
        if before:
            print(f"before ({args.before}) --json median wall {med(before, 'wall_s'):.2f} s, "
                  f"cpu {med(before, 'cpu_s'):.2f} s, peak RSS {max(r['rss_mb'] for r in before):.0f} MB")
        rss_ok = orss <= RSS_GOAL_MB
        print(f"  RSS <= {RSS_GOAL_MB:.0f} MB: {'PASS' if rss_ok else 'FAIL'}")
        ok &= rss_ok
        if theirs:
            tw, tc = med(theirs, "wall_s"), med(theirs, "cpu_s")
            print(f"GCViewer median wall {tw:.2f} s ({mb / tw:.0f} MB/s, {lines / tw / 1e6:.2f} M lines/s), "
                  f"cpu {tc:.2f} s, peak RSS {max(r['rss_mb'] for r in theirs):.0f} MB")
            same = {r["pauses"] for r in ours} == {r["pauses"] for r in theirs}
            ratio_ok = tw / max(ow, med(term, "wall_s")) >= RATIO_GOAL
            print(f"  wall ratio GCViewer/jvmlab --json {tw / ow:.2f}x, /terminal {tw / med(term, 'wall_s'):.2f}x "
                  f"(CPU {tc / oc:.2f}x) >= {RATIO_GOAL:.0f}x: "
                  f"{'PASS' if ratio_ok else 'FAIL'}; same pause count: {'PASS' if same else 'FAIL'}")
            ok &= ratio_ok and same
        print(f"\nCPU rate per unified log (~50 MB each, best of {args.runs}; goal >= {RATE_GOAL_MB_S:.0f} MB/s "
              f"for G1, Parallel, ZGC):")
        for label, name, goal in RATE_LOGS:
            source = args.gclogs / name
            if not source.is_file():
                print(f"  {label:20} missing {name}")
                continue
            data = _text_of(source)
            path = _write_copies(data, Path(tmp) / "rate.log", max(1, 50_000_000 // len(data)))
            env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
            out = subprocess.run([sys.executable, "-c", _RATES, str(path), str(args.runs)], capture_output=True,
                                 text=True, check=True, env=env, timeout=1800)
            r = json.loads(out.stdout)
            size, n = path.stat().st_size / 1e6, _lines(path)
            rate = size / r["cpu_s"]
            verdict = ("PASS" if rate >= RATE_GOAL_MB_S else "FAIL") if goal else "(info)"
            ok &= rate >= RATE_GOAL_MB_S or not goal
            print(f"  {label:20} {size:5.0f} MB {n / r['cpu_s'] / 1e6:6.2f} M lines/s {rate:7.0f} MB/s  "
                  f"{r['pauses']:7d} pauses  {verdict}", flush=True)
    print("\noverall:", "PASS" if ok else "FAIL")
    return ok


def _gcviewer_fields(result: str) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for key in ("pauses", "accum", "max", "fullGCPause"):
        m = re.search(rf"\b{key}=([0-9.]+)", result)
        out[key] = float(m.group(1)) if m else None
    return out


def _close(a: float | None, b: float | None, rounding: float = 0.001) -> bool:
    """Within 1%, or within the rounding of GCViewer's printed figure."""
    return a is not None and b is not None and abs(a - b) <= max(rounding, 0.01 * max(abs(a), abs(b)))


def figures(gclogs: Path) -> int:
    from jvmlab.errors import UserError
    from jvmlab.gclog import analyze_paths

    table = gclogs / "REFERENCE-RUNS.tsv"
    if not table.is_file():
        print(f"no {table}: pass --gclogs", file=sys.stderr)
        return 2
    rows = [r for r in csv.DictReader(table.open(), delimiter="\t") if r["tool"].startswith("gcviewer")]
    agree = {"max": 0, "accum": 0, "count": 0}
    compared = 0
    print(f"{'log':58} | {'GCViewer n / accum s / max s':30} | {'jvmlab n / accum s / max s':30} | agree")
    for row in rows:
        ref = _gcviewer_fields(row["result"])
        try:
            [summary] = analyze_paths([gclogs / row["file"]])[:1] or [None]
        except UserError as err:
            print(f"{row['file'][-58:]:58} | {row['result'][:30]:30} | refused: {err}")
            continue
        doc = summary.to_json() if summary else {}
        pauses = doc.get("pauses") or {}
        n, total_ms, max_ms = pauses.get("count"), pauses.get("total_ms"), pauses.get("max_ms")
        ours = (n, None if total_ms is None else total_ms / 1000, None if max_ms is None else max_ms / 1000)
        marks = []
        if ref["max"] is not None:
            compared += 1
            for name, a, b, rounding in (("max", ref["max"], ours[2], 0.00001),
                                         ("accum", ref["accum"], ours[1], 0.005),  # printed to 0.01 s
                                         ("count", ref["pauses"], ours[0], 0.0)):
                if _close(a, b, rounding):
                    agree[name] += 1
                    marks.append(name)
        ref_txt = f"{ref['pauses']} / {ref['accum']} / {ref['max']}"
        our_txt = " / ".join("-" if v is None else (f"{v:.5g}") for v in ours)
        print(f"{row['file'][-58:]:58} | {ref_txt:30} | {our_txt:30} | {' '.join(marks)}")
    print(f"\nlogs GCViewer reports a pause maximum for: {compared}")
    for name, count in agree.items():
        print(f"agree on {name}: {count}/{compared}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gclogs", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--skip-gcviewer", action="store_true")
    parser.add_argument("--before", type=Path, default=None, help="another checkout's src: its command timed alike")
    parser.add_argument("--figures", action="store_true", help="compare figures with REFERENCE-RUNS.tsv instead")
    args = parser.parse_args()
    if args.figures:
        return figures(args.gclogs)
    if not (args.gclogs / G1_ZIP).is_file():
        print(f"missing {args.gclogs / G1_ZIP}; pass --gclogs or set JVMLAB_GCLOGS", file=sys.stderr)
        return 2
    return 0 if speed(args) else 1


if __name__ == "__main__":
    sys.exit(main())
