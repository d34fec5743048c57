"""Right answers on a busy machine (issue 40): real JVMs with effects known by construction,
under a load this bench starts and stops, judged by jvmlab's one interference model.

Cells of one experiment (``bench/java/BusyTruth.java``; randomized blocks, baseline ``aa``):
``aa``, ``aa2``, ``aa3`` and ``aa4`` (A/A: the same command; three A/A comparisons per experiment,
each against ``aa``), ``tiny`` (5 M iterations: the JVM's start-up and the
loop's compilation with almost no work, to build the CPU construction), ``w5``, ``w10``, ``w50``
(5, 10, 50% more loop iterations),
``sleep100`` (a 100 ms sleep after the work), ``hold300`` (300 MiB held and touched).

Loads (``python -c "while True: pass"`` processes this bench starts and kills by pid):
``0`` (none), ``1x`` (one per core), ``2x`` (two per core), ``drop`` (one per core, stopped
halfway through the experiment).

Constructions: CPU time is linear in the iterations W once the loop is compiled, ``a + b W``; from
``aa`` (W iterations, mean CPU ``c0``) and ``tiny`` (5 M, mean ``c1``), ``b = (c0 - c1) / (W - 5)``
and the CPU ratio of ``wX`` over ``aa`` is ``1 + x b W / c0``. ``c0`` and ``c1`` are the means of
the *other* experiments at the same load (leave one out): a construction drawn from the same
blocks as the interval under test moves with that interval's own noise (a low ``c0`` raises the
measured ratio and lowers the construction). The first runs (coverage 18 of 24) did so, and
took the intercept from a cell with no iterations at all, which never compiles the loop (so it
missed the JIT's CPU). Peak RSS of
``hold300`` is called when its CI lies above 1; wall time's calls are counted (under load its
ratio has no construction to cover). Each verdict is `jvmlab report`'s
(:func:`jvmlab.results.analyze_experiment`, the one model of :mod:`jvmlab.analyze.interference`).

A history series: 8 labels of one cell, +50% work from v4 on, the load on for v0-v5 and off
from v6 on: `history` on CPU time must find v4; on wall time it must never call a wrong label
(v6 may only be "inconclusive: the machine changed").

Targets (docs/statistics.md "Busy machines"): A/A false calls <= 5% at every load; +50% called
>= 90% on CPU time at every load and >= 80% on wall time at 1x; the 300 MB called every time;
CPU CIs cover the construction >= 90%; history finds v4 >= 90% on CPU time, never a wrong label
on wall time. ``--quick``: one experiment per load with 6 blocks, 150 M iterations, one series
of 3 runs per label (a smoke run: the rates need ``--repeats 40``).

``--gate-pairs N``: the across-runs gate on unchanged pairs instead (issue 40 item 4): N runs of
one unchanged spec one after another, each consecutive pair through ``jvmlab compare A B
--fail-if`` exactly as a CI job calls it; the exit codes are counted (0 pass, 1 fail, 3
inconclusive). Target: fails <= 5% of the pairs.

    .venv/bin/python bench/busy_truth.py --quick
    .venv/bin/python bench/busy_truth.py --repeats 40 --blocks 12
    .venv/bin/python bench/busy_truth.py --gate-pairs 41
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from aa_real import Silent
from busy import load_at_start, warn_if_busy
from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.jdk import discover, select
from jvmlab.model.stored import SeriesTag
from jvmlab.plan.prepare import prepare
from jvmlab.results import VerdictKind, analyze_experiment, load_experiment
from jvmlab.results.history import load_history
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

SOURCE = Path(__file__).resolve().parent / "java" / "BusyTruth.java"
BASE_WORK = 400  # million iterations: about half a second of one core (--quick: 150)
TINY_WORK = 5  # million iterations: enough to compile the loop, about 1% of BASE_WORK's CPU


def cells(work: int) -> dict[str, list[str]]:
    return {"aa": [], "aa2": [], "aa3": [], "aa4": [], "tiny": ["--work", str(TINY_WORK)],
            "w5": ["--work", str(work * 105 // 100)], "w10": ["--work", str(work * 110 // 100)],
            "w50": ["--work", str(work * 150 // 100)],
            "sleep100": ["--sleep-ms", "100"], "hold300": ["--hold-mb", "300"]}


CELLS = cells(BASE_WORK)


def extra_work(work: int) -> dict[str, float]:
    """The share of iterations each ``wX`` cell adds over ``aa`` (exact, after integer rounding)."""
    return {c: int(args[1]) / work - 1 for c, args in cells(work).items() if c in ("w5", "w10", "w50")}
LOADS = {"0": 0, "1x": 1, "2x": 2, "drop": 1}
CALLED = (VerdictKind.BETTER, VerdictKind.WORSE)
AA = ("aa2", "aa3", "aa4")


class HalfwayStop(Silent):
    """Stops a load once half of the experiment's invocations have finished (the load that drops mid-run)."""

    def __init__(self, load: Load, total: int) -> None:
        self.load, self.total, self.done = load, total, 0

    def finished(self, *a: object) -> None:
        self.done += 1
        if self.done == self.total // 2:
            self.load.stop()


class Load:
    """``per_core`` spinning processes per core, started now; ``stop`` kills them by pid."""

    def __init__(self, per_core: int) -> None:
        n = per_core * (os.cpu_count() or 1)
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]

    def stop(self) -> None:
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait(timeout=10)
        self.procs = []


def compile_workload(home: Path, folder: Path) -> None:
    subprocess.run([str(home / "bin" / "javac"), "-d", str(folder), str(SOURCE)], check=True, timeout=120)


def spec_text(home: Path, classes: Path, arms: dict[str, list[str]], blocks: int, seed: int, name: str,
              work: int = BASE_WORK) -> str:
    levels = "\n".join(f'"{c}" = {{ flags = [], args = {args!r} }}'.replace("'", '"') for c, args in arms.items())
    return f'''name = "{name}"
[workload]
main = "BusyTruth"
classpath = ["{classes}"]
args = ["--work", "{work}"]
timeout = "120s"
[jvms]
jdk17 = "{home}"
[factors.arm]
{levels}
[matrix]
baseline = {{ jvm = "jdk17", arm = "{next(iter(arms))}" }}
[run]
invocations = {blocks}
warmup = 1
order = "random-blocks"
seed = {seed}
'''


def run_one(store: SqlStore, root: Path, text: str, series: SeriesTag | None = None,
            observer: Silent | None = None) -> int:
    plan = prepare(parse_spec(text), text, None)
    options = RunOptions(artifacts_root=root / "art", series=series)
    return run_experiment(plan, store, options, observer or Silent())


def cell_mean(results: Any, name: str, metric: str) -> float | None:
    cell = next((c for c in results.cells if c.levels.get("arm") == name), None)
    values = [v for inv in results.ok(cell) if (v := inv.value(metric)) is not None] if cell else []
    return sum(values) / len(values) if values else None


def judge(store: SqlStore, exp: int) -> dict[str, Any]:
    """Each cell's verdict kind, ratio and CI on wall, CPU and RSS; the CPU constructions."""
    results = load_experiment(store, exp, documents=False)
    out: dict[str, Any] = {"delay_s": cell_mean(results, "aa", "sched.run_delay_s")}
    for metric in ("wall_s", "cpu_s", "max_rss_bytes"):
        done = analyze_experiment(results, metric)
        for c in done.comparison.compared:
            name = c.cell.split("arm=")[-1]
            out[(name, metric)] = (c.kind, c.comparison.ratio, c.comparison.ci95)
    out["c0"], out["c1"] = cell_mean(results, "aa", "cpu_s"), cell_mean(results, "tiny", "cpu_s")
    return out


def constructions(recs: list[dict[str, Any]], work: int) -> list[dict[str, float] | None]:
    """Each experiment's CPU-ratio constructions from the other experiments at its load (its own
    when it is the only one, which the table then says)."""
    out: list[dict[str, float] | None] = []
    for k in range(len(recs)):
        others = [r for j, r in enumerate(recs) if j != k] or recs
        pairs = [(r["c0"], r["c1"]) for r in others if r.get("c0") and r.get("c1") is not None]
        if not pairs:
            out.append(None)
            continue
        c0, c1 = (sum(p[i] for p in pairs) / len(pairs) for i in (0, 1))
        b = (c0 - c1) / (work - TINY_WORK)
        out.append({cell: 1 + x * b * work / c0 for cell, x in extra_work(work).items()})
    return out


def run_experiment_at(load: str, k: int, home: Path, classes: Path, root: Path, blocks: int,
                      work: int) -> dict[str, Any]:
    """Experiment ``k`` at one load: its verdicts (the load started before it, stopped after or halfway)."""
    store = SqlStore(f"sqlite:///{root / f'{load}-{k}.db'}")
    spinning = Load(LOADS[load]) if LOADS[load] else None
    arms = cells(work)
    observer = HalfwayStop(spinning, (blocks + 1) * len(arms)) if load == "drop" and spinning else None
    try:
        exp = run_one(store, root / f"{load}-{k}", spec_text(home, classes, arms, blocks, 4000 + k,
                                                                f"busy_truth {load} {k}", work), None, observer)
    finally:
        if spinning is not None:
            spinning.stop()
    record = judge(store, exp)
    store.close()
    kinds = {f"{cell} {metric}": f"{kind} {ratio:.3f}" if ratio else str(kind)
             for key, (kind, ratio, _) in ((k, v) for k, v in record.items() if isinstance(k, tuple))
             for cell, metric in [key] if metric == "wall_s" or cell in ("w50", "hold300")}
    print(f"  load {load}, run {k + 1}: delay per run (aa) {record.get('delay_s')}; "
          + "; ".join(f"{k}: {v}" for k, v in kinds.items()), flush=True)
    return record


def table(by_load: dict[str, list[dict[str, Any]]], work: int) -> str:
    rows = ["| load | runs | run-queue delay per run (aa) | A/A false calls wall / CPU | +5% CPU | +10% CPU | "
            "+50% CPU / wall | +100 ms wall | 300 MB RSS | CPU CI covers construction |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for load, recs in by_load.items():
        n = len(recs)

        def called(cell: str, metric: str, recs: list[dict[str, Any]] = recs) -> int:
            return sum(r.get((cell, metric), (None,))[0] in CALLED for r in recs)

        def aa(metric: str, n: int = n) -> str:
            return f"{sum(called(c, metric) for c in AA)}/{len(AA) * n}"

        covered = total = 0
        for r, built in zip(recs, constructions(recs, work), strict=True):
            for cell, truth in (built or {}).items():
                ci = r.get((cell, "cpu_s"), (None, None, None))[2]
                if ci is not None:
                    total += 1
                    covered += ci[0] <= truth <= ci[1]
        delays = [r["delay_s"] for r in recs if r.get("delay_s") is not None]
        delay = f"{sum(delays) / len(delays):.2f} s" if delays else "-"
        rows.append(f"| {load} | {n} | {delay} | {aa('wall_s')} / {aa('cpu_s')} | "
                    f"{called('w5', 'cpu_s')}/{n} | {called('w10', 'cpu_s')}/{n} | "
                    f"{called('w50', 'cpu_s')}/{n} / {called('w50', 'wall_s')}/{n} | "
                    f"{called('sleep100', 'wall_s')}/{n} | {called('hold300', 'max_rss_bytes')}/{n} | "
                    f"{covered}/{total}{'' if n > 1 else ' (own blocks)'} |")
    return "\n".join(rows)


def history_series(home: Path, classes: Path, root: Path, runs: int, base: int,
                   n: int = 0) -> dict[str, list[tuple[str, bool]]]:
    """8 labels, +50% work from v4, the load on for v0-v5: what history says on CPU and wall."""
    store = SqlStore(f"sqlite:///{root / f'series{n}.db'}")
    try:
        for i in range(8):
            work = base * 3 // 2 if i >= 4 else base
            spinning = Load(1) if i < 6 else None
            try:
                run_one(store, root / f"s{n}v{i}", spec_text(home, classes, {"app": ["--work", str(work)]}, runs,
                                                              5000 + 100 * n + i,
                                                         "busy_truth series", base),
                        SeriesTag(f"v{i}", "busy_truth", float(i)))
            finally:
                if spinning is not None:
                    spinning.stop()
        out = {}
        for metric in ("cpu_s", "wall_s"):
            (cell,) = load_history(store, "busy_truth", [metric]).cells
            seg = cell.segmentation
            out[metric] = [(cell.label_at(c.index), cell.machine_change_at(c.index))
                           for c in (seg.changes if seg else ())]
        return out
    finally:
        store.close()


def said(changes: list[tuple[str, bool]]) -> str:
    return ", ".join(label + (" (machine changed)" if changed else "") for label, changed in changes) or "no change"


GATE = ("wall_s > +10%", "cpu_s > +10%")


def gate_pairs(home: Path, classes: Path, root: Path, runs: int, blocks: int, work: int) -> str:
    """``runs`` runs of one unchanged spec (load 0), each consecutive pair through the CLI's gate."""
    store_url = f"sqlite:///{root / 'gate.db'}"
    store = SqlStore(store_url)
    text = spec_text(home, classes, {"app": [], "app2": []}, blocks, 6000, "busy_truth gate", work)
    try:
        ids = []
        for i in range(runs):
            ids.append(run_one(store, root / f"gate{i}", text.replace("seed = 6000", f"seed = {6000 + i}")))
    finally:
        store.close()
    jvmlab = Path(sys.executable).with_name("jvmlab")
    codes: dict[int, int] = defaultdict(int)
    for a, b in itertools.pairwise(ids):
        argv = [str(jvmlab), "compare", str(a), str(b), "--store", store_url]
        for cond in GATE:
            argv += ["--fail-if", cond]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        codes[done.returncode] += 1
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()
        print(f"  pair {a} -> {b}: exit {done.returncode}: {said[-1] if said else ''}", flush=True)
    n = len(ids) - 1
    return (f"gate {' and '.join(GATE)} on {n} consecutive unchanged pairs ({blocks} blocks, 2 identical cells): "
            f"fail (exit 1) {codes[1]}/{n}, inconclusive (exit 3) {codes[3]}/{n}, pass (exit 0) {codes[0]}/{n}"
            + (f", other {sum(v for k, v in codes.items() if k not in (0, 1, 3))}" if set(codes) - {0, 1, 3} else ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one experiment per load, 8 blocks, one series")
    parser.add_argument("--repeats", type=int, default=40, help="experiments per load (>= 40 for the rates; 0: none)")
    parser.add_argument("--blocks", type=int, default=12, help="blocks (invocations per cell) per experiment")
    parser.add_argument("--loads", default=",".join(LOADS), help="which loads, comma-separated")
    parser.add_argument("--work", type=int, default=BASE_WORK, help="million loop iterations of aa")
    parser.add_argument("--series", type=int, default=1, help="history series to run (0: none)")
    parser.add_argument("--gate-pairs", type=int, default=0, metavar="N",
                        help="instead: N unchanged runs, each consecutive pair through `jvmlab compare --fail-if`")
    parser.add_argument("--save", type=Path, help="write every experiment's verdicts as JSON here")
    args = parser.parse_args()
    repeats, blocks, work = (1, 6, 150) if args.quick else (args.repeats, args.blocks, args.work)
    start_load = load_at_start()
    home = select("17", discover()).home
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="busy_truth") as tmp:
        root = Path(tmp)
        classes = root / "classes"
        compile_workload(home, classes)
        if args.gate_pairs:
            print(gate_pairs(home, classes, root, args.gate_pairs, blocks, work))
            print(f"\n{time.time() - started:.0f} s; 1-minute load average at the start: {start_load:.1f}")
            warn_if_busy(start_load)
            return 0
        by_load: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for k in range(repeats):  # rounds: every load once per round, so a run stopped early has them all
            print(f"round {k + 1}/{repeats}: {len(CELLS)} cells x {blocks} blocks at each load", flush=True)
            for load in args.loads.split(","):
                by_load[load].append(run_experiment_at(load, k, home, classes, root, blocks, work))
            print(f"\nafter {k + 1} round(s), {time.time() - started:.0f} s:\n" + table(by_load, work) + "\n",
                  flush=True)
            if args.save:
                args.save.write_text(json.dumps({load: [{str(key): v for key, v in r.items()} for r in recs]
                                                 for load, recs in by_load.items()}, indent=1, default=str))
        found: dict[str, int] = defaultdict(int)
        for k in range(args.series):
            series = history_series(home, classes, root, 3 if args.quick else 5, work, k)
            cpu, wall = series["cpu_s"], series["wall_s"]
            print(f"history {k + 1}/{args.series} (+50% work from v4; load on v0-v5, off from v6): "
                  f"CPU time: {said(cpu)}; wall time: {said(wall)}", flush=True)
            found["cpu v4"] += any(label == "v4" and not changed for label, changed in cpu)
            found["cpu wrong"] += any(label != "v4" and not changed for label, changed in cpu)
            found["wall wrong"] += any(label != "v4" and not changed for label, changed in wall)
        if args.series:
            print(f"\nhistory over {args.series} series: CPU time found v4 in {found['cpu v4']}, "
                  f"a wrong label in {found['cpu wrong']}; wall time called a wrong label in {found['wall wrong']}")
    print(f"\n{time.time() - started:.0f} s; 1-minute load average at the start: {start_load:.1f} "
          f"on {os.cpu_count()} CPUs")
    warn_if_busy(start_load)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
