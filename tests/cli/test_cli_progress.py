"""The progress bar of an --until run is open-ended: no total, no ETA that pretends to know."""

from __future__ import annotations

import io

from rich.console import Console

from jvmlab.cli.progress import ProgressObserver


def _render(open_ended: bool) -> str:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=150, color_system=None)
    with ProgressObserver(console) as observer:
        observer.planned(7, 344, 0, open_ended)
        observer.extended(2, "block 173 for a CI within 1.0%; about 1200 more per cell expected")
        for _ in range(342):
            observer.progress.advance(observer.task)
        observer.progress.refresh()
    return out.getvalue()


def test_until_progress_has_no_total_and_no_eta() -> None:
    text = _render(open_ended=True)
    last = [line for line in text.splitlines() if "experiment 7" in line][-1]
    assert "342 run" in last and "about 1200 more per cell expected" in last
    assert "/344" not in last and "/346" not in last and "ETA" not in last


def test_planned_runs_keep_their_total_and_eta() -> None:
    last = [line for line in _render(open_ended=False).splitlines() if "experiment 7" in line][-1]
    assert "342/346" in last and "ETA" in last
