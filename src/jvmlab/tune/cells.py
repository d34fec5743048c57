"""A trial configuration as a prepared cell inside the machine environment `run` gives a cell.

`run` sets the spec's `[environment]` up once around the whole experiment (a JDK copied to
tmpfs, CPU/memory limits as a cgroup per invocation, the page cache warmed or evicted, a
CDS/AOT archive made by a training run) and runs each invocation through it. The tuner does
the same: the session (``execute.session``) sets this environment up once and tears it down at
the end, also after a failure or Ctrl-C; each distinct configuration becomes a cell once,
with its archive made then when a parameter value asks for one (``@cds-archive`` among its
flags, or ``prepare = "cds-archive"`` in the value's table) or the spec's `[environment]
prepare` does. A configuration whose archive cannot be made is a failed configuration with
that reason (an infeasible trial), never a crash.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.machine.environment import Environment, MachineEnvironment, build_environment
from jvmlab.model.documents import ArchivesDocument
from jvmlab.plan.prepare import Plan, PreparedCell, archive_document
from jvmlab.plan.template import PREPARE_MARK, split_prepare
from jvmlab.tune.space import parse_tune


def space_prepares(plan: Plan) -> bool:
    """Whether any configuration of the session may need an archive (then every cell's
    classpath is a jar, as `run` makes it, so only the archive differs between cells)."""
    if plan.spec.environment.prepare:
        return True
    if not plan.spec.tune:
        return False
    config = parse_tune(plan.spec.tune, tuple(plan.spec.jvms))
    return any(f.startswith(PREPARE_MARK) for p in config.params for fl in p.choice_flags.values() for f in fl)


class TrialCells:
    """The session's environment and the prepared cell of each configuration (made once)."""

    def __init__(self, plan: Plan, artifacts: Path) -> None:
        self.plan = plan
        self.artifacts = artifacts.absolute()  # archives are handed to JVMs: absolute paths
        self.environment: Environment | None = None
        self.ready: dict[str, PreparedCell | str] = {}

    def base(self) -> Plan:
        """The plan's own cells are only templates for the configurations: no archive for them."""
        return replace(self.plan, cells=tuple(_without_prepare(pc) for pc in self.plan.cells))

    def make_environment(self) -> Environment:
        """The environment the session sets up (on :meth:`base`) and tears down: when any value
        may ask for an archive, every cell's classpath is a jar, as `run` makes it."""
        if space_prepares(self.plan):
            machine = MachineEnvironment(self.artifacts)
            machine.jar_all = True
            self.environment = machine
        else:
            self.environment = build_environment(self.base(), self.artifacts)
        return self.environment

    def archives(self) -> ArchivesDocument | None:
        """The "archives" document of the configurations that had one made (as `run` stores)."""
        return archive_document(tuple(pc for pc in self.ready.values() if isinstance(pc, PreparedCell)))

    def cell(self, key: str, pc: PreparedCell, cell_id: int, name: str,
             flags: tuple[str, ...]) -> PreparedCell | str:
        """The configuration's cell (flags checked, marks removed), prepared the first time it
        runs; the reason when its preparation failed."""
        if key in self.ready:
            return self.ready[key]
        environment = self.environment or self.make_environment()
        try:
            run_flags, prep = split_prepare(name, flags, None)  # an unknown or a second mark: refused
        except UserError as err:
            self.ready[key] = str(err)
            return self.ready[key]
        template = pc.template and replace(pc.template, prepare=prep or pc.template.prepare)
        # each configuration its own cell, named as `run` names one ("j config=t0", after the plan
        # cell's own levels, [environment] factors among them): the hooks' setup and cleanup run
        # once per configuration (``{cell}`` says which), and hazards name it
        levels = (*pc.cell.levels, ("config", name))
        cell = replace(pc, cell=replace(pc.cell, index=cell_id, levels=levels, flags=run_flags),
                       flags=run_flags, template=template)
        try:
            self.ready[key] = environment.add_cell(self.plan, cell)
        except UserError as err:
            self.ready[key] = f"preparing {name} failed: {err}"
        return self.ready[key]


def _without_prepare(pc: PreparedCell) -> PreparedCell:
    if pc.template is None or pc.template.prepare is None:
        return pc
    return replace(pc, template=replace(pc.template, prepare=None))
