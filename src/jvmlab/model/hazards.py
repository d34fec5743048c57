"""Measurement hazards: typed warnings with a hint, shown in every output.

A hazard is not an error: the experiment goes on, but the reader must know that a number
may not mean what it seems (a flag not in effect, drift, a busy machine, failures).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from jvmlab.model.process import printable


@dataclass(frozen=True)
class MachineLoad:
    """What other work took from the machine while jvmlab measured: the numbers of a
    ``busy-machine`` hazard, stored as numbers (schema v9), never read back out of its words.

    ``block`` is the stored block id (warm-ups < 0; None: not said, e.g. the tuner's whole
    round), shares are of all the machine's CPUs (0..1; None: /proc/stat could not say),
    ``run_delay_s`` the mean per invocation of the run-queue delay of the measured processes'
    threads in that block (None: not measured), ``node`` the cluster node (None: this machine)."""

    block: int | None
    other_share: float | None
    steal_share: float | None = None
    run_delay_s: float | None = None
    node: str | None = None

    @property
    def warmup(self) -> bool:
        return self.block is not None and self.block < 0

    @property
    def taken(self) -> float:
        """Other processes' and steal's share together (0 when neither was measured)."""
        return (self.other_share or 0.0) + (self.steal_share or 0.0)


@dataclass(frozen=True)
class Hazard:
    """One warning. ``kind`` is a :class:`HazardKind` (a stable machine-readable word such as
    ``flag-not-in-effect``); ``load`` carries a busy machine's numbers."""

    kind: str
    detail: str
    hint: str = ""
    cell: str | None = None
    load: MachineLoad | None = None

    def __post_init__(self) -> None:  # a detail may quote a workload's output: shown, not obeyed
        object.__setattr__(self, "detail", printable(self.detail))
        object.__setattr__(self, "hint", printable(self.hint))

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in asdict(self).items() if v not in (None, "") and k != "load"}
        if self.load is not None:
            out["load"] = {k: v for k, v in asdict(self.load).items() if v is not None}
        return out


class HazardKind(StrEnum):
    """The stable kinds (documented in the README); a member equals its word."""

    FLAG_NOT_IN_EFFECT = "flag-not-in-effect"
    DRIFT = "drift"
    BUSY_MACHINE = "busy-machine"
    FAILURES = "failures"
    OUTLIERS = "outliers"
    FINGERPRINT_CHANGED = "fingerprint-changed"
    THP_MODE = "thp-mode"
    NO_WARMUP = "no-warmup"
    FAILURE_BUDGET = "failure-budget"
    PAGE_CACHE = "page-cache"
    SPEC_CHANGED = "spec-changed"
    PRECISION_NOT_REACHED = "precision-not-reached"
    UNLOCK_ADDED = "unlock-added"
    CELLS_ADDED = "cells-added"  # an experiment grew cells on resume (docs/architecture.md)
    GC_LOG_MISSING = "gc-log-missing"
    GC_LOG_UNREADABLE = "gc-log-unreadable"
    COLLECTOR_UNSUPPORTED = "collector-unsupported"
    LOAD_FELL_BEHIND = "load-fell-behind"  # an open-loop server answered less than 95% of the rate asked
    METRIC_UNMEASURED = "metric-unmeasured"  # a collector could not measure a metric here: None, with the reason
    IMPORTED = "imported"  # results imported from JMH/hyperfine files: what they cannot tell is unknown
    HEAP_EXCEEDS_MEMORY = "heap-exceeds-memory"
    JFR_UNUSABLE = "jfr-unusable"
    JFR_READER_FALLBACK = "jfr-reader-fallback"  # a chunk read with the JDK's jfr print, not our reader
    NODE_REFUSED = "node-refused"  # a cluster node with another JDK build, not used
    NODE_LOST = "node-lost"  # a cluster node died mid-invocation; the slot was re-queued
    ARTIFACTS_ON_NODE = "artifacts-on-node"  # a cluster node kept artifacts (over the cap, or the share failed)
    HOOK_FAILED = "hook-failed"  # a cleanup hook failed (a failing setup/before_each/after_each fails its invocation)
    REVISION_NOT_BUILT = "revision-not-built"  # a [revisions] level whose build failed: no cell, its reason kept


# Stable kinds, documented in the README.
FLAG_NOT_IN_EFFECT = HazardKind.FLAG_NOT_IN_EFFECT
DRIFT = HazardKind.DRIFT
BUSY_MACHINE = HazardKind.BUSY_MACHINE
FAILURES = HazardKind.FAILURES
OUTLIERS = HazardKind.OUTLIERS
FINGERPRINT_CHANGED = HazardKind.FINGERPRINT_CHANGED
THP_MODE = HazardKind.THP_MODE
NO_WARMUP = HazardKind.NO_WARMUP
FAILURE_BUDGET = HazardKind.FAILURE_BUDGET
PAGE_CACHE = HazardKind.PAGE_CACHE
SPEC_CHANGED = HazardKind.SPEC_CHANGED
PRECISION_NOT_REACHED = HazardKind.PRECISION_NOT_REACHED
UNLOCK_ADDED = HazardKind.UNLOCK_ADDED
CELLS_ADDED = HazardKind.CELLS_ADDED
GC_LOG_MISSING = HazardKind.GC_LOG_MISSING
GC_LOG_UNREADABLE = HazardKind.GC_LOG_UNREADABLE
COLLECTOR_UNSUPPORTED = HazardKind.COLLECTOR_UNSUPPORTED
LOAD_FELL_BEHIND = HazardKind.LOAD_FELL_BEHIND
METRIC_UNMEASURED = HazardKind.METRIC_UNMEASURED
IMPORTED = HazardKind.IMPORTED
HEAP_EXCEEDS_MEMORY = HazardKind.HEAP_EXCEEDS_MEMORY
JFR_UNUSABLE = HazardKind.JFR_UNUSABLE
JFR_READER_FALLBACK = HazardKind.JFR_READER_FALLBACK
NODE_REFUSED = HazardKind.NODE_REFUSED
NODE_LOST = HazardKind.NODE_LOST
ARTIFACTS_ON_NODE = HazardKind.ARTIFACTS_ON_NODE
HOOK_FAILED = HazardKind.HOOK_FAILED
REVISION_NOT_BUILT = HazardKind.REVISION_NOT_BUILT
