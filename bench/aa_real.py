"""A/A on real JVMs: how often does jvmlab call identical settings different?

    .venv/bin/python bench/aa_real.py                        # 40 experiments x 4 levels x 15 blocks
    .venv/bin/python bench/aa_real.py --experiments 5 --blocks 10   # a shorter look
    .venv/bin/python bench/aa_real.py --from /tmp/aa_real.json      # re-analyse a saved run, no JVM

Each experiment runs JDK 17 HelloWorld at 4 identical levels (they differ only by an unused
system property) in randomised blocks, through the real planner, runner, store and
statistics, and compares 3 levels with the first (Holm). Printed side by side:

* per-comparison false positives: significant comparisons / all comparisons;
* family-wise: experiments with at least one significant comparison / experiments, with a
  Clopper-Pearson 95% interval. PASS when the point estimate is at or below the nominal 5%
  (Holm's promise), FAIL when the whole interval is above it, UNDECIDED otherwise; 20
  experiments cannot separate 5% from 10% (2/20 has the interval 1.2-32%);
* the same counting only *called* differences: the verdict withholds a difference whose
  interval stays within what the run's busy blocks or drift could produce
  (jvmlab.analyze.interference; with 8+ quiet blocks, those alone are compared), and says so;
* the within-block run order: how often each level ran at each position (a check that
  the schedule was randomised in every block);
* the rule's family-wise rate on this very noise, by re-randomisation: the recorded values
  of each block are dealt to the labels again (``--rerandomize`` times per experiment) and
  the same decision rule runs on each relabelling (jvmlab.analyze.falsepositives).

The raw per-invocation values (cell, block, position, wall_s) and the busy-machine rows
are saved as JSON (``--save``), so a run can be re-analysed with ``--from``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from jvmlab.analyze.falsepositives import Rate, any_significant, rerandomized_rate
from jvmlab.analyze.model import CellData
from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.jdk import discover, select
from jvmlab.plan.prepare import prepare
from jvmlab.report.summary import summarize
from jvmlab.report.verdicts import disturbance_text
from jvmlab.results.compare import VerdictKind, ci_excludes_one, compare_cells
from jvmlab.results.records import BusyBlock
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
METRIC = "wall_s"
COLLECTORS_OFF = {"gc": False, "proc": False, "progress": False, "workload_metrics": False, "flag_effect": False}


class Silent:
    """A run observer that shows nothing (the bench prints one line per experiment)."""

    def planned(self, *a: object) -> None: ...
    def starting(self, *a: object) -> None: ...
    def finished(self, *a: object) -> None: ...
    def warn(self, *a: object) -> None: ...
    def extended(self, *a: object) -> None: ...


def run_one(home: Path, k: int, blocks: int, root: Path, seed_base: int) -> dict[str, Any]:
    """Run one A/A experiment; its raw record and the verdicts jvmlab printed for it."""
    seed = seed_base + k
    text = SPEC.format(k=k, home=home, blocks=blocks, seed=seed)
    plan = prepare(parse_spec(text), text, None)
    store = SqlStore(f"sqlite:///{root / f'aa{k}.db'}")
    try:
        options = RunOptions(artifacts_root=root / f"art{k}", collect_overrides=COLLECTORS_OFF)
        exp = run_experiment(plan, store, options, Silent())
        s = summarize(store, exp)
    finally:
        store.close()
    names = {c.cell.id: c.cell.name for c in s.cells}
    record = {
        "seed": seed, "baseline": s.baseline, "cells": [c.cell.name for c in s.cells],
        "invocations": [{"cell": names[i.cell_id], "block": i.block, "position": i.position,
                         "status": i.status, METRIC: i.wall_s} for i in s.invocations if not i.warmup],
        "busy_blocks": [asdict(b) for b in s.results.busy_blocks],
        "printed_significant": [v for c in s.analysis.comparisons if c.significant
                                for v in [s.verdicts.get(c.cell, "")]],
    }
    return record


def cells_of(record: Mapping[str, Any]) -> dict[str, CellData]:
    """The recorded values as the statistics take them: one value per ok invocation, with blocks."""
    out: dict[str, CellData] = {}
    for name in record["cells"]:
        ok = [i for i in record["invocations"] if i["cell"] == name and i["status"] == "ok"]
        out[name] = CellData.of([i[METRIC] for i in ok], [i["block"] for i in ok])
    return out


def analyse(record: Mapping[str, Any]) -> dict[str, Any]:
    """The pipeline's decision on one recorded experiment (as `report` makes it)."""
    busy = tuple(BusyBlock(**b) for b in record["busy_blocks"])
    n_blocks = len({i["block"] for i in record["invocations"] if i["status"] == "ok"})
    result = compare_cells(cells_of(record), record["baseline"], METRIC, lower_is_better=True,
                           seed=record["seed"], busy=busy, n_blocks=n_blocks)
    comps = [c.comparison for c in result.compared]
    texts = {c.cell: disturbance_text(c.disturbance) for c in result.compared if c.disturbance is not None}
    return {"comparisons": len(comps), "significant": sum(c.significant for c in comps),
            "called": sum(c.kind in (VerdictKind.BETTER, VerdictKind.WORSE) for c in result.compared),
            "disturbed": "; ".join(sorted({t for t in texts.values() if t})),
            "ci_without_test": sum(ci_excludes_one(c.ci95) and not c.significant for c in comps),
            "test_without_ci": sum(c.significant and not ci_excludes_one(c.ci95) for c in comps),
            "min_p_adjusted": min((c.p_adjusted for c in comps if c.p_adjusted is not None), default=None)}


def positions_table(records: list[dict[str, Any]]) -> str:
    """How often each level ran at each position of its block (uniform under randomisation),
    and whether every block held each level exactly once."""
    counts: Counter[tuple[str, int]] = Counter()
    bad_blocks = 0
    levels: list[str] = []
    for r in records:
        levels = r["cells"]
        by_block: dict[int, list[int]] = {}
        for i in r["invocations"]:
            counts[(i["cell"], i["position"])] += 1
            by_block.setdefault(i["block"], []).append(i["position"])
        bad_blocks += sum(sorted(p) != list(range(len(levels))) for p in by_block.values())
    width = len(levels)
    lines = [f"{'position in block':22}" + "".join(f"{p:>8}" for p in range(width))]
    for name in levels:
        lines.append(f"{name:22}" + "".join(f"{counts[(name, p)]:>8}" for p in range(width)))
    lines.append(f"blocks whose positions are not one permutation of the levels: {bad_blocks}")
    return "\n".join(lines)


def report(records: list[dict[str, Any]], rounds: int, seconds: float | None) -> None:
    """Print the observed rates, the run order check and the re-randomised rate."""
    results = []
    for k, r in enumerate(records):
        a = analyse(r)
        results.append(a)
        p = a["min_p_adjusted"]
        smallest = f"smallest Holm p {p:.3f}" if p is not None else "no p-value"
        print(f"experiment {k + 1:2d}: {a['significant']}/{a['comparisons']} significant, {a['called']} called; "
              f"{smallest}; {'disturbed: ' + a['disturbed'] if a['disturbed'] else 'not disturbed'}", flush=True)
        for line in r.get("printed_significant", []):
            print(f"    {line}")
    n_exp, n_comp = len(results), sum(a["comparisons"] for a in results)
    sig, called = sum(a["significant"] for a in results), sum(a["called"] for a in results)
    fw_sig = Rate(sum(1 for a in results if a["significant"]), n_exp)
    fw_called = Rate(sum(1 for a in results if a["called"]), n_exp)
    blocks = max((i["block"] for r in records for i in r["invocations"]), default=-1) + 1
    took = f", {seconds:.0f} s" if seconds is not None else ""
    print(f"\n{n_exp} A/A experiments x {len(records[0]['cells'])} identical levels x {blocks} blocks "
          f"(JDK 17 HelloWorld){took}")
    print(f"per comparison, significant: {sig}/{n_comp} = {sig / max(n_comp, 1):.1%}; "
          f"called: {called}/{n_comp} = {called / max(n_comp, 1):.1%}")
    print(f"family-wise, significant:    {fw_sig.describe()}")
    print(f"family-wise, called:         {fw_called.describe()}")
    print(f"95% CI excludes 1 but the Holm-corrected test is not significant (said 'inconclusive'): "
          f"{sum(a['ci_without_test'] for a in results)}/{n_comp}; significant with a CI holding 1: "
          f"{sum(a['test_without_ci'] for a in results)}/{n_comp}")
    disturbed = sum(1 for a in results if a["disturbed"])
    print(f"experiments with a comparison withheld (its CI within what busy blocks or drift could produce): "
          f"{disturbed}/{n_exp}; "
          f"with any busy-machine row: {sum(1 for r in records if r['busy_blocks'])}/{n_exp}")
    print("\nwithin-block run order (count of invocations per level and position):")
    print(positions_table(records))
    if rounds > 0:
        started = time.monotonic()
        rate = rerandomized_rate([cells_of(r) for r in records], rounds, 20261123,
                                 any_significant(records[0]["baseline"], METRIC))
        print(f"\nre-randomised within blocks ({rounds} relabellings of each recorded experiment, "
              f"{time.monotonic() - started:.0f} s):")
        print(f"family-wise, significant:    {rate.describe()}")
    print(f"\nfamily-wise called rate <= 5% (target on a quiet machine): {fw_called.describe()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--experiments", type=int, default=40)
    parser.add_argument("--blocks", type=int, default=15)
    parser.add_argument("--seed-base", type=int, default=1000, help="experiment k runs with seed SEED_BASE + k")
    parser.add_argument("--rerandomize", type=int, default=25, metavar="N",
                        help="relabellings per recorded experiment (0: none)")
    parser.add_argument("--save", type=Path, help="where to write the raw values (default: a file in the temp dir)")
    parser.add_argument("--from", dest="source", type=Path, help="re-analyse a saved run instead of running JVMs")
    args = parser.parse_args()
    if args.source is not None:
        records = json.loads(args.source.read_text())["experiments"]
        report(records, args.rerandomize, None)
        return 0
    home = select("17", discover()).home
    started = time.monotonic()
    records = []
    with tempfile.TemporaryDirectory(prefix="jvmlab-aa-") as tmp:
        for k in range(args.experiments):
            records.append(run_one(home, k, args.blocks, Path(tmp), args.seed_base))
            print(f"ran experiment {k + 1}/{args.experiments}", file=sys.stderr, flush=True)
    seconds = time.monotonic() - started
    save = args.save or Path(tempfile.gettempdir()) / f"aa_real-{time.strftime('%Y%m%d-%H%M%S')}.json"
    save.write_text(json.dumps({"bench": "aa_real", "jdk": str(home), "blocks": args.blocks, "metric": METRIC,
                                "experiments": records}, separators=(",", ":")))
    print(f"raw values saved to {save}")
    report(records, args.rerandomize, seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
