"""The run's progress bar (on stderr): current cell, count, ETA; warnings as they happen.

A ``--until`` run has no known end: its bar counts up without a total or an ETA (a bar at
``342/344 ETA 0:00:01`` while thousands more are needed would be a lie) and its note gives
the stopping rule's own estimate of what is still needed.
"""

from __future__ import annotations

import time

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from jvmlab.model.hazards import Hazard
from jvmlab.model.process import ProcessResult, Status
from jvmlab.plan.prepare import PreparedCell
from jvmlab.plan.schedule import Slot


class ProgressObserver:
    """A RunObserver drawing a rich progress bar; quiet mode prints nothing."""

    def __init__(self, console: Console, quiet: bool = False) -> None:
        self.console = console
        self.quiet = quiet
        self.progress = Progress(
            TextColumn("[bold]{task.fields[cell]}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[note]}"), TimeElapsedColumn(), TextColumn("ETA"),
            TimeRemainingColumn(), console=console, transient=False, disable=quiet)
        self.task: TaskID | None = None
        self.failures = 0
        self._block0: list[float] = []  # start time of block 0, then its end
        self._block0_count = 0
        self._estimated = False
        self.open_ended = False
        self.rule_note = ""
        self.node_note = ""  # cluster runs: nodes busy / idle and the cluster's rate

    def __enter__(self) -> ProgressObserver:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def planned(self, experiment_id: int, total: int, already_done: int, open_ended: bool = False) -> None:
        self.open_ended = open_ended
        if not self.quiet and already_done:
            self.console.print(f"experiment {experiment_id}: resuming, {already_done} invocations already stored"
                               + ("" if open_ended else f" of {total} planned"))
        if open_ended:
            # Counts up, no total and no ETA: the rule decides when it ends.
            self.progress.columns = (TextColumn("[bold]{task.fields[cell]}"), TextColumn("{task.completed} run"),
                                     TextColumn("{task.fields[note]}"), TimeElapsedColumn())
        self.task = self.progress.add_task("run", total=None if open_ended else total, completed=already_done,
                                           cell=f"experiment {experiment_id}",
                                           note="")
        if open_ended:
            self.rule_note = f"{total} planned, then more until precise enough"
            self.progress.update(self.task, note=self._note())

    def starting(self, cell: PreparedCell, slot: Slot) -> None:
        self._estimate(slot)
        if self.task is not None:
            what = "warm-up" if slot.warmup else f"block {slot.block + 1}"
            self.progress.update(self.task, cell=escape(f"{cell.cell.name} ({what})"))

    def finished(self, cell: PreparedCell, slot: Slot, result: ProcessResult) -> None:
        if result.status != Status.OK:
            self.failures += 1
            if not self.quiet:
                self.console.print(f"[red]{escape(cell.cell.name)}: {result.status}: "
                                   f"{escape(str(result.reason))}[/red]")
        if self.task is not None:
            self.progress.update(self.task, advance=1, note=self._note())

    def _estimate(self, slot: Slot) -> None:
        """After the first measured block, an up-front estimate of the time still needed."""
        now = time.monotonic()
        if slot.block == 0:
            if not self._block0:
                self._block0.append(now)
            self._block0_count += 1
        elif slot.block > 0 and self._block0 and not self._estimated and self.task is not None:
            self._estimated = True
            per_invocation = (now - self._block0[0]) / max(1, self._block0_count)
            task = self.progress.tasks[self.task]
            remaining = max(0.0, (task.total or 0) - task.completed) * per_invocation
            if not self.quiet and not self.open_ended:
                self.console.print(f"first block: {per_invocation:.2f} s per invocation; about "
                                   f"{remaining / 60:.1f} min to go for the planned blocks")

    def warn(self, hazard: Hazard) -> None:
        if not self.quiet:
            self.console.print(f"[yellow]warning \\[{escape(hazard.kind)}]: {escape(hazard.detail)}[/yellow]")

    def extended(self, added: int, note: str) -> None:
        if self.task is None:
            return
        self.rule_note = note
        if self.open_ended:
            self.progress.update(self.task, note=self._note())
        else:
            total = (self.progress.tasks[self.task].total or 0) + added
            self.progress.update(self.task, total=total, note=self._note())

    def nodes(self, busy: int, idle: int, rate_per_s: float | None) -> None:
        """A cluster run: nodes busy / idle and the cluster's own rate (the bar's ETA follows that rate)."""
        rate = f", {rate_per_s:.2f}/s" if rate_per_s else ""
        self.node_note = f"nodes {busy} busy / {idle} idle{rate}"
        if self.task is not None:
            self.progress.update(self.task, note=self._note())

    def _note(self) -> str:
        parts = [self.rule_note] if self.rule_note else []
        if self.node_note:
            parts.append(self.node_note)
        if self.failures:
            parts.append(f"{self.failures} failed")
        return escape("; ".join(parts))
