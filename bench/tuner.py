"""The tuner against the truth (seeded simulation) and against a full grid (real JVMs).

Run:  .venv/bin/python bench/tuner.py [--quick] [--seeds 20] [--no-real]

Simulation (src/jvmlab/tune/sim.py: a known surface over collector x heap x pause goal x GC
threads x a boolean, 5% log-normal noise, 3% block drift), per seed:
  * the winner's true wall time vs the true optimum (target: within 2% in >= 18/20 seeds);
  * the tuner's invocations (search + confirmation) vs a full grid with the same per-cell
    precision: the 6-point grid's cells x the invocations one cell needs for a 2% CI
    half-width at 5% noise (target: <= 25%);
  * plain random search at the same number of invocations (random configurations, 5
    invocations each, best mean wins): who found the truly faster configuration
    (target: the tuner in >= 16/20);
  * whether the confirmation CI (winner / baseline) covers the true ratio (target >= 18/20).
Real JVMs: the demo's workload (hold: a 40 MiB live set, 1 GiB of garbage; baseline -Xmx48m,
a heap far too small) over 3 collectors x 6 (quick: 2) heap sizes x AlwaysPreTouch off/on,
the full grid (each cell the same number of invocations, in randomized blocks) and the tuner
at a quarter of the grid's invocations (at least 30): the tuner's confirmed winner, the grid's
best, the baseline and JDK defaults, and the invocations each used.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src")]

from jvmlab.tune.engine import make_config, tune  # noqa: E402
from jvmlab.tune.model import Config  # noqa: E402
from jvmlab.tune.sim import SimMeasurer, sim_config, true_metrics, true_optimum  # noqa: E402
from jvmlab.tune.space import Budget, grid_size  # noqa: E402

NOISE_CV = 0.05
CELL_N = math.ceil((1.96 * NOISE_CV / 0.02) ** 2)  # one cell's invocations for a 2% CI half-width


def random_search(cfg, seed: int, budget: int, per_config: int = 5) -> tuple[str, ...]:
    """Plain random search: random points, a few unpaired invocations each, best mean wins."""
    rng = np.random.default_rng(seed + 1000)
    measurer = SimMeasurer(seed + 1000)
    best, best_flags, block = math.inf, (), 0
    while budget >= per_config:
        values = {}
        for p in cfg.params:
            if p.active(values):
                grid = p.grid(24)
                values[p.name] = grid[rng.integers(len(grid))]
        flags = make_config(cfg, values, "default").flags
        walls = []
        for _ in range(per_config):
            block += 1
            walls.append(measurer.measure("default", flags, block, 0)["wall_s"])
        budget -= per_config
        if np.mean(walls) < best:
            best, best_flags = float(np.mean(walls)), flags
    return best_flags


def simulation(seeds: int) -> None:
    # no guardrail here: the optimum and random search are then unconstrained too (guardrails: tests)
    base = sim_config(guardrails=[])
    grid_inv = grid_size(base) * CELL_N
    budget = int(0.25 * grid_inv) - base.confirm_max_blocks * 3
    opt = true_optimum(base)
    default = true_metrics(())["wall_s"]
    print(f"simulation: true optimum {opt:.3f} s, JDK defaults {default:.3f} s; grid {grid_size(base)} cells x "
          f"{CELL_N} = {grid_inv} invocations; tuner search budget {budget} (+ confirmation)")
    within = beats = covered = 0
    used = []
    for seed in range(seeds):
        cfg = dataclasses.replace(base, seed=seed, budget=Budget(None, budget, None))
        t0 = time.monotonic()
        result = tune(cfg, SimMeasurer(seed), "default")
        winner = true_metrics(result.winner.flags)["wall_s"]
        rnd = true_metrics(random_search(cfg, seed, result.invocations))["wall_s"]
        conf = result.confirmations[0]
        truth = winner / default
        ci = conf.against.get("baseline", (math.nan, (math.nan, math.nan)))[1]
        ok_ci = ci[0] <= truth <= ci[1] if conf.blocks else math.isclose(winner, default)
        within += winner <= 1.02 * opt
        beats += winner < rnd
        covered += ok_ci
        used.append(result.invocations)
        print(f"  seed {seed:2d}: winner {winner:.3f} s ({(winner / opt - 1) * 100:+.1f}% vs optimum), random "
              f"{rnd:.3f} s, {result.invocations} invocations ({result.invocations / grid_inv:.0%} of grid), "
              f"CI {ci[0]:.3f}..{ci[1]:.3f} vs true ratio {truth:.3f} {'covered' if ok_ci else 'MISSED'}"
              f" [{time.monotonic() - t0:.1f}s]")
    print(f"within 2% of optimum: {within}/{seeds} (target >= {math.ceil(0.9 * seeds)}); beats random search: "
          f"{beats}/{seeds} (target >= {math.ceil(0.8 * seeds)}); CI covers truth: {covered}/{seeds} "
          f"(target >= {math.ceil(0.9 * seeds)}); invocations: max {max(used)} = {max(used) / grid_inv:.0%} "
          f"of the grid's {grid_inv} (target <= 25%)")


REAL_SPEC = """
name = "bench-tuner"
[workload]
builtin = "hold"
args = {args}
[tune]
objective = "wall_s"
baseline = "{baseline}"
budget = {{ invocations = {budget} }}
max_blocks = 8
confirm_max_blocks = {confirm}
[tune.params.gc]
type = "categorical"
values = {{ g1 = "-XX:+UseG1GC", serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }}
[tune.params.heap]
type = "categorical"
values = {{ {heaps} }}
[tune.params.pretouch]
type = "categorical"
values = {{ off = "", on = "-XX:+AlwaysPreTouch" }}
"""


def real(quick: bool) -> None:
    from jvmlab.execute.windows import default_executor
    from jvmlab.machine.fingerprint import fingerprint
    from jvmlab.plan.prepare import prepare
    from jvmlab.scenarios.tune import DEMO_ARGS, DEMO_BASELINE
    from jvmlab.spec.load import parse_spec
    from jvmlab.store import open_store
    from jvmlab.tune.flow import read_config
    from jvmlab.tune.jvm import JvmMeasurer

    sizes = ["48m", "256m"] if quick else ["48m", "64m", "96m", "128m", "256m", "512m"]
    per_cell = 3 if quick else 6
    cells = 3 * len(sizes) * 2
    grid_inv = cells * per_cell
    budget = max(int(0.25 * grid_inv), 30)  # baseline + a few races: fewer cannot promote anything
    heaps = ", ".join(f'h{s} = "-Xmx{s}"' for s in sizes)
    text = REAL_SPEC.format(args=DEMO_ARGS, baseline=DEMO_BASELINE, budget=budget, confirm=6 if quick else 10,
                            heaps=heaps)
    plan = prepare(parse_spec(text), text, None)
    cfg = read_config(plan)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "lab.db"))
        exp = store.create_experiment(name="bench", spec_text=text, spec_hash="x", spec_path=None,
                                      fingerprint=fingerprint(plan.jdk_homes), seed=1, command_line="bench",
                                      jvmlab_version="bench", artifacts_dir=tmp)
        t0 = time.monotonic()
        with JvmMeasurer(plan, store, exp, Path(tmp), default_executor()) as measurer:
            result = tune(cfg, measurer, "default")
        tuner_s = time.monotonic() - t0
        grid = _grid(cfg, plan, store, tmp, per_cell)
    defaults = grid.pop("", float("nan"))
    baseline = grid.pop(DEMO_BASELINE, float("nan"))
    best = min(grid, key=lambda k: grid[k])
    winner = " ".join(result.winner.flags)
    conf = result.confirmations[0]
    states = sorted({t.state for t in result.trials})
    print(f"real JVMs (hold --live-mb 40 --alloc-mb 1024, baseline {DEMO_BASELINE}, {cells} cells, "
          f"machine state as it was):")
    print(f"  tuner: winner {winner or '(baseline)'}, {result.invocations} invocations incl. confirmation "
          f"({tuner_s:.0f} s), budget {budget}; {len(result.trials)} trials "
          f"({', '.join(f'{sum(t.state == s for t in result.trials)} {s}' for s in states)})")
    print(f"         confirmed vs baseline: {conf.verdicts.get('baseline')}; vs JDK defaults: "
          f"{conf.verdicts.get('defaults', '-')}")
    rank = sorted(grid.values()).index(grid[winner]) + 1 if winner in grid else "-"
    print(f"  grid:  best {best} mean {grid[best]:.4f} s, {grid_inv} invocations; the tuner's winner in the grid: "
          f"{grid.get(winner, float('nan')):.4f} s (rank {rank} of {cells}); baseline {baseline:.4f} s; "
          f"JDK defaults {defaults:.4f} s (both measured with the grid, not counted)")


def _grid(cfg, plan, store, tmp: str, per_cell: int) -> dict[str, float]:
    from jvmlab.execute.windows import default_executor
    from jvmlab.machine.fingerprint import fingerprint
    from jvmlab.tune.jvm import JvmMeasurer

    exp = store.create_experiment(name="grid", spec_text="", spec_hash="y", spec_path=None,
                                  fingerprint=fingerprint(plan.jdk_homes), seed=1, command_line="bench",
                                  jvmlab_version="bench", artifacts_dir=tmp)
    with JvmMeasurer(plan, store, exp, Path(tmp), default_executor()) as measurer:
        return _grid_means(cfg, measurer, per_cell)


def _grid_means(cfg, measurer, per_cell: int) -> dict[str, float]:
    configs = [make_config(cfg, {"gc": g, "heap": h, "pretouch": t}, "default")
               for g in cfg.params[0].choices for h in cfg.params[1].choices for t in cfg.params[2].choices]
    configs = [c for c in configs if c.flags]  # the grid proper
    configs.append(make_config(cfg, {}, "default"))  # the JDK defaults, for reference (not counted)
    configs.append(Config({}, "default", tuple(cfg.baseline_flags)))  # the baseline, for reference
    walls: dict[str, list[float]] = {}
    rng = np.random.default_rng(1)
    for block in range(1, per_cell + 1):
        for position, i in enumerate(rng.permutation(len(configs))):
            if measurer.rejected("default", configs[i].flags) is not None:
                continue
            got = measurer.measure("default", configs[i].flags, block, position)
            if isinstance(got, dict):
                walls.setdefault(" ".join(configs[i].flags), []).append(got["wall_s"])
    return {k: float(np.mean(v)) for k, v in walls.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--no-real", action="store_true")
    parser.add_argument("--no-sim", action="store_true")
    args = parser.parse_args()
    if not args.no_sim:
        simulation(args.seeds)
    if not args.no_real:
        real(args.quick)


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    main()
