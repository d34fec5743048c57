"""How many invocations does `--until` need to resolve a 3% startup difference, against a
fixed 120 per cell? Target: at most a third (80 of 240).

    .venv/bin/python bench/until_vs_fixed.py            # simulated startups (5% CV), 20 seeds
    .venv/bin/python bench/until_vs_fixed.py --real     # real JVMs: busy --ms 1000 vs 1030

Both modes run the real planner, runner, store and statistics side by side in one run; the
simulated mode replaces only the JVM process by the seeded fake executor (startup-like
log-normal times with 5% CV), so its figures are reproducible. "Resolved" means the 95% CI
of the ratio excludes 1 in the right direction.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from jvmlab.execute.fake import FakeExecutor
from jvmlab.execute.local import LocalExecutor
from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.jdk import discover, select
from jvmlab.plan.prepare import prepare
from jvmlab.report.summary import summarize
from jvmlab.results.adaptive import store_precision_reached
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

SIMULATED = '''
[workload]
builtin = "hello"
[jvms]
j = "{home}"
[factors.speed]
base = "-Dfake.mean_s=0.500 -Dfake.cv=0.05"
slower = "-Dfake.mean_s=0.515 -Dfake.cv=0.05"
[run]
invocations = {n}
warmup = 0
seed = {seed}
'''

REAL = '''
[workload]
builtin = "busy"
[jvms]
j = "{home}"
[factors.speed]
base = {{ flags = "-Xshare:auto", args = ["--ms", "1000"] }}
slower = {{ flags = "-Xshare:auto", args = ["--ms", "1030"] }}
[run]
invocations = {n}
warmup = 1
seed = {seed}
'''


class Silent:
    def planned(self, *a): pass
    def starting(self, *a): pass
    def finished(self, *a): pass
    def warn(self, *a): pass
    def extended(self, *a): pass


def one(template: str, home: Path, n: int, seed: int, until: float | None, real: bool) -> tuple[int, bool, float]:
    text = template.format(home=home, n=n, seed=seed)
    plan = prepare(parse_spec(text), text, None)
    with tempfile.TemporaryDirectory() as tmp:
        store = SqlStore(f"sqlite:///{tmp}/lab.db")
        executor = LocalExecutor() if real else FakeExecutor(seed=seed)
        options = RunOptions(artifacts_root=Path(tmp) / "art", until_rel=until, max_invocations=240)
        started = time.monotonic()
        exp = run_experiment(plan, store, options, Silent(), executor=executor,
                             precision_check=store_precision_reached)
        elapsed = time.monotonic() - started
        summary = summarize(store, exp)
        [comp] = summary.analysis.comparisons
        used = sum(c.n for c in summary.cells)
        store.close()
    return used, bool(comp.ci95 and comp.ci95[0] > 1.0), elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--real", action="store_true", help="real JVMs instead of simulated startups")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--until", type=float, default=0.02, help="target CI half-width (0.02 = 2%%)")
    args = parser.parse_args()
    home = select("17", discover()).home
    template = REAL if args.real else SIMULATED
    seeds = range(1, (1 if args.real else args.seeds) + 1)
    adaptive = [one(template, home, 10, s, args.until, args.real) for s in seeds]
    fixed = [one(template, home, 120, s, None, args.real) for s in seeds]
    a_used = statistics.median(u for u, _, _ in adaptive)
    f_used = statistics.median(u for u, _, _ in fixed)
    print(f"mode: {'real JVMs (busy 1000 vs 1030 ms)' if args.real else 'simulated startups, 3% difference, 5% CV'}")
    print(f"--until {args.until:.0%}: median {a_used:.0f} invocations (range {min(u for u, _, _ in adaptive)}"
          f"-{max(u for u, _, _ in adaptive)}), resolved {sum(r for _, r, _ in adaptive)}/{len(adaptive)}, "
          f"median time {statistics.median(t for _, _, t in adaptive):.1f} s")
    print(f"fixed 120/cell: {f_used:.0f} invocations, resolved {sum(r for _, r, _ in fixed)}/{len(fixed)}, "
          f"median time {statistics.median(t for _, _, t in fixed):.1f} s")
    ratio = a_used / f_used
    print(f"ratio adaptive/fixed: {ratio:.2f} (target <= 0.33): {'PASS' if ratio <= 1 / 3 else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
