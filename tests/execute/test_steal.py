"""Issue 31 item 4: steal time is measured per block, stored with the busy row, read back and
counted in the interference a verdict must clear."""

from __future__ import annotations

import pytest

from jvmlab.analyze import Comparison, MetricAnalysis
from jvmlab.execute import load
from jvmlab.execute.load import BlockShares, LoadWatch, busy_text
from jvmlab.model.hazards import BUSY_MACHINE, Hazard
from jvmlab.results import VerdictKind, compare_cells
from jvmlab.results.load import busy_blocks


def test_shares_split_other_processes_from_steal(monkeypatch: pytest.MonkeyPatch) -> None:
    """/proc/stat's busy time without steal is other processes' (less our own CPU); steal is its
    own share. Two CPUs for 2 s: 4 CPU-s of capacity."""
    readings = iter([(100.0, 50.0), (102.0, 51.0)])  # busy +2 s, steal +1 s
    clock = iter([10.0, 12.0])
    own = iter([5.0, 5.4])  # jvmlab and its children used 0.4 s
    monkeypatch.setattr(load, "machine_cpu_s", lambda: next(readings))
    monkeypatch.setattr(load, "_own_cpu_s", lambda: next(own))
    monkeypatch.setattr(load.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(load.os, "cpu_count", lambda: 2)
    watch = LoadWatch()
    watch.start()
    shares = watch.shares()
    assert shares.other == pytest.approx(1.6 / 4) and shares.steal == pytest.approx(1.0 / 4)
    assert shares.busy


def test_steal_alone_makes_a_block_busy() -> None:
    assert BlockShares(0.05, 0.30).busy and not BlockShares(0.05, 0.10).busy
    assert not BlockShares(None, None).busy


def test_the_stored_row_carries_steal_as_a_number() -> None:
    shares = BlockShares(0.10, 0.40)
    text = busy_text(shares, "block 3")
    assert text == "other processes used 10% of the CPU during block 3 (steal 40%)"
    assert busy_text(BlockShares(0.30, 0.001), "block 2") == "other processes used 30% of the CPU during block 2"
    (row,) = busy_blocks([Hazard(BUSY_MACHINE, text, load=shares.machine_load(2))])
    assert (row.share_pct, row.steal_pct, row.block, row.warmup) == (10, 40, 2, False)


def _busy(shares: BlockShares, k: int) -> Hazard:
    return Hazard(BUSY_MACHINE, busy_text(shares, f"block {k + 1}"), load=shares.machine_load(k))


def _comparison(ratio: float, ci: tuple[float, float]) -> Comparison:
    return Comparison(cell="c", baseline="base", metric="wall_s", ratio=ratio, ci95=ci,
                      rel_diff_pct=(ratio - 1) * 100, p_value=0.001, p_adjusted=0.002, significant=True,
                      n_cell=6, n_baseline=6, paired=True, ci_kind="test-inversion")


def _statistics(values, baseline, metric, factors=None, *, seed=0, positive=None):  # type: ignore[no-untyped-def]
    return MetricAnalysis(metric=metric, baseline=baseline, alpha=0.05, correction="holm", stats={},
                          comparisons=(_comparison(1.3, (1.2, 1.4)),), effects=(), drift={}, outliers={}, notes=())


def test_a_block_the_hypervisor_took_half_of_widens_the_margin_a_verdict_must_clear() -> None:
    """Six blocks with 10% other processes and 40% steal: each could have doubled a time, so a
    1.3x effect (CI 1.2-1.4x) is not called; with the steal left out (the old rows) it was."""
    stolen = busy_blocks([_busy(BlockShares(0.10, 0.40), k) for k in range(6)])
    result = compare_cells({}, "base", "wall_s", lower_is_better=True, busy=stolen, n_blocks=6,
                           statistics=_statistics)
    assert result.of("c").kind is VerdictKind.DISTURBED
    assert result.of("c").disturbance.margin == pytest.approx(2.0)
    quiet_steal = busy_blocks([_busy(BlockShares(0.10, 0.0), k) for k in range(6)])
    called = compare_cells({}, "base", "wall_s", lower_is_better=True, busy=quiet_steal, n_blocks=6,
                           statistics=_statistics)
    assert called.of("c").kind is VerdictKind.WORSE
