"""Everything checked before anything runs: JDKs found, workload present, every flag of every
cell accepted by its JDK. Any problem is a UserError (exit 2) and nothing is stored.
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.jdk.model import JdkInfo
from jvmlab.plan.matrix import Cell, expand, find_baseline
from jvmlab.plan.workload import Launch, resolve_launch
from jvmlab.spec.model import Spec


PREPARE_MARK = "@"  # "@cds-archive", "@aot-cache": replaced by the environment's setup


@dataclass(frozen=True)
class PreparedCell:
    cell: Cell
    jdk: JdkInfo
    launch: Launch
    flags: tuple[str, ...]  # the cell's flags with any unlock flags added
    added_unlocks: tuple[str, ...]
    final_flags: dict[str, str]
    check_warnings: tuple[str, ...] = ()  # the JVM's own warnings for accepted flags
    heap_warnings: tuple[str, ...] = ()  # a maximum heap larger than the machine's memory


@dataclass(frozen=True)
class Plan:
    spec: Spec
    spec_text: str
    spec_hash: str
    spec_path: Path | None
    cells: tuple[PreparedCell, ...]
    baseline_index: int
    workdir: Path | None = None  # absolute: where every JVM of the experiment starts

    @property
    def jdk_homes(self) -> list[Path]:
        return sorted({c.jdk.home for c in self.cells})


def spec_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def resolve_jvms(spec: Spec) -> dict[str, JdkInfo]:
    """Each [jvms] name to an identified JDK."""
    from jvmlab.jdk import discover, select

    jdks = discover()
    return {name: select(selector, jdks) for name, selector in spec.jvms.items()}


def prepare(spec: Spec, text: str, spec_path: Path | None, check_flags: bool = True) -> Plan:
    """Expand the matrix, resolve JDKs and the workload, and check every cell's flags.

    Every relative path of the spec (classpath, jar, cwd) is resolved here, once, against
    one base: the spec file's folder (the current folder for a spec without a file). The
    plan holds only absolute paths, so where jvmlab is started from changes nothing."""
    cells = expand(spec)
    baseline = find_baseline(spec, cells)
    jvms = resolve_jvms(spec)
    spec_path = Path(os.path.abspath(spec_path)) if spec_path is not None else None
    base_dir = spec_path.parent if spec_path is not None else Path.cwd()
    workdir = resolve_workdir(spec.workload.cwd, base_dir)
    launches = {name: resolve_launch(spec.workload, jdk, base_dir, workdir) for name, jdk in jvms.items()}
    checks = _check_all(cells, jvms) if check_flags else {}
    prepared = []
    for cell in cells:
        check = checks.get(cell.index)
        markers = tuple(f for f in cell.flags if f.startswith(PREPARE_MARK))
        prepared.append(PreparedCell(
            cell=cell, jdk=jvms[cell.jvm], launch=launches[cell.jvm],
            flags=tuple(check.flags) + markers if check else cell.flags,
            added_unlocks=tuple(check.added_unlocks) if check else (),
            final_flags=dict(check.final_values) if check else {},
            check_warnings=tuple(check.warnings) if check else (),
            heap_warnings=tuple(check.heap_warnings) if check else (),
        ))
    return Plan(spec=spec, spec_text=text, spec_hash=spec_hash(text), spec_path=spec_path,
                cells=tuple(prepared), baseline_index=baseline.index, workdir=workdir)


def resolve_workdir(cwd: str | None, base_dir: Path) -> Path:
    """[workload] cwd against the spec's folder (default: the spec's folder itself); it must exist."""
    if cwd is None:
        return base_dir
    path = Path(cwd).expanduser()
    path = path if path.is_absolute() else base_dir / path
    if not path.is_dir():
        raise UserError(f"[workload] cwd {cwd} is not a folder (looked at {path})")
    return path


def _check_all(cells: list[Cell], jvms: dict[str, JdkInfo]) -> dict[int, object]:
    """One PrintFlagsFinal run per distinct (JDK, flags); two at a time (2-core machines)."""
    from jvmlab.jdk import check_flags

    distinct: dict[tuple[str, tuple[str, ...]], JdkInfo] = {}
    for cell in cells:
        distinct.setdefault((cell.jvm, _real_flags(cell)), jvms[cell.jvm])
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {key: pool.submit(check_flags, jdk, list(key[1])) for key, jdk in distinct.items()}
        results = {}
        for key, future in futures.items():
            try:
                results[key] = future.result()
            except UserError as err:
                raise UserError(f"JVM {key[0]!r}: {err}") from None
    return {cell.index: results[(cell.jvm, _real_flags(cell))] for cell in cells}


def _real_flags(cell: Cell) -> tuple[str, ...]:
    """The flags a JVM can check: preparation markers (``@cds-archive``) are replaced later."""
    return tuple(f for f in cell.flags if not f.startswith(PREPARE_MARK))
