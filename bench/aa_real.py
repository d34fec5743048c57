"""A/A on real JVMs: how often does jvmlab call identical settings different?

    .venv/bin/python bench/aa_real.py                       # 20 experiments x 4 levels x 15 blocks
    .venv/bin/python bench/aa_real.py --experiments 5 --blocks 10   # a shorter look

Each experiment runs JDK 17 HelloWorld at 4 identical levels (they differ only by an unused
system property) in 15 randomised blocks, through the real planner, runner, store and
statistics, and compares 3 levels with the first (Holm). Printed side by side:

* per-comparison false positives: significant comparisons / all comparisons;
* family-wise: experiments with at least one significant comparison / experiments
  (target: at or below the nominal 5% on a quiet machine);
* the same counting only *called* differences: the verdict does not call a difference
  when the run was disturbed (drift of a cell or the baseline, a busy machine in a
  quarter of the blocks: jvmlab.report.trust), and says so instead;
* how many experiments were disturbed, and the busy-machine warnings seen.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from jvmlab.execute.options import RunOptions
from jvmlab.execute.runner import run_experiment
from jvmlab.jdk import discover, select
from jvmlab.plan.prepare import prepare
from jvmlab.report.summary import summarize
from jvmlab.report.trust import interference
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

SPEC = '''name = "aa_real {k}"
[workload]
builtin = "hello"
[jvms]
jdk17 = "{home}"
[factors.copy]
a = "-Djvmlab.copy=a"
b = "-Djvmlab.copy=b"
c = "-Djvmlab.copy=c"
d = "-Djvmlab.copy=d"
[run]
invocations = {blocks}
warmup = 1
order = "random-blocks"
seed = {seed}
'''
NOT_CALLED = "not called a difference"
COLLECTORS_OFF = {"gc": False, "proc": False, "progress": False, "workload_metrics": False, "flag_effect": False}


class Silent:
    """A run observer that shows nothing (the bench prints one line per experiment)."""

    def planned(self, *a: object) -> None: ...
    def starting(self, *a: object) -> None: ...
    def finished(self, *a: object) -> None: ...
    def warn(self, *a: object) -> None: ...
    def extended(self, *a: object) -> None: ...


def one(home: Path, k: int, blocks: int, root: Path) -> dict:
    """Run one A/A experiment; count its significant and its called comparisons."""
    text = SPEC.format(k=k, home=home, blocks=blocks, seed=1000 + k)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{root / f'aa{k}.db'}")
    try:
        options = RunOptions(artifacts_root=root / f"art{k}", collect_overrides=COLLECTORS_OFF)
        exp = run_experiment(plan, store, options, Silent())
        s = summarize(store, exp)
        blocks = {i.block for i in s.invocations if i.status == "ok" and i.block >= 0}
        disturbed = interference(s.analysis, store.hazards(exp), len(blocks))
    finally:
        store.close()
    comps = s.analysis.comparisons
    verdicts = [s.verdicts.get(c.cell, "") for c in comps]
    significant = [c for c in comps if c.significant]
    called = [c for c, v in zip(comps, verdicts, strict=True) if c.significant and NOT_CALLED not in v]
    busy = next((h.detail for h in s.hazards if h.kind == "busy-machine"), "")
    return {"comparisons": len(comps), "significant": len(significant), "called": len(called),
            "disturbed": "; ".join(sorted(set(disturbed.values()))), "busy": busy,
            "median_ms": 1000 * (s.cells[0].stats["wall_s"].median or 0.0),
            "lines": [v for c, v in zip(comps, verdicts, strict=True) if c.significant]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--experiments", type=int, default=20)
    parser.add_argument("--blocks", type=int, default=15)
    args = parser.parse_args()
    home = select("17", discover()).home
    started = time.monotonic()
    results = []
    with tempfile.TemporaryDirectory(prefix="jvmlab-aa-") as tmp:
        for k in range(args.experiments):
            r = one(home, k, args.blocks, Path(tmp))
            results.append(r)
            print(f"experiment {k + 1:2d}: {r['significant']}/{r['comparisons']} significant, "
                  f"{r['called']} called; median {r['median_ms']:.1f} ms; "
                  f"{'disturbed: ' + r['disturbed'] if r['disturbed'] else 'not disturbed'}", flush=True)
            for line in r["lines"]:
                print(f"    {line}")
    n_comp = sum(r["comparisons"] for r in results)
    n_exp = len(results)
    sig = sum(r["significant"] for r in results)
    called = sum(r["called"] for r in results)
    fw_sig = sum(1 for r in results if r["significant"])
    fw_called = sum(1 for r in results if r["called"])
    print(f"\n{n_exp} A/A experiments x 4 identical levels x {args.blocks} blocks (JDK 17 HelloWorld), "
          f"{time.monotonic() - started:.0f} s")
    print(f"{'':28}{'significant':>14}{'called':>14}")
    print(f"{'per comparison':28}{f'{sig}/{n_comp} = {sig / n_comp:.1%}':>14}"
          f"{f'{called}/{n_comp} = {called / n_comp:.1%}':>14}")
    print(f"{'family-wise (experiments)':28}{f'{fw_sig}/{n_exp} = {fw_sig / n_exp:.1%}':>14}"
          f"{f'{fw_called}/{n_exp} = {fw_called / n_exp:.1%}':>14}")
    disturbed = sum(1 for r in results if r["disturbed"])
    print(f"disturbed experiments (drift, or busy in >= 1/4 of the blocks): {disturbed}/{n_exp}; "
          f"with any busy-machine warning: {sum(1 for r in results if r['busy'])}/{n_exp}")
    target = fw_called / n_exp <= 0.05
    print(f"family-wise called rate <= 5% (target on a quiet machine): {'PASS' if target else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
