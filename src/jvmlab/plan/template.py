"""What the runner needs from the spec, read once at plan time: each cell's invocation template
(cwd, environment, timeout, ready regex, output cap, archive preparation) and the experiment's
schedule. The runner, the environment and ``cluster/`` read these, never the spec, so the
rules "which timeout wins" or "which environment a JVM gets" are written in one place.

Archive preparation is a typed field (:class:`ArchivePrep`), not a flag: a factor level that
still writes the ``@cds-archive`` pseudo-flag (the older spelling) is parsed into it here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jvmlab.errors import UserError
from jvmlab.plan.schedule import Order, Slot, schedule

PREPARE_MARK = "@"  # the older spelling of a level's preparation: "@cds-archive", "@aot-cache"
CDS = "cds-archive"
AOT = "aot-cache"
PREP_KINDS = (CDS, AOT, "shared-classes", "readynow")  # HotSpot CDS/AOT, OpenJ9 SCC, Prime ReadyNow


@dataclass(frozen=True)
class ArchivePrep:
    """A cell's archive preparation: made by a training run before the first measured run."""

    kind: str  # one of PREP_KINDS
    source: str = "level"  # "level": a factor level asked for it; "spec": [environment] prepare


def split_prepare(cell_name: str, flags: tuple[str, ...], spec_prepare: str | None,
                  level_kinds: tuple[str, ...] = ()) -> tuple[tuple[str, ...], ArchivePrep | None]:
    """A cell's real JVM flags and its preparation: a level's ``prepare = "kind"`` (or its older
    ``@kind`` mark among the flags), else the spec-wide ``[environment] prepare``.

    Unknown or conflicting marks are one clear line (exit 2) before anything runs."""
    marks = [*level_kinds, *(f.removeprefix(PREPARE_MARK) for f in flags if f.startswith(PREPARE_MARK))]
    real = tuple(f for f in flags if not f.startswith(PREPARE_MARK))
    unknown = sorted(set(marks) - set(PREP_KINDS))
    if unknown:
        raise UserError(f"cell {cell_name!r}: unknown preparation @{unknown[0]}; "
                        f"use {' or '.join('@' + k for k in PREP_KINDS)}")
    if len(set(marks)) > 1:
        raise UserError(f"cell {cell_name!r} asks for {' and '.join('@' + m for m in sorted(set(marks)))}; "
                        f"pick one per cell")
    if marks:
        return real, ArchivePrep(marks[0], "level")
    return real, ArchivePrep(spec_prepare, "spec") if spec_prepare else None


@dataclass(frozen=True)
class InvocationTemplate:
    """How every invocation of one cell starts, apart from its argv's per-slot parts (the
    collectors' flags and the artifacts folder): built once per cell from the spec."""

    cwd: Path  # absolute: the JVMs start here, wherever jvmlab was started from
    env: Mapping[str, str]  # the workload's and the cell's variables (os.environ is added at run time)
    timeout_s: float
    program_args: tuple[str, ...] = ()  # the levels' program arguments, after the workload's
    ready_regex: str | None = None
    output_cap_bytes: int = 4 * 1024 * 1024
    progress_mode: str = "auto"
    prepare: ArchivePrep | None = None
    server: Any = None  # spec.server.Server or None: the server/load parts as the spec has them
    load: Any = None  # spec.server.Load or None
    jvm_args: tuple[str, ...] = ()  # [workload] jvm_args: before every cell's (or trial's) own flags

    def process_env(self, java_home: Path | None = None) -> dict[str, str]:
        """The child's environment: jvmlab's own, then the template's, then JAVA_HOME."""
        env = {**os.environ, **self.env}
        if java_home is not None:
            env["JAVA_HOME"] = str(java_home)
        return env

    def to_json(self) -> dict[str, Any]:
        """What identifies the template, for the store (a resumed spec must not change it)."""
        return {"cwd": str(self.cwd), "env": dict(sorted(self.env.items())), "timeout_s": self.timeout_s,
                "program_args": list(self.program_args), "ready_regex": self.ready_regex,
                "output_cap_bytes": self.output_cap_bytes, "progress_mode": self.progress_mode,
                "prepare": self.prepare.kind if self.prepare else None}


def build_template(spec: Any, cell_env: tuple[tuple[str, str], ...], program_args: tuple[str, ...],
                   workdir: Path | None, prepare: ArchivePrep | None) -> InvocationTemplate:
    """The one place spec fields become invocation settings (workload timeout wins over run's)."""
    return InvocationTemplate(
        cwd=workdir or Path.cwd(), env={**spec.workload.env, **dict(cell_env)},
        timeout_s=spec.workload.timeout or spec.run.timeout, program_args=program_args,
        ready_regex=spec.workload.ready, output_cap_bytes=spec.collect.output_cap_bytes,
        progress_mode=spec.workload.progress_mode, prepare=prepare, server=spec.server, load=spec.load,
        jvm_args=tuple(spec.workload.jvm_args))


@dataclass(frozen=True)
class RunShape:
    """The schedule part of the plan: blocks, warm-ups, order, seed and the failure budget."""

    invocations: int  # measured blocks planned
    warmup: int
    order: Order
    seed: int
    max_consecutive_failures: int = 5
    max_failures: int | None = None
    collect: Any = field(default=None, compare=False)  # spec.collect: which collectors run

    @classmethod
    def from_spec(cls, spec: Any) -> RunShape:
        run = spec.run
        return cls(run.invocations, run.warmup, run.order, run.seed, run.max_consecutive_failures,
                   run.max_failures, spec.collect)

    def slots(self, n_cells: int, added: list[int] | None = None) -> list[Slot]:
        """The planned slots (warm-ups first), then the blocks an ``--until`` session added."""
        out = schedule(n_cells, self.warmup, range(self.invocations), self.order, self.seed)
        return out + (schedule(n_cells, 0, added, self.order, self.seed) if added else [])

    def block(self, n_cells: int, block: int) -> list[Slot]:
        """One block's slots in its randomized order (a warm-up block uses block 0's order)."""
        if block >= 0:
            return schedule(n_cells, 0, range(block, block + 1), self.order, self.seed)
        return [replace(s, block=block) for s in schedule(n_cells, 0, range(0, 1), self.order, self.seed)]
