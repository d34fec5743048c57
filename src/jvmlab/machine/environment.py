"""Environment factors and per-cell preparation, behind one seam the runner calls.

``setup(plan)`` runs once before the first invocation and may return a changed plan (a
cell's JDK copied to tmpfs, a CDS/AOT archive made by a training run and its flags added);
``before(cell)`` runs before each invocation (evict the page cache for ``cold``) and returns
hazards; ``teardown()`` runs at the end, whatever happened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from jvmlab.hazards import Hazard
from jvmlab.plan.prepare import Plan, PreparedCell


class Environment(Protocol):
    def setup(self, plan: Plan) -> Plan: ...
    def before(self, cell: PreparedCell) -> list[Hazard]: ...
    def teardown(self) -> None: ...


class NoEnvironment:
    """Nothing to prepare: no [environment] factors and no per-cell preparation."""

    def setup(self, plan: Plan) -> Plan:
        return plan

    def before(self, cell: PreparedCell) -> list[Hazard]:
        return []

    def teardown(self) -> None:
        return None


def build_environment(plan: Plan, artifacts_root: Path) -> Environment:
    """The environment handling this plan's spec needs."""
    return NoEnvironment()
