"""Where a cluster slot's time goes, so the loss against linear scaling is located, not guessed.

Each slot's life, from the client's submit to its result stored::

    submitted --queue--> (previous slot on the node done) --transfer--> started on the node
      --run--> (JVM and probes done) --on node--> finished --result--> in the client's hands

- ``queue_s``: waiting on the node behind that node's previous slot. Intended: the next slot is
  submitted early so that no round trip is lost; not a loss.
- ``transfer_s``: the node idle before this slot started: the later of submit and the previous
  slot's end, to the task's start (the task's way to the node, the scheduler, the worker's
  event loop). This is the loss against linear scaling.
- ``run_s``: the executor's run on the node (the JVM, or the bench's sleep, and the probes).
- ``on_node_s``: the rest of the task on the node (the probes built, artifacts read back).
- ``result_s``: from the node's end to the result in the client's hands (the way back and the
  client loop's wake-up).
- ``client_s``: jvmlab's own time on the client for this slot (slot prepared, order made and
  submitted, result stored).

Node times are the node's clock and client times the client's: on one machine (a LocalCluster)
they are one clock; across machines ``transfer_s`` and ``result_s`` also hold the clocks' offset.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean


@dataclass(frozen=True)
class SlotTiming:
    """One slot's parts, in seconds; None: the node sent no times (the task failed there)."""

    node: str
    submitted_at: float  # epoch s, client clock
    collected_at: float  # epoch s, client clock
    started_at: float | None  # epoch s, node clock
    finished_at: float | None  # epoch s, node clock
    queue_s: float | None
    transfer_s: float | None
    run_s: float | None
    on_node_s: float | None
    result_s: float | None
    client_s: float


def slot_timing(node: str, submitted_at: float, collected_at: float, client_s: float,
                started_at: float | None, finished_at: float | None, run_s: float | None,
                previous_end: float | None) -> SlotTiming:
    """The parts of one slot; ``previous_end``: when the node's previous slot finished (None: first)."""
    if started_at is None or finished_at is None:
        return SlotTiming(node, submitted_at, collected_at, started_at, finished_at, None, None, run_s, None,
                          None, client_s)
    free_at = submitted_at if previous_end is None else max(submitted_at, previous_end)
    queue_s = 0.0 if previous_end is None else max(0.0, previous_end - submitted_at)
    on_node_s = None if run_s is None else max(0.0, finished_at - started_at - run_s)
    return SlotTiming(node, submitted_at, collected_at, started_at, finished_at, queue_s, started_at - free_at,
                      run_s, on_node_s, collected_at - finished_at, client_s)


@dataclass(frozen=True)
class NodeBreakdown:
    """One node's slots: how busy it was over its span, and the mean of each part (seconds)."""

    node: str
    slots: int
    span_s: float  # first submit to last slot finished
    busy_s: float  # summed task time on the node (start to finish)
    queue_s: float | None
    transfer_s: float | None
    run_s: float | None
    on_node_s: float | None
    result_s: float | None
    client_s: float

    @property
    def busy_share(self) -> float | None:
        return self.busy_s / self.span_s if self.span_s > 0 else None


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return fmean(known) if known else None


def node_breakdown(timings: list[SlotTiming]) -> list[NodeBreakdown]:
    """Per node, in node order: its busy share and the mean parts of its slots."""
    out = []
    for node in sorted({t.node for t in timings}):
        mine = [t for t in timings if t.node == node]
        ran = [t for t in mine if t.started_at is not None and t.finished_at is not None]
        span = (max(t.finished_at for t in ran if t.finished_at is not None) - min(t.submitted_at for t in mine)
                if ran else 0.0)
        busy = sum((t.finished_at or 0.0) - (t.started_at or 0.0) for t in ran)
        out.append(NodeBreakdown(node, len(mine), span, busy, _mean([t.queue_s for t in mine]),
                                 _mean([t.transfer_s for t in mine]), _mean([t.run_s for t in mine]),
                                 _mean([t.on_node_s for t in mine]), _mean([t.result_s for t in mine]),
                                 fmean(t.client_s for t in mine)))
    return out
