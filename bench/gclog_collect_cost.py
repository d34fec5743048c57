"""What the gc collector costs per invocation: the work GcProbe does on one log after the run.

Run:  .venv/bin/python bench/gclog_collect_cost.py [--copies 6] [--repeat 3] [--src DIR]

Builds a ZGC log of about 14 MB (N copies of gcgc's ZGCMetaspace.log from ../shared/gclogs,
a JDK 17 single-generation ZGC log with System.gc() and Metaspace collections) and times, in
a fresh process each, what `GcProbe` does with it: the summary, its findings, the metrics,
the timelines and the warning lines. ``--src`` points at another checkout's ``src`` (e.g. an
export of main: ``git archive main | tar -x -C /tmp/main``) to measure before and after on the
same machine in one run: the older collector read the log three more times (warnings,
findings' events and lines, timelines), this one reads it once.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))
SOURCE = SHARED / "gcgc" / "datasets" / "ZGCMetaspace.log"

_CHILD = """
import json, resource, sys, time
from pathlib import Path
from jvmlab.collect import gc
from jvmlab.gclog import analyze_paths, summary_metrics
from jvmlab.gclog.findings import summary_document
p = Path(sys.argv[1])
t, c = time.perf_counter(), time.process_time()
if hasattr(gc, "scan_warnings"):  # the collector before issue 41: four reads of the log
    gc.scan_warnings(p)
    s = analyze_paths([p])[0]
    doc = summary_document(s)
    gc.gc_timelines(p)
else:
    s = analyze_paths([p])[0]
    doc = summary_document(s)
    gc.gc_timelines(s)
summary_metrics(s)
print(json.dumps({"seconds": time.perf_counter() - t, "cpu_s": time.process_time() - c,
                  "findings": sorted(f["id"] for f in doc["findings"] or []),
                  "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def run(src: Path, path: Path) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(src)})
    return dict(json.loads(out.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--src", type=Path, action="append", default=[], help="another checkout's src (repeatable)")
    args = parser.parse_args()
    if not SOURCE.is_file():
        sys.exit(f"missing {SOURCE}; set JVMLAB_GCLOGS")
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "zgc.log"
        data = SOURCE.read_bytes()
        log.write_bytes(data * args.copies)
        mb = log.stat().st_size / 1e6
        print(f"ZGC log {mb:.1f} MB ({args.copies} copies of {SOURCE.name}); median of {args.repeat} runs")
        for src in [*args.src, REPO / "src"]:
            runs = [run(src, log) for _ in range(args.repeat)]
            wall = statistics.median(float(str(r["seconds"])) for r in runs)
            cpu = statistics.median(float(str(r["cpu_s"])) for r in runs)
            rss = max(int(str(r["rss_kb"])) for r in runs) / 1024
            print(f"  {src!s:40s} wall {wall:6.2f} s  CPU {cpu:6.2f} s  peak RSS {rss:5.0f} MB  "
                  f"findings {runs[0]['findings']}")


if __name__ == "__main__":
    main()
