"""Power before running: the permutation test's floor against Holm's threshold, exactly."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from cli_runner import run_jvmlab
from jvmlab.analyze import CellData, analyze_metric
from jvmlab.analyze.reachable import blocks_needed, reachable, smallest_adjusted, smallest_p_value
from jvmlab.plan.power import power_check


def test_five_comparisons_at_three_blocks_cannot_be_significant() -> None:
    """The issue's example: 6 cells (5 comparisons, Holm), 3 blocks. Unpaired permutation
    test of 3 vs 3 values: 2 of the C(6,3) = 20 splits are as extreme as the most extreme
    data, so p >= 0.1 (Monte-Carlo: (1 + 5000 * 0.1) / 5001); Holm needs 5 p < 0.05."""
    check = power_check(6, 3)
    assert check.comparisons == 5
    assert check.smallest_p == pytest.approx((1 + 5000 * 2 / 20) / 5001, rel=1e-12)
    assert check.smallest_adjusted_p == pytest.approx(5 * (1 + 500) / 5001, rel=1e-12)
    assert not check.reachable and check.warn
    # 4 blocks: 2/C(8,4) = 2/70 -> 5 * 0.0288 = 0.144, still no; 5 blocks: 2/252 -> 0.0407, yes.
    assert not reachable(4, 5) and reachable(5, 5)
    assert check.blocks_needed == 5
    text = check.message()
    assert "0.1" in text and "alpha/5 = 0.01" in text and "run.invocations = 5" in text and "--until" in text


def test_paired_floor_is_exact_and_creates_a_gap() -> None:
    """From 8 blocks the test pairs by block: all 2^K sign flips, p >= 2/2^K exactly.
    That floor (2/256 at K = 8) is above the unpaired one at 7 blocks (~0.00078), so 10
    comparisons are reachable at 6-7 blocks, not at 8, and again from 9 (10 * 2/512 < 0.05)."""
    assert smallest_p_value(8) == 2 / 256
    assert smallest_p_value(12) == 2 / 4096
    assert smallest_p_value(7) == pytest.approx((1 + 5000 * 2 / math.comb(14, 7)) / 5001)
    assert [reachable(k, 10) for k in (5, 6, 7, 8, 9)] == [False, True, True, False, True]
    assert blocks_needed(10) == 9
    assert blocks_needed(1) == 4  # one comparison: 2/70 < 0.05 at 4 blocks, 2/20 not at 3
    assert blocks_needed(300) is None  # 300 / 5001 > 0.05: the Monte-Carlo floor itself


def test_floor_matches_the_test_the_report_runs() -> None:
    """The most extreme data possible (every cell value above every baseline value, a
    huge effect) gives exactly the predicted floor from analyze_metric's own test."""
    rng = np.random.default_rng(3)
    for blocks in (3, 8, 9):
        base = rng.normal(100.0, 1.0, blocks)
        cells = {"base": CellData.of(base, np.arange(blocks)),
                 "x": CellData.of(base * 3.0, np.arange(blocks))}
        [comp] = analyze_metric(cells, "base", "wall_s", seed=1).comparisons
        if blocks >= 8:
            assert comp.paired and comp.p_value == smallest_p_value(blocks)
        else:
            assert not comp.paired
            # Monte-Carlo: within sampling error of the expected floor (binomial sd of hits).
            sd = math.sqrt(5000 * 0.1 * 0.9) / 5001
            assert abs(comp.p_value - smallest_p_value(blocks)) < 4 * sd


def test_bh_and_until() -> None:
    assert smallest_adjusted(0.02, 5, "bh") == 0.02
    assert not power_check(6, 3, until=True).warn  # --until adds blocks: no warning
    capped = power_check(6, 3, until=True, max_invocations=24)  # 24 / 6 cells = 4 blocks < 5
    assert capped.warn and capped.max_blocks == 4 and "budget" in capped.message()
    assert not power_check(1, 3, has_baseline=False).warn


@pytest.mark.jvm
def test_check_warns_with_the_numbers(tmp_path: Path, jdk17_home: Path) -> None:
    spec = tmp_path / "six.toml"
    levels = "\n".join(f'c{i} = "-Djvmlab.copy={i}"' for i in range(6))
    spec.write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n'
                    f'[factors.copy]\n{levels}\n[run]\ninvocations = 3\n')
    proc = run_jvmlab("check", str(spec), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "warning: 3 block(s) cannot reach significance" in proc.stdout
    assert "alpha/5 = 0.01" in proc.stdout and "run.invocations = 5" in proc.stdout
