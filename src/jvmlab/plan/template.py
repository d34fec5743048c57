"""What the runner needs from the spec, read once at plan time: each cell's invocation template
(cwd, environment, timeout, ready regex, output cap, archive preparation) and the experiment's
schedule. The runner, the environment and ``cluster/`` read these, never the spec, so the
rules "which timeout wins" or "which environment a JVM gets" are written in one place.

Archive preparation is a typed field (:class:`ArchivePrep`), not a flag: a factor level that
still writes the ``@cds-archive`` pseudo-flag (the older spelling) is parsed into it here.

Every command of a spec runs in a known folder: the JVM and its hooks in ``[workload] cwd``
(default: the spec's folder), each load client in its phase's ``cwd``, else ``[load] cwd``, else
the spec's folder; relative programs (``./reset.sh``) are resolved there, once, here.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jvmlab.errors import UserError
from jvmlab.model.hooks import SHELL, HookCommand, InvocationHooks
from jvmlab.plan.schedule import Order, Slot, schedule
from jvmlab.spec.hooks import HOOK_KINDS, Hook

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
    hooks: tuple[HookCommand, ...] = ()  # in running order; placeholders filled per invocation
    client_cwd: Mapping[str, Path] = field(default_factory=dict)  # load phase name -> where its clients run

    def hooks_for(self, java: Path | str, cell: str, invocation_dir: Path) -> InvocationHooks | None:
        """One invocation's hooks with ``{java}``, ``{cell}``, ``{invocation_dir}`` filled in
        (for ``setup`` and ``cleanup``, which belong to no one invocation: the cell's folder)."""
        if not self.hooks:
            return None
        filled = tuple(h.filled(str(java), cell, invocation_dir.parent if h.kind in ("setup", "cleanup")
                                else invocation_dir) for h in self.hooks)
        return InvocationHooks(cell, self.cwd, filled)

    def describe_hooks(self) -> list[str]:
        """What ``jvmlab check`` prints: each hook as it will run (placeholders as written)."""
        return [f"{h.kind}{'' if h.origin == 'workload' else f' ({h.origin})'}: {h.shown()} "
                f"(timeout {h.timeout_s:g} s)" for h in self.hooks]

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
                "prepare": self.prepare.kind if self.prepare else None,
                # Only when given, so an experiment stored before hooks existed keeps its identity.
                **({"hooks": [[h.kind, h.origin, *h.argv, h.timeout_s] for h in self.hooks]} if self.hooks else {})}


def build_template(spec: Any, cell_env: tuple[tuple[str, str], ...], program_args: tuple[str, ...],
                   workdir: Path | None, prepare: ArchivePrep | None,
                   base_dir: Path | None = None) -> InvocationTemplate:
    """The one place spec fields become invocation settings (workload timeout wins over run's;
    a hook's own timeout wins over both). ``base_dir``: the spec's folder."""
    cwd = workdir or Path.cwd()
    timeout_s = spec.workload.timeout or spec.run.timeout
    return InvocationTemplate(
        cwd=cwd, env={**spec.workload.env, **dict(cell_env)},
        timeout_s=timeout_s, program_args=program_args,
        ready_regex=spec.workload.ready, output_cap_bytes=spec.collect.output_cap_bytes,
        progress_mode=spec.workload.progress_mode, prepare=prepare, server=spec.server,
        load=_load_paths(spec.load, base_dir or cwd),
        hooks=build_hooks(spec, cwd, timeout_s),
        client_cwd=client_folders(spec.load, base_dir or cwd), jvm_args=tuple(spec.workload.jvm_args))


def build_hooks(spec: Any, cwd: Path, timeout_s: float) -> tuple[HookCommand, ...]:
    """Every hook of ``[workload]`` and ``[server]`` in running order: ``setup`` and
    ``before_each`` from the workload's then the server's, ``after_each`` and ``cleanup`` the
    other way round (the server's hooks nest inside the workload's)."""
    tables = [("workload", spec.workload), *([("server", spec.server)] if spec.server is not None else [])]
    out: list[HookCommand] = []
    for kind in HOOK_KINDS:
        ordered = tables if kind in ("setup", "before_each") else tables[::-1]
        for origin, table in ordered:
            hook = table.hooks().get(kind)
            if hook is not None:
                out.append(_hook_command(kind, origin, hook, cwd, timeout_s))
    return tuple(out)


def _hook_command(kind: str, origin: str, hook: Hook, cwd: Path, timeout_s: float) -> HookCommand:
    """One hook with its program checked and, when relative (``./reset.sh``), made absolute."""
    timeout = hook.timeout or timeout_s
    if isinstance(hook.command, str):
        return HookCommand(kind, (*SHELL, hook.command), timeout, origin, shell=True)
    program = hook.command[0]
    if "{" not in program:
        if "/" in program or os.sep in program:
            path = Path(program).expanduser()
            path = path if path.is_absolute() else cwd / path
            if not path.is_file():
                raise UserError(f"[{origin}] {kind}: {program} does not exist (looked at {path})")
            program = str(path)
        elif shutil.which(program) is None:
            raise UserError(f"[{origin}] {kind}: {program!r} not found on PATH")
    return HookCommand(kind, (program, *hook.command[1:]), timeout, origin)


def _load_paths(load: Any, base_dir: Path) -> Any:
    """``[load] java_home`` against the spec's folder when relative (the rest is kept as written)."""
    if load is None or load.java_home is None:
        return load
    home = Path(load.java_home).expanduser()
    return load if home.is_absolute() else load.model_copy(update={"java_home": str(base_dir / home)})


def client_folders(load: Any, base_dir: Path) -> dict[str, Path]:
    """Where each load phase's clients run: its ``cwd``, else ``[load] cwd``, else the spec's
    folder; relative folders against the spec's folder. A missing folder is one line (exit 2)."""
    if load is None:
        return {}
    return {phase.name: resolve_folder(phase.cwd or load.cwd, base_dir, f"[load] phase {phase.name!r} cwd")
            for phase in load.phases}


def resolve_folder(cwd: str | None, base_dir: Path, what: str) -> Path:
    """``cwd`` against the spec's folder (none: the spec's folder itself); it must exist."""
    if cwd is None:
        return base_dir
    path = Path(cwd).expanduser()
    path = Path(os.path.normpath(path if path.is_absolute() else base_dir / path))  # "app/.." -> the folder
    if not path.is_dir():
        raise UserError(f"{what} {cwd} is not a folder (looked at {path})")
    return path


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
        """One measured block's slots in its randomized order (``--until`` adds them)."""
        return schedule(n_cells, 0, range(block, block + 1), self.order, self.seed)
