"""The full `jvmlab demo largepages`: its wall time against the ~12 minute target, and the
cost of one random read with and without THP on each JDK, in one run.

    .venv/bin/python bench/largepages_demo.py [--store PATH] [--from-store PATH]

Runs the demo (argv list, no shell) into a fresh SQLite file (or ``--store``), then reads
what it stored and prints per JDK: the mean ns per read with default pages and with THP, the
paired change with its 95% CI (the verdict's interval), the blocks measured, the peak
AnonHugePages of the THP cells (THP took effect), and the demo's wall time. Targets: the
demo finishes in <= 12 minutes on a quiet 2-core machine, and every JDK's THP change is
resolved (its CI excludes zero) or the verdict says how many blocks it would need.
``--from-store`` prints the figures of a demo already run into that file (the wall time
then comes from the experiment's created/finished times).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from jvmlab.report.summary import summarize
from jvmlab.scenarios import largepages, scenario_verdict
from jvmlab.scenarios.stats import Machine, index_cells, key_with, mean_ci, pair_n, ratio_pct
from jvmlab.store import open_store

TARGET_S = 12 * 60


def run_demo(store: Path) -> float:
    """Run the full demo; its wall time in seconds."""
    jvmlab = Path(sys.executable).with_name("jvmlab")
    start = time.monotonic()
    subprocess.run([str(jvmlab), "demo", "largepages", "--store", str(store)], check=True,
                   stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def report(store: Path, wall_s: float | None) -> bool:
    """Print the figures of the last largepages experiment in ``store``; True when targets are met."""
    db = open_store(str(store))
    ids = [e.id for e in db.experiments() if (e.name or "").startswith("demo largepages")]
    if not ids:
        print(f"no largepages experiment in {store}")
        return False
    summary = summarize(db, ids[-1])
    exp = summary.experiment
    if wall_s is None and exp.finished_at is None:
        print(f"experiment {exp.id} did not finish (status {exp.status}): no wall time")
    wall = wall_s if wall_s is not None else (exp.finished_at or float("inf")) - exp.created_at
    cells = index_cells(summary)
    resolved = True
    print(f"{'JDK':6} {'default ns/read':>16} {'THP ns/read':>12} {'change (95% CI)':>28} {'blocks':>6} "
          f"{'THP AnonHugePages':>18}")
    for key, base in sorted(cells.items()):
        thp = cells.get(key_with(key, pages="thp"))
        if dict(key).get("pages") != "default" or thp is None:
            continue
        b, t = mean_ci(base, largepages.WALK), mean_ci(thp, largepages.WALK)
        judged = ratio_pct(Machine.of(summary), thp, base, largepages.WALK)
        change = None if judged is None else judged.value
        huge = thp.stats.get(largepages.ANON_HUGE)
        clear = judged is not None and judged.clear
        resolved &= clear
        text = "-" if change is None else f"{change[0]:+.1f}% [{change[1]:+.1f} … {change[2]:+.1f}]"
        print(f"{dict(key)['jvm']:6} {b[0] if b else float('nan'):16.0f} {t[0] if t else float('nan'):12.0f} "
              f"{text:>28} {pair_n(thp, base, largepages.WALK):6d} "
              f"{(huge.mean or 0) / (1 << 20) if huge else float('nan'):15.0f} MiB")
    print(f"demo wall time: {wall / 60:.1f} min (target <= {TARGET_S / 60:.0f} min on a quiet machine)")
    print(f"\n{scenario_verdict('largepages', summary)}")
    met = wall <= TARGET_S and resolved
    print(f"\ntargets {'met' if met else 'NOT met'}: wall time {'ok' if wall <= TARGET_S else 'too long'}, "
          f"THP effect {'resolved on every JDK' if resolved else 'not resolved on every JDK'}")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--store", type=Path, help="SQLite file for the demo (default: a temporary one)")
    parser.add_argument("--from-store", type=Path, help="print the figures of a demo already run into this file")
    args = parser.parse_args()
    if args.from_store is not None:
        return 0 if report(args.from_store, None) else 1
    with tempfile.TemporaryDirectory(prefix="jvmlab-largepages-") as tmp:
        store = args.store or Path(tmp) / "lab.db"
        wall = run_demo(store)
        return 0 if report(store, wall) else 1


if __name__ == "__main__":
    sys.exit(main())
