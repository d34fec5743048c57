"""Everything checked before anything runs: JDKs found, workload present, every flag of every
cell accepted by its JDK. Any problem is a UserError (exit 2) and nothing is stored.
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jvmlab.collect.registry import check_table
from jvmlab.errors import UserError
from jvmlab.jdk import FlagCheck, check_flags, discover, select
from jvmlab.model.documents import ArchiveRecord, ArchivesDocument, WarningGroup
from jvmlab.model.jdk import JdkInfo
from jvmlab.plan.matrix import REVISION_FACTOR, Cell, expand, find_baseline
from jvmlab.plan.revisions import RevisionSet
from jvmlab.plan.template import (
    PREPARE_MARK,
    ArchivePrep,
    InvocationTemplate,
    RunShape,
    build_template,
    resolve_folder,
    split_prepare,
)
from jvmlab.plan.workload import Launch, resolve_launch
from jvmlab.spec.model import Spec

__all__ = ["PREPARE_MARK", "ArchivePrep", "ArchiveRecord", "InvocationTemplate", "Plan", "PreparedCell", "RunShape",
           "WarningGroup", "prepare"]


def archive_document(cells: tuple[PreparedCell, ...]) -> ArchivesDocument | None:
    """The experiment's "archives" document (None when no cell had an archive made)."""
    records = tuple(pc.archive for pc in cells if pc.archive is not None)
    return ArchivesDocument(records) if records else None


@dataclass(frozen=True)
class PreparedCell:
    cell: Cell
    jdk: JdkInfo
    launch: Launch
    flags: tuple[str, ...]  # the cell's flags with any unlock flags added
    added_unlocks: tuple[str, ...]
    final_flags: dict[str, str]
    check_warnings: tuple[str, ...] = ()  # the JVM's own warnings for accepted flags
    archive: ArchiveRecord | None = None  # set by the environment when it made one
    heap_warnings: tuple[str, ...] = ()  # a maximum heap larger than the machine's memory
    template: InvocationTemplate | None = None  # how its invocations start (None: a hand-built cell)

    @property
    def prepare(self) -> ArchivePrep | None:
        """The archive preparation this cell asks for (typed; never a flag)."""
        return self.template.prepare if self.template is not None else None

    def argv(self, extra_flags: list[str] | tuple[str, ...] = (), artifacts_dir: Path | None = None) -> list[str]:
        """The cell's command line with the collectors' flags added: what one invocation runs."""
        return self.launch.argv(self.jdk, [*self.flags, *extra_flags], self.cell.args, artifacts_dir=artifacts_dir)


@dataclass(frozen=True)
class Plan:
    spec: Spec
    spec_text: str
    spec_hash: str
    spec_path: Path | None
    cells: tuple[PreparedCell, ...]
    baseline_index: int
    shape: RunShape  # the schedule
    workdir: Path | None = None  # absolute: where every JVM of the experiment starts
    revisions: RevisionSet | None = None  # [revisions]: each revision checked out and built (plan/revisions.py)

    @property
    def jdk_homes(self) -> list[Path]:
        return sorted({c.jdk.home for c in self.cells})


def spec_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def search_hash(plan: Plan, kind: str, settings: dict[str, Any]) -> str:
    """A search's identity, its spec and its settings: the same pair resumes, anything else is new."""
    return spec_hash(f"{plan.spec_text}\n#{kind} " + json.dumps(settings, sort_keys=True))


def _against(selector: str, base_dir: Path) -> str:
    """A [jvms] selector; a relative path (``./jdk``, ``jdks/17``) means the spec's folder
    (``base_dir``), as every relative path of a spec does."""
    text = selector.strip()
    if text.startswith("~") or not ("/" in text or os.sep in text) or Path(text).is_absolute():
        return selector
    return str(base_dir / text)


def prepare(spec: Spec, text: str, spec_path: Path | None, check_flags: bool = True,
            revisions: RevisionSet | None = None) -> Plan:
    """Expand the matrix, resolve JDKs and the workload, and check every cell's flags.

    Every relative path of the spec (classpath, jar, cwd) is resolved here, once, against
    one base: the spec file's folder (the current folder for a spec without a file). The
    plan holds only absolute paths, so where jvmlab is started from changes nothing.
    ``revisions`` (``[revisions]``, checked out and built by machine/gitrev.py): each cell's
    base is the spec's folder inside its revision's worktree."""
    check_table(spec.collect, str(spec_path) if spec_path is not None else "spec")  # keys: collect/registry.py
    if spec.revisions is not None and revisions is None:
        raise UserError("[revisions] needs its revisions checked out first: run the spec with `jvmlab run`")
    levels = revisions.levels() if revisions is not None else []
    cells = expand(spec, levels)
    baseline = find_baseline(spec, cells, levels)
    spec_path = Path(os.path.abspath(spec_path)) if spec_path is not None else None
    base_dir = spec_path.parent if spec_path is not None else Path.cwd()
    jdks = discover()  # each [jvms] name to an identified JDK
    jvms = {name: select(_against(selector, base_dir), jdks) for name, selector in spec.jvms.items()}
    bases = {level: revisions.spec_dir(level) for level in levels} if revisions is not None else {"": base_dir}
    # [workload] cwd against each base (default: the base itself); it must exist
    workdirs = {level: resolve_folder(spec.workload.cwd, base, "[workload] cwd") for level, base in bases.items()}
    launches = {(name, level): resolve_launch(spec.workload, jdk, base, workdirs[level])
                for name, jdk in jvms.items() for level, base in bases.items()}
    checks = _check_all(cells, jvms) if check_flags else {}
    prepared = []
    for cell in cells:
        check = checks.get(cell.index)
        level = cell.level(REVISION_FACTOR) or ""
        real, prep = split_prepare(cell.name, cell.flags, spec.environment.prepare, cell.prepare)
        prepared.append(PreparedCell(
            cell=cell, jdk=jvms[cell.jvm], launch=launches[(cell.jvm, level)],
            flags=tuple(check.flags) if check else real,
            template=build_template(spec, cell.env, cell.args, workdirs[level], prep, bases[level]),
            added_unlocks=tuple(check.added_unlocks) if check else (),
            final_flags=dict(check.final_values) if check else {},
            check_warnings=tuple(check.warnings) if check else (),
            heap_warnings=tuple(check.heap_warnings) if check else (),
        ))
    return Plan(spec=spec, spec_text=text, spec_hash=spec_hash(text), spec_path=spec_path,
                cells=tuple(prepared), baseline_index=baseline.index, shape=RunShape.from_spec(spec),
                workdir=next(iter(workdirs.values())), revisions=revisions)


def _check_all(cells: list[Cell], jvms: dict[str, JdkInfo]) -> dict[int, FlagCheck]:
    """One PrintFlagsFinal run per distinct (JDK, flags); two at a time (2-core machines)."""
    distinct: dict[tuple[str, tuple[str, ...]], JdkInfo] = {}
    for cell in cells:
        distinct.setdefault((cell.jvm, _real_flags(cell)), jvms[cell.jvm])
    pool = ThreadPoolExecutor(max_workers=2)
    try:
        futures = {key: pool.submit(check_flags, jdk, list(key[1])) for key, jdk in distinct.items()}
        results: dict[tuple[str, tuple[str, ...]], FlagCheck] = {}
        for key, future in futures.items():
            try:
                results[key] = future.result()
            except UserError as err:
                raise UserError(f"JVM {key[0]!r}: {err}") from None
    finally:  # stopped (an error, Ctrl-C, SIGTERM): the checks not started are dropped, not waited for
        pool.shutdown(wait=False, cancel_futures=True)
    return {cell.index: results[(cell.jvm, _real_flags(cell))] for cell in cells}


def _real_flags(cell: Cell) -> tuple[str, ...]:
    """The flags a JVM can check: preparation markers (``@cds-archive``) are replaced later."""
    return tuple(f for f in cell.flags if not f.startswith(PREPARE_MARK))
