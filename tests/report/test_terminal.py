"""Terminal tables in a pipe at 80 columns (issue 12 item 8): no column, value or cell
name is dropped or cut; long values wrap or the table is stacked into parts that say so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jvmlab.report import notation
from jvmlab.report.summary import summarize, vs_baseline
from jvmlab.report.synthetic import SyntheticSpec, generate
from jvmlab.results import load_experiment
from jvmlab.store.sql import SqlStore

LONG_LEVEL = "parallel-with-a-long-level-name"
CELL_COLUMNS = ("n", "fail", "mean ± sd", "vs baseline [95% CI]", "95% CI of mean", "median", "min–max", "user",
                "sys", "peak RSS (rusage)")


@pytest.fixture(scope="module")
def long_names(tmp_path_factory: pytest.TempPathFactory) -> tuple[SqlStore, int, Path]:
    db = tmp_path_factory.mktemp("narrow") / "lab.db"
    store = SqlStore(f"sqlite:///{db}")
    exp_id = generate(store, SyntheticSpec(gc_levels=("g1", LONG_LEVEL), workload_metric="records_per_s",
                                           dead_cell=True))
    return store, exp_id, db


def _cli(args: list[str], columns: int) -> str:
    """The CLI with stdout a pipe (not a terminal), as in `| cat`, a file or a CI log."""
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "dumb"}
    proc = subprocess.run([sys.executable, "-m", "jvmlab", *args], capture_output=True, text=True, env=env,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _fits(text: str, columns: int) -> None:
    too_long = [line for line in text.splitlines() if len(line) > columns]
    assert not too_long, too_long


def test_report_with_a_long_metric_keeps_cells_columns_and_intervals(long_names) -> None:
    store, exp_id, db = long_names
    metric = "workload.records_per_s"
    out = _cli(["report", str(exp_id), "--store", str(db), "--metric", metric], 80)
    _fits(out, 80)
    summary = summarize(store, exp_id, metric)
    m = notation.shown_metric(metric, None)
    for cs in summary.cells:
        assert cs.cell.name in out  # whole, at least once
        st = cs.stats.get(metric)
        assert notation.mean_sd(m, st) in out
        rel = vs_baseline(summary, cs.cell.name)
        assert rel in out, rel  # the ratio with its interval, never cut to "0.716x"
        if st is not None and st.mean_ci95:
            assert notation.interval(m, *st.mean_ci95, like=st.mean) in out
    for column in CELL_COLUMNS:
        assert column in out, column
    assert "part 1 of" in out  # the reader is told the table continues
    # The other tables keep every cell too.
    gc_part = out.split("GC per cell", 1)[1]
    assert all(cs.cell.name in gc_part for cs in summary.cells if cs.n)


def test_a_wide_terminal_gets_one_table(long_names) -> None:
    _, exp_id, db = long_names
    out = _cli(["report", str(exp_id), "--store", str(db)], 220)
    _fits(out, 220)
    assert "part 1 of" not in out.split("Verdicts", 1)[0]
    header = next(line for line in out.splitlines() if "mean ± sd" in line)
    assert all(column in header for column in CELL_COLUMNS)


def test_both_peak_rss_columns_say_which_they_are(long_names) -> None:
    _, exp_id, db = long_names
    out = _cli(["report", str(exp_id), "--store", str(db)], 120)
    assert "peak RSS (rusage)" in out and "peak RSS (sampled)" in out
    assert "getrusage" in out and "/proc sampler" in out


def test_rates_use_the_workloads_unit(long_names) -> None:
    _, exp_id, db = long_names
    out = _cli(["report", str(exp_id), "--store", str(db)], 200)
    assert "chunks/s" in out and "units/s" not in out  # chunkgen's progress line counts chunks


def test_jdks_never_breaks_a_word_at_80_columns() -> None:
    from jvmlab.jdk import discover

    found = discover()
    if not found:
        pytest.skip("no JDK on this machine")
    out = _cli(["jdks"], 80)
    _fits(out, 80)
    words = out.replace("│", " ").replace("┃", " ").split()
    for jdk in found:
        for gc in jdk.gcs:
            assert gc in words, (gc, out)
        assert str(jdk.home) in out


def test_compare_keeps_ratio_and_interval_at_80_columns(tmp_path: Path) -> None:
    db = tmp_path / "cmp.db"
    store = SqlStore(f"sqlite:///{db}")
    a = generate(store, SyntheticSpec(seed=1, failures=0, gc_levels=("g1", LONG_LEVEL)))
    b = generate(store, SyntheticSpec(seed=2, failures=0, scale=1.3, gc_levels=("g1", LONG_LEVEL)))
    out = _cli(["compare", str(a), str(b), "--store", str(db)], 80)
    _fits(out, 80)
    from jvmlab.report.compare import compare_experiments

    for p in compare_experiments(load_experiment(store, a), load_experiment(store, b)).pairs:
        assert notation.ratio_ci(p.comparison.ratio, p.comparison.ci95) in out
        assert p.cell in out


def test_one_interval_notation() -> None:
    m = notation.shown_metric("wall_s", None)
    assert notation.interval(m, 0.0667, 0.0739, like=0.0704) == "[66.7, 73.9] ms"
    assert notation.interval(m, 0.95, 1.07, like=1.01) == "[0.950, 1.07] s"  # the mean's unit, not ms
    assert notation.ratio_ci(0.907, (0.684, 1.13)) == "0.907x [0.684, 1.13]"
    assert notation.span(m, 1.9, 2.1) == "1.90–2.10 s"
    rate = notation.shown_metric("progress.steady_rate", notation.progress_unit('[workload]\nbuiltin = "chunkgen"\n'))
    assert rate.unit == "chunks/s"
    assert notation.progress_unit('[workload]\nmain = "A"\nprogress = "x (?P<units>\\\\d+)"\n') is None
    from jvmlab.scenarios.minecraft import PROGRESS  # the minecraft table says what its verdict says

    assert notation.progress_unit(f'[workload]\nmain = "A"\nprogress = {json.dumps(PROGRESS)}\n') == "chunks/s"
