"""An experiment grows cells after creation: a spec that gains a factor level (or a tuner that adds
a trial cell) adds cells to the stored experiment instead of starting a new one.

Pure functions over the plan and what the store holds: the stored cells keep their index (their
invocations stay theirs), the new cells are numbered after them, and a stored cell that the
spec now makes differently (other flags, JDK, workload, cwd, environment, timeout ...) or no
longer makes is refused with one line, because its stored values would not be comparable
with the ones measured from now on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from jvmlab.errors import UserError
from jvmlab.model.documents import IDENTITY_PARTS, CellIdentity, CellIdentityDocument
from jvmlab.plan.prepare import Plan, PreparedCell


class StoredCellLike(Protocol):
    """What the store keeps of a cell (``model.stored.StoredCell``, frozen: read-only here)."""

    @property
    def idx(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def requested_flags(self) -> list[str]: ...


def cell_identity(pc: PreparedCell) -> CellIdentity:
    """What must not change for a stored cell's values to stay comparable: its requested flags,
    its JDK build, the workload's command and the invocation template (cwd, env, timeout ...).
    Taken before the environment's setup, so a tmpfs copy or a remade archive does not count."""
    launch = pc.launch
    return CellIdentity(
        name=pc.cell.name,
        flags=tuple(pc.cell.flags),
        jdk={"version": pc.jdk.version, "vendor_version": pc.jdk.vendor_version,
             "vm_version": pc.jdk.vm_version, "home": str(pc.jdk.home)},
        workload={"kind": launch.kind, "main_class": launch.main_class, "jar": launch.jar,
                  "args": list(launch.args), "classpath": list(launch.classpath)},
        template=pc.template.to_json() if pc.template is not None else None,
    )


@dataclass(frozen=True)
class Growth:
    """The plan renumbered to the stored experiment, and which of its cells are new."""

    plan: Plan
    new_cells: tuple[int, ...]  # indices (in the renumbered plan) of cells the store lacks


def align(plan: Plan, stored: Iterable[StoredCellLike], identities: CellIdentityDocument | None,
          experiment_id: int) -> Growth:
    """Renumber ``plan`` so every stored cell keeps its index and new cells follow; refuse a
    stored cell the spec changed or dropped (one line naming the cell and what changed)."""
    stored = sorted(stored, key=lambda c: c.idx)
    by_name = {pc.cell.name: pc for pc in plan.cells}
    for cell in stored:
        pc = by_name.get(cell.name)
        if pc is None:
            raise UserError(f"experiment {experiment_id} has cell {cell.name!r}, which the spec no longer makes; "
                            f"a resumed experiment can gain cells but not lose them: run it as a new experiment")
        recorded = identities.cells.get(cell.idx) if identities is not None else None
        before = recorded or CellIdentity(cell.name, tuple(cell.requested_flags))
        changed = _changed(before, cell_identity(pc))
        if changed:
            raise UserError(f"experiment {experiment_id}: the spec changes its cell {cell.name!r} ({changed}); "
                            f"its stored invocations would not be comparable: run it as a new experiment")
    known = {c.name: c.idx for c in stored}
    next_idx = max(known.values(), default=-1) + 1
    order: list[tuple[int, PreparedCell]] = []
    new: list[int] = []
    for pc in plan.cells:
        idx = known.get(pc.cell.name)
        if idx is None:
            idx, next_idx = next_idx, next_idx + 1
            new.append(idx)
        order.append((idx, replace(pc, cell=replace(pc.cell, index=idx))))
    order.sort(key=lambda pair: pair[0])
    if [i for i, _ in order] != list(range(len(order))):
        raise UserError(f"experiment {experiment_id}: its stored cells are not numbered 0..{len(stored) - 1}; "
                        f"run it as a new experiment")
    baseline_name = plan.cells[plan.baseline_index].cell.name
    cells = tuple(pc for _, pc in order)
    baseline = next(pc.cell.index for pc in cells if pc.cell.name == baseline_name)
    return Growth(replace(plan, cells=cells, baseline_index=baseline), tuple(new))


def _changed(before: CellIdentity, now: CellIdentity) -> str:
    """The first part of a cell's identity that differs, in words ("" when none); a part the
    stored identity did not record (None) is not compared."""
    for key in IDENTITY_PARTS:
        was, got = getattr(before, key), getattr(now, key)
        if was is not None and was != got:
            if isinstance(was, dict) and isinstance(got, dict):
                keys = sorted(k for k in {*was, *got} if was.get(k) != got.get(k))
                detail = ", ".join(f"{key} {k}: {was.get(k)!r} -> {got.get(k)!r}" for k in keys[:2])
                return detail
            return f"{key}: {_shown(was)!r} -> {_shown(got)!r}"
    return ""


def _shown(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value
