"""Time `jvmlab demo all` (the five classic scenarios) end to end, and say what each concluded.

Run:  .venv/bin/python bench/scenarios_all.py [--quick] [--store PATH]
      .venv/bin/python bench/scenarios_all.py --from-store PATH   (a `demo all` already run)

Runs `jvmlab demo all` (its reports and verdicts go to the terminal as they come), then reads
the store back and prints, per scenario: the wall time of its experiments (from each
experiment's creation, archive and tmpfs preparation included, to its end), the blocks run,
the CPU time of its invocations (user + sys: what a quiet machine's wall time is made of, less
sensitive to other processes than wall time), how many of the report's Holm-corrected
comparisons are significant, how many rows of the scenario's table are "clear", and its
conclusion. Then the elapsed time of the whole suite against the target (issue 34 item 3:
6 minutes in full mode on a quiet 2-core machine; quick mode: about 2 minutes per scenario).
Say whether the machine was quiet when quoting the figures: the wall times are of this run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TARGET_FULL_S = 6 * 60.0
TARGET_QUICK_S = 5 * 2 * 60.0  # five scenarios, at most about 2 minutes each
HARD_LIMIT_S = 3 * 3600.0  # never hang a bench run forever


@dataclass(frozen=True)
class ScenarioFigures:
    """What one scenario's experiments took and concluded."""

    scenario: str
    experiments: int
    wall_s: float
    blocks: int  # the most blocks any of its experiments ran
    invocations: int
    cpu_s: float
    significant: int  # Holm-corrected comparisons against the baseline that are significant
    comparisons: int
    clear_rows: int  # rows of the scenario's table whose answer is "clear"
    rows: int  # rows with an answer (the baselines' rows have none)
    conclusions: tuple[str, ...]

    @property
    def resolved(self) -> bool:
        """Something the scenario exists to show came out clear, in its table and in the report."""
        return self.clear_rows > 0 and self.significant > 0


def figures(store_path: str) -> list[ScenarioFigures]:
    """Per scenario (in the order run), from the store a `demo all` wrote."""
    from jvmlab.report.summary import summarize
    from jvmlab.scenarios import scenario_verdict
    from jvmlab.scenarios.table import CLEAR, ScenarioVerdict
    from jvmlab.scenarios.verdict import scenario_of
    from jvmlab.store import open_store

    db = open_store(store_path)
    grouped: dict[str, list[tuple[Any, Any, Any]]] = {}
    for exp in sorted(db.experiments(), key=lambda e: e.created_at):
        summary = summarize(db, exp.id)
        name = scenario_of(summary) or exp.name
        grouped.setdefault(name, []).append((exp, summary, scenario_verdict(name, summary, db)))
    out = []
    for name, items in grouped.items():
        wall = cpu = 0.0
        blocks = invocations = significant = comparisons = clear_rows = rows = 0
        conclusions = []
        for exp, summary, verdict in items:
            end = exp.finished_at if exp.finished_at is not None else max(
                (i.started_at + (i.wall_s or 0.0) for i in summary.invocations), default=exp.created_at)
            wall += end - exp.created_at
            measured = [i for i in summary.invocations if not i.warmup]
            invocations += len(measured)
            cpu += sum(i.cpu_s or 0.0 for i in measured)
            blocks = max(blocks, max((i.block for i in measured), default=-1) + 1)
            compared = summary.comparison.compared if summary.comparison is not None else ()
            comparisons += len(compared)
            significant += sum(1 for c in compared if c.comparison.significant)
            if isinstance(verdict, ScenarioVerdict):
                answered = [r for r in verdict.rows if r and r[-1]]
                rows += len(answered)
                clear_rows += sum(1 for r in answered if r[-1] == CLEAR)
                conclusions.append(verdict.conclusion)
            else:
                conclusions.append(str(verdict))
        out.append(ScenarioFigures(name, len(items), wall, blocks, invocations, cpu, significant, comparisons,
                                   clear_rows, rows, tuple(conclusions)))
    return out


def print_figures(found: list[ScenarioFigures]) -> None:
    print(f"\n{'scenario':11} {'wall s':>7} {'blocks':>6} {'runs':>5} {'CPU s':>7} {'Holm sig.':>9} "
          f"{'clear rows':>10}  resolved")
    for f in found:
        print(f"{f.scenario:11} {f.wall_s:7.0f} {f.blocks:6d} {f.invocations:5d} {f.cpu_s:7.0f} "
              f"{f.significant:>4}/{f.comparisons:<4} {f.clear_rows:>5}/{f.rows:<4}  {'yes' if f.resolved else 'NO'}")
    for f in found:
        for text in f.conclusions:
            print(f"  {f.scenario}: {text}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="time `jvmlab demo all --quick`")
    parser.add_argument("--store", help="SQLite store to use (default: a temporary file)")
    parser.add_argument("--from-store", help="print the figures of a `demo all` already run into this store")
    args = parser.parse_args()
    if args.from_store:
        found = figures(args.from_store)
        print_figures(found)
        return 0 if found and all(f.resolved for f in found) else 1
    with tempfile.TemporaryDirectory(prefix="jvmlab-bench-") as tmp:
        store = args.store or str(Path(tmp) / "bench.db")
        argv = [sys.executable, "-m", "jvmlab", "demo", "all", "--store", store] + (["--quick"] if args.quick else [])
        started = time.monotonic()
        code = subprocess.run(argv, timeout=HARD_LIMIT_S, check=False).returncode
        elapsed = time.monotonic() - started
        found = figures(store)
    print_figures(found)
    target = TARGET_QUICK_S if args.quick else TARGET_FULL_S
    mode = "quick" if args.quick else "full"
    unresolved = [f.scenario for f in found if not f.resolved]
    print(f"\njvmlab demo all ({mode}): {elapsed:.0f} s elapsed, exit code {code}; target {target:.0f} s; "
          f"elapsed/target = {elapsed / target:.2f}; "
          + (f"NOT resolved: {', '.join(unresolved)}" if unresolved else "every scenario resolved"))
    return code or (1 if unresolved else 0)


if __name__ == "__main__":
    raise SystemExit(main())
