"""The tuner against the truth (seeded simulation) and against a full grid (real JVMs).

Run:  .venv/bin/python bench/tuner.py [--quick] [--seeds 20] [--no-real] [--no-sim] [--real-seeds 5]
                                      [--alloc-mb N] [--grid-file FILE]

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
Real JVMs: the demo's workload (hold: a 40 MiB live set, 1 GiB of garbage (quick: 4 GiB over
its 3 heaps, so that each cell's 10 invocations rank the grid's top: at 256 MiB the best cell's
mean had a 7-8% standard error on this 2-core machine and the grid's best changed between runs);
baseline -Xmx48m, a heap far too small) over 3 collectors x 6 (quick: 3) heap sizes x
AlwaysPreTouch off/on: the full grid once (each cell 25 invocations, as in the simulation;
quick: 10; in randomized blocks), then
the tuner in --real-seeds runs (default 5) at a quarter of the grid's invocations, confirmation
included; each winner's grid mean against the grid's best (target: within 2% in >= 4 of 5 seeds,
at most 25% of the grid's invocations). Needs a quiet machine for the 2% to mean anything.
Each seed's trials are printed (origin, flags, state, blocks, ratio and interval, the cell's
grid mean). --grid-file keeps the grid's wall times (JSON) and reads them back when the file
exists, so tuner runs can be repeated against one measured grid; --alloc-mb sets hold's garbage.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
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


def real(quick: bool, seeds: int, grid_file: Path | None = None, alloc_mb: int | None = None) -> None:
    """The grid measured once; the tuner run ``seeds`` times (its seed only changes) at a quarter
    of the grid's invocations, confirmation included; each winner looked up in the grid by its
    effective flags (tune/identity.py: the baseline's -Xmx48m is the grid's G1 cell at 48m)."""
    from jvmlab.execute.windows import default_executor
    from jvmlab.machine.fingerprint import fingerprint
    from jvmlab.plan.prepare import prepare
    from jvmlab.scenarios.tune import DEMO_BASELINE
    from jvmlab.spec.load import parse_spec
    from jvmlab.store import open_store
    from jvmlab.tune.flow import read_config
    from jvmlab.tune.identity import for_measurer
    from jvmlab.tune.jvm import JvmMeasurer

    sizes = ["48m", "128m", "512m"] if quick else ["48m", "64m", "96m", "128m", "256m", "512m"]
    args = f'["--live-mb", "40", "--alloc-mb", "{alloc_mb or (4096 if quick else 1024)}"]'
    # The grid's cells get the precision the simulation gives them (CELL_N: a 2% CI half-width at
    # 5% noise); quick: 10. A grid of 6 invocations per cell cannot rank cells 2% apart, and a
    # quarter of it leaves the tuner one or two races.
    per_cell = 10 if quick else CELL_N
    cells = 3 * len(sizes) * 2
    grid_inv = cells * per_cell
    confirm = 3 if quick else 8
    budget = int(0.25 * grid_inv) - 3 * confirm  # the search; the confirmation's 3 configs fill the rest
    heaps = ", ".join(f'h{s} = "-Xmx{s}"' for s in sizes)
    text = REAL_SPEC.format(args=args, baseline=DEMO_BASELINE, budget=budget, confirm=confirm, heaps=heaps)
    plan = prepare(parse_spec(text), text, None)
    base_cfg = read_config(plan)
    print(f"real JVMs (hold {args}, baseline {DEMO_BASELINE}): grid {cells} cells x {per_cell} = {grid_inv} "
          f"invocations; tuner search budget {budget} + confirmation <= {3 * confirm}; machine as it was", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(str(Path(tmp) / "lab.db"))

        def measurer(name: str) -> JvmMeasurer:
            exp = store.create_experiment(name=name, spec_text=text, spec_hash=name, spec_path=None,
                                          fingerprint=fingerprint(plan.jdk_homes), seed=1, command_line="bench",
                                          jvmlab_version="bench", artifacts_dir=tmp)
            return JvmMeasurer(plan, store, exp, Path(tmp), default_executor())

        t0 = time.monotonic()
        with measurer("grid") as grid_measurer:
            same = for_measurer(grid_measurer)
            if grid_file is not None and grid_file.exists():
                walls, flags_of = _load_grid(grid_file)
                print(f"  grid read from {grid_file} (measured earlier)", flush=True)
            else:
                walls, flags_of = _grid_walls(base_cfg, grid_measurer, per_cell, same)
                if grid_file is not None:
                    _save_grid(grid_file, walls, flags_of)
        grid = {k: (float(np.mean(v)), flags_of[k]) for k, v in walls.items()}
        for k in sorted(grid, key=lambda k: grid[k][0]):
            v = walls[k]
            print(f"    {grid[k][0]:.4f} s (sd {np.std(v, ddof=1) / grid[k][0]:.1%}, n {len(v)})  {grid[k][1]}")
        best = min(grid, key=lambda k: grid[k][0])
        print(f"  grid ({time.monotonic() - t0:.0f} s): best {grid[best][1]} {grid[best][0]:.4f} s; worst "
              f"{max(v[0] for v in grid.values()):.4f} s", flush=True)
        # how precisely the grid ranks its top: "within 2% of the grid's best" needs the best's
        # mean known to well under 2%, and cells within a few standard errors of it are ties
        se = float(np.std(walls[best], ddof=1) / math.sqrt(len(walls[best])) / grid[best][0])
        near = sum(v[0] <= grid[best][0] * (1 + 2 * se) for v in grid.values())
        print(f"  the best cell's mean has a {se:.1%} standard error; {near} cells lie within two of it "
              f"({sum(v[0] <= 1.02 * grid[best][0] for v in grid.values())} within 2%)", flush=True)
        within = small = 0
        for seed in range(seeds):
            cfg = dataclasses.replace(base_cfg, seed=seed)
            t0 = time.monotonic()
            with measurer(f"tune-{seed}") as m:
                result = tune(cfg, m, "default")
            mean = grid.get(same(result.winner), (math.nan, ""))[0]
            gap = mean / grid[best][0] - 1
            within += gap <= 0.02
            small += result.invocations <= 0.25 * grid_inv
            states = sorted({t.state for t in result.trials})
            print(f"  seed {seed}: winner {' '.join(result.winner.flags) or '(JDK defaults)'}: grid mean {mean:.4f} s "
                  f"({gap * 100:+.1f}% vs the grid's best); {result.invocations} invocations "
                  f"({result.invocations / grid_inv:.0%} of the grid); {len(result.trials)} trials "
                  f"({', '.join(f'{sum(t.state == s for t in result.trials)} {s}' for s in states)}), "
                  f"{sum(t.origin == 'combined' for t in result.trials)} combined [{time.monotonic() - t0:.0f} s]",
                  flush=True)
            for t in result.trials:
                ci = f"{t.ci[0]:.3f}..{t.ci[1]:.3f}" if t.ci else "-"
                cell = grid.get(same(t.config), (math.nan, ""))[0]
                print(f"      trial {t.number} [{t.origin}] {' '.join(t.config.flags) or '(JDK defaults)'}: "
                      f"{t.state}, {t.blocks} blocks, ratio {t.ratio or math.nan:.3f} CI {ci}; "
                      f"grid mean {cell:.4f} s", flush=True)
    print(f"  within 2% of the grid's best: {within}/{seeds}; at most 25% of the grid's invocations: {small}/{seeds} "
          f"(target: both in >= 4 of 5 seeds)")


def _save_grid(path: Path, walls: dict[str, list[float]], flags_of: dict[str, str]) -> None:
    path.write_text(json.dumps({k: {"flags": flags_of[k], "wall_s": v} for k, v in walls.items()}, indent=1))


def _load_grid(path: Path) -> tuple[dict[str, list[float]], dict[str, str]]:
    doc = json.loads(path.read_text())
    return {k: v["wall_s"] for k, v in doc.items()}, {k: v["flags"] for k, v in doc.items()}


def _grid_walls(cfg, measurer, per_cell: int, same) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Every cell of the grid (no duplicates by effective flags), ``per_cell`` invocations each
    in randomized blocks: effective key -> its wall times, and effective key -> its flags."""
    configs: dict[str, Config] = {}
    for g in cfg.params[0].choices:
        for h in cfg.params[1].choices:
            for t in cfg.params[2].choices:
                c = make_config(cfg, {"gc": g, "heap": h, "pretouch": t}, "default")
                configs.setdefault(same(c), c)
    walls: dict[str, list[float]] = {}
    order = list(configs)
    rng = np.random.default_rng(1)
    for block in range(1, per_cell + 1):
        for position, i in enumerate(rng.permutation(len(order))):
            c = configs[order[i]]
            if measurer.rejected("default", c.flags) is not None:
                continue
            got = measurer.measure("default", c.flags, block, position)
            if isinstance(got, dict):
                walls.setdefault(order[i], []).append(got["wall_s"])
    return walls, {k: " ".join(configs[k].flags) for k in walls}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--no-real", action="store_true")
    parser.add_argument("--no-sim", action="store_true")
    parser.add_argument("--real-seeds", type=int, default=5, help="tuner runs on real JVMs against one grid")
    parser.add_argument("--alloc-mb", type=int, help="hold's garbage per invocation (default 4096 quick, 1024)")
    parser.add_argument("--grid-file", type=Path, help="keep the real grid's wall times here (JSON); "
                        "when the file exists, the grid is read from it instead of measured again")
    args = parser.parse_args()
    if not args.no_sim:
        simulation(args.seeds)
    if not args.no_real:
        real(args.quick, args.real_seeds, args.grid_file, args.alloc_mb)


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    main()
