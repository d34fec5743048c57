"""Plot content without a browser: what is drawn and what is left out (issue 12 item 7)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from jvmlab.report.axes import log_ticks, padded_log_range
from jvmlab.report.html import render_html
from jvmlab.report.summary import summarize
from jvmlab.report.synthetic import SyntheticSpec, generate
from jvmlab.store.sql import SqlStore

FIGURE_BLOCK = re.compile(r'<script type="application/json" data-plot="([^"]+)">(.*?)</script>', re.S)


def _figures(page: str) -> list[dict]:
    return [json.loads(body) for _, body in FIGURE_BLOCK.findall(page)]


def _title(fig: dict) -> str:
    return fig["layout"]["title"]["text"]


def test_no_all_zero_thp_plot_and_no_empty_row_for_a_dead_cell(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp_id = generate(store, SyntheticSpec(jvms=("jdk17",), invocations=4, dead_cell=True, thp_timeline=True))
    assert store.timelines([i.id for i in store.invocations(exp_id) if i.status == "ok"][:1])  # THP stored
    page = render_html(summarize(store, exp_id))
    figs = _figures(page)
    assert not any(_title(f).startswith("Transparent huge pages") for f in figs)
    for fig in figs:
        if _title(fig).endswith("every invocation per cell") or ": ratio to " in _title(fig):
            assert "dead gc=none" not in fig["layout"]["yaxis"]["ticktext"], _title(fig)
    assert "Not drawn (no measured value of wall_s): dead gc=none" in page


def test_log_ticks_label_every_tick_in_full() -> None:
    values, labels = log_ticks(0.085, 0.32)
    assert labels == [f"{v:g}" for v in values] and values == sorted(values)
    assert labels[0] == "0.1" and "0.3" in labels
    assert log_ticks(0.99, 1.012)[1] == ["0.99", "0.995", "1", "1.005", "1.01"]
    assert log_ticks(0.001, 100)[1] == ["0.001", "0.01", "0.1", "1", "10", "100"]
    lo, hi = padded_log_range([0.5, 2.0, 1.0])
    assert lo < -0.30103 and hi > 0.30103
