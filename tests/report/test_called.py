"""Issue 40: every reader of a compared cell (the terminal's verdict colours, `gc advise`'s
"worse" mark and side effects) asks whether it is a call as its verdict says, the one
interference model included, not whether its test alone was significant."""

from __future__ import annotations

from pathlib import Path

from jvmlab.report.summary import called, comparison_of, summarize
from jvmlab.report.synthetic import SyntheticSpec, generate
from jvmlab.results import VerdictKind
from jvmlab.store.sql import SqlStore


def test_a_significant_comparison_the_busy_block_withholds_is_not_a_call(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    summary = summarize(store, generate(store, SyntheticSpec(dead_cell=True, thp_timeline=True)))  # a block busy at 40%
    assert summary.comparison is not None
    kinds = {c.cell: c.kind for c in summary.comparison.compared}
    withheld = [cell for cell, kind in kinds.items() if kind is VerdictKind.DISTURBED]
    assert withheld, kinds  # the synthetic run's +13% change does not clear the margin
    for cell in withheld:
        comp = comparison_of(summary, cell)
        assert comp is not None and comp.significant and not called(summary, cell)
        assert "not called a difference" in summary.verdicts[cell]
    assert all(called(summary, cell) for cell, kind in kinds.items() if kind is VerdictKind.WORSE)
