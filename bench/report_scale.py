"""Report scale: an experiment of 10,000 invocations (timelines included) renders its HTML
and terminal reports in under 5 s each and the HTML file stays under 10 MB.

Run: .venv/bin/python bench/report_scale.py [--invocations 10000] [--keep DIR]

The experiment is generated into a fresh SQLite store with seeded values through SqlStore
(jvmlab.report.synthetic; generation is not timed). Times are printed side by side with
the targets as ratios (below 1.0 = within target).
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from jvmlab.report.html import write_html
from jvmlab.report.summary import summarize
from jvmlab.report.synthetic import SyntheticSpec, generate
from jvmlab.report.terminal import render
from jvmlab.store.sql import SqlStore

TARGET_S = 5.0
TARGET_BYTES = 10 * 1024 * 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--invocations", type=int, default=10_000, help="measured invocations in all")
    parser.add_argument("--keep", type=Path, help="folder to keep the store and the report in")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="jvmlab-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    spec = SyntheticSpec(jvms=("jdk17", "jdk21", "jdk25"), gc_levels=("g1", "parallel", "z", "shenandoah"),
                         invocations=max(1, args.invocations // 12), samples=100, pauses=40, failures=5)
    store = SqlStore(f"sqlite:///{folder / 'bench.db'}")
    t0 = time.perf_counter()
    exp_id = generate(store, spec)
    n = len(store.invocations(exp_id))
    print(f"generated {n} invocations (12 cells, {spec.samples} samples x 9 series + {spec.pauses} pauses each) "
          f"in {time.perf_counter() - t0:.1f} s")

    t0 = time.perf_counter()
    summary = summarize(store, exp_id, timelines=None)  # load -> compare -> render, as `jvmlab report`
    summary_s = time.perf_counter() - t0  # report/summary.py: shared by every output

    t0 = time.perf_counter()
    render(summary, Console(file=io.StringIO(), width=160))
    terminal_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    html_summary = summarize(store, exp_id)  # the HTML report also loads the drawn timelines
    html_summary_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = write_html(html_summary, folder / "report.html")
    html_s = time.perf_counter() - t0
    size = out.stat().st_size

    print(f"{'measure':34} {'value':>9} {'target':>9} {'ratio':>7}")
    rows = [("terminal report incl. summary (s)", summary_s + terminal_s, TARGET_S),
            ("HTML report incl. summary (s)", html_summary_s + html_s, TARGET_S),
            ("HTML size (MB)", size / 2**20, TARGET_BYTES / 2**20)]
    for name, value, target in rows:
        print(f"{name:34} {value:9.2f} {target:9.2f} {value / target:7.2f}")
    print(f"  of which: summary {summary_s:.2f} s (with timelines {html_summary_s:.2f} s), "
          f"terminal rendering {terminal_s:.2f} s, HTML rendering {html_s:.2f} s")
    print(f"report: {out}")
    return 0 if all(v <= t for _, v, t in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
