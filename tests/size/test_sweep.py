"""Sweep planning, the knee, the sweep spec, and the sweep report on a real SQLite store
filled by a fake executor whose time falls with the heap (seeded)."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.execute.options import RunOptions
from jvmlab.execute.session import run_experiment
from jvmlab.model.process import InvocationPlan, ProcessMeasures, ProcessResult, Status
from jvmlab.plan.prepare import prepare
from jvmlab.report.heapsweep import figure, sweep_html
from jvmlab.sizing.flow import plan_sweep, run_sweep
from jvmlab.sizing.sweep import (
    Curve,
    CurvePoint,
    geometric_multiples,
    levels_from_multiples,
    levels_from_sizes,
    parse_multiples,
    sweep_toml,
)
from jvmlab.spec.load import parse_spec
from jvmlab.store.sql import SqlStore

MB = 1 << 20


def test_geometric_ladder_is_finer_at_small_heaps() -> None:
    ladder = geometric_multiples(1, 4, 7)
    assert ladder[0] == 1 and ladder[-1] == 4 and len(ladder) == 7
    gaps = [b - a for a, b in itertools.pairwise(ladder)]
    assert all(g1 < g2 for g1, g2 in itertools.pairwise(gaps))
    assert parse_multiples("1-4:7") == ladder
    assert parse_multiples("2, 1,1.5") == (1.0, 1.5, 2.0)
    with pytest.raises(UserError):
        parse_multiples("1,x")


def test_levels_round_up_to_whole_mib_and_merge_duplicates() -> None:
    levels = levels_from_multiples(70 * MB + 5, [1, 1.0001, 2])
    assert [lv.heap_bytes for lv in levels] == [71 * MB, 141 * MB]
    assert levels[0].name == "x1" and levels[0].multiple == 1
    assert [lv.name for lv in levels_from_sizes(["1g", "256m"])] == ["h256m", "h1024m"]


def _point(heap_mb: int, mean: float) -> CurvePoint:
    return CurvePoint(f"h{heap_mb}", heap_mb * MB, None, 5, mean, mean * 0.98, mean * 1.02)


def test_knee_is_the_smallest_heap_within_x_of_the_best() -> None:
    c = Curve("g", "wall_s", True, (_point(64, 3.0), _point(96, 1.3), _point(128, 1.04), _point(256, 1.0)))
    assert c.knee(0.05).heap_bytes == 128 * MB
    assert c.knee(0.40).heap_bytes == 96 * MB
    throughput = Curve("g", "ops", False, (_point(64, 10.0), _point(96, 19.5), _point(128, 20.0)))
    assert throughput.knee(0.05).heap_bytes == 96 * MB
    assert Curve("g", "wall_s", True, ()).knee() is None


def test_sweep_spec_refuses_a_spec_that_sizes_the_heap() -> None:
    text = '[workload]\nbuiltin = "hold"\n[factors.gc]\nG1 = "-XX:+UseG1GC -Xmx1g"\n'
    with pytest.raises(UserError, match="sets the heap"):
        sweep_toml(parse_spec(text), text, levels_from_sizes(["256m"]))
    ok = '[workload]\nbuiltin = "hold"\n[factors.gc]\nG1 = "-XX:+UseG1GC"\n[run]\ninvocations = 9\n'
    out = sweep_toml(parse_spec(ok), ok, levels_from_sizes(["256m"]), invocations=3)
    spec = parse_spec(out)
    assert spec.factors["heap"]["h256m"].flags == ["-Xms262144k", "-Xmx262144k"] and spec.run.invocations == 3


class HeapTimedExecutor:
    """Runs nothing: wall time 1 s + 4 s * (64 MiB / heap)^4, plus seeded noise; read from the argv."""

    def __init__(self) -> None:
        import random

        self.rng = random.Random(5)

    def run(self, plan: InvocationPlan, probes=()) -> ProcessResult:  # type: ignore[no-untyped-def]
        xmx = next(a for a in plan.argv if a.startswith("-Xmx"))
        heap = int(xmx[4:-1]) * 1024
        gc_factor = 1.3 if "-XX:+UseSerialGC" in plan.argv else 1.0
        wall = gc_factor * (1 + 4 * (64 * MB / heap) ** 4) * (1 + self.rng.gauss(0, 0.01))
        measures = ProcessMeasures(wall, wall * 0.9, 0.05, heap + 30 * MB, 100, 0, 10, 10)
        return ProcessResult(Status.OK, None, 0, None, measures, 1, 0.0)


def test_sweep_stored_and_read_back_as_curves_with_knees(tmp_path: Path, jdk17_home: Path) -> None:
    text = f'''name = "fake sweep"
[workload]
builtin = "hello"
[jvms]
j = "{jdk17_home}"
[factors.gc]
Par = "-XX:+UseParallelGC"
Ser = "-XX:+UseSerialGC"
[run]
invocations = 3
warmup = 0
[collect]
gc = false
proc = false
'''
    base = prepare(parse_spec(text), text, None, check_flags=False)
    setup = plan_sweep(base, levels_from_multiples(64 * MB, geometric_multiples(1, 4, 7)), reference_bytes=64 * MB)
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")

    class Quiet:
        def planned(self, *a): pass
        def starting(self, *a): pass
        def finished(self, *a): pass
        def warn(self, h): pass
        def extended(self, *a): pass

    result = run_sweep(setup, store, "wall_s", 0.05,
                       lambda plan, _resume: run_experiment(plan, store, RunOptions(artifacts_root=tmp_path / "a"),
                                                            Quiet(), executor=HeapTimedExecutor()))
    knees = result.knees()
    assert set(knees) == {"j gc=Par", "j gc=Ser"}
    # 1 + 4/m^4: 1.099 at 2.52x, 1.040 at 3.17x, 1.016 at 4x (the best): within 5% from 3.17x on
    for series, knee in knees.items():
        assert knee.multiple == pytest.approx(3.17), series
    par = next(c for c in result.curves["wall_s"] if c.series == "j gc=Par")
    assert all(p.n == 3 and p.ci_low <= p.mean <= p.ci_high for p in par.points)
    assert [p.mean for p in par.points] == sorted((p.mean for p in par.points), reverse=True)
    rss = next(c for c in result.curves["max_rss_bytes"] if c.series == "j gc=Par")
    assert rss.points[0].mean == pytest.approx(64 * MB + 30 * MB, rel=0.01)
    # p99 pause was not measured (no GC log): None, never 0
    assert all(p.mean is None for c in result.curves["gc.pause_p99_ms"] for p in c.points)
    fig = figure(result, "wall_s")
    assert any(t.get("fill") == "toself" for t in fig["data"])  # CI bands
    page = sweep_html(result, "<script>x</script>")
    assert "<script>x</script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page
    assert math.isfinite(result.to_json()["curves"]["wall_s"][0]["points"][0]["mean"])
    # the stored sweep can be reported again from the command line
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from cli_runner import run_jvmlab

    proc = run_jvmlab("heapsweep", str(result.experiment_id), "--store", str(tmp_path / "lab.db"),
                      "--html", "sweep.html", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "knee not resolved (fewer than 6 invocations" in proc.stdout and (tmp_path / "sweep.html").is_file()
