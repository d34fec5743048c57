"""The run's progress bar (on stderr): current cell, count, ETA; warnings as they happen."""

from __future__ import annotations

import time

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from jvmlab.execute.records import ProcessResult, Status
from jvmlab.hazards import Hazard
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
        self.task = None
        self.failures = 0
        self._block0: list[float] = []  # start time of block 0, then its end
        self._block0_count = 0
        self._estimated = False

    def __enter__(self) -> "ProgressObserver":
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def planned(self, experiment_id: int, total: int, already_done: int) -> None:
        if not self.quiet and already_done:
            self.console.print(f"experiment {experiment_id}: resuming, {already_done} of {total} already stored")
        self.task = self.progress.add_task("run", total=total, completed=already_done,
                                           cell=f"experiment {experiment_id}", note="")

    def starting(self, cell: PreparedCell, slot: Slot) -> None:
        self._estimate(slot)
        if self.task is not None:
            what = "warm-up" if slot.warmup else f"block {slot.block + 1}"
            self.progress.update(self.task, cell=escape(f"{cell.cell.name} ({what})"))

    def finished(self, cell: PreparedCell, slot: Slot, result: ProcessResult) -> None:
        if result.status != Status.OK:
            self.failures += 1
            if not self.quiet:
                self.console.print(f"[red]{escape(cell.cell.name)}: {result.status}: {escape(str(result.reason))}[/red]")
        if self.task is not None:
            note = f"{self.failures} failed" if self.failures else ""
            self.progress.update(self.task, advance=1, note=note)

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
            if not self.quiet:
                self.console.print(f"first block: {per_invocation:.2f} s per invocation; about "
                                   f"{remaining / 60:.1f} min to go for the planned blocks")

    def warn(self, hazard: Hazard) -> None:
        if not self.quiet:
            self.console.print(f"[yellow]warning \\[{escape(hazard.kind)}]: {escape(hazard.detail)}[/yellow]")

    def extended(self, added: int, note: str) -> None:
        if self.task is not None:
            total = (self.progress.tasks[self.task].total or 0) + added
            self.progress.update(self.task, total=total, note=note)
