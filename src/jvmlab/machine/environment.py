"""Environment factors and per-cell preparation, behind one seam the runner calls.

``setup(plan)`` runs once before the first invocation and may return a changed plan (a
cell's JDK copied to tmpfs, a CDS/AOT archive made by a training run and its flags added);
``before(cell)`` runs before each invocation (evict the page cache for ``cold``) and returns
hazards; ``wrap_argv(cell, argv)`` and ``after(cell, result)`` put one invocation in a
CPU/memory-limited cgroup and read what happened there; ``teardown()`` runs at the end,
whatever happened. ``add_cell(plan, cell)`` gives a cell that joins after ``setup`` (a tuner's
trial configuration) what ``setup`` gives a planned cell.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Protocol

from jvmlab.errors import UserError
from jvmlab.machine import archives, limits, pagecache, thp, tmpfs
from jvmlab.machine.archive_run import Archive, RunContext, real_flags
from jvmlab.model import hazards
from jvmlab.model.collected import Collected
from jvmlab.model.hazards import Hazard
from jvmlab.model.process import ProcessResult
from jvmlab.plan.prepare import Plan, PreparedCell

RESIDENT_WARN_SHARE = 0.10  # after eviction, more than this still cached is reported
HUGE_FLAGS = ("UseTransparentHugePages", "UseLargePages")


class Environment(Protocol):
    def setup(self, plan: Plan) -> Plan: ...
    def add_cell(self, plan: Plan, cell: PreparedCell) -> PreparedCell: ...
    def before(self, cell: PreparedCell) -> list[Hazard]: ...
    def wrap_argv(self, cell: PreparedCell, argv: list[str]) -> list[str]: ...
    def after(self, cell: PreparedCell, result: ProcessResult) -> tuple[ProcessResult, Collected]: ...
    def teardown(self) -> None: ...


class NoEnvironment:
    """Nothing to prepare: no [environment] factors and no per-cell preparation."""

    def setup(self, plan: Plan) -> Plan:
        return plan

    def add_cell(self, plan: Plan, cell: PreparedCell) -> PreparedCell:
        return cell

    def before(self, cell: PreparedCell) -> list[Hazard]:
        return []

    def wrap_argv(self, cell: PreparedCell, argv: list[str]) -> list[str]:
        return argv

    def after(self, cell: PreparedCell, result: ProcessResult) -> tuple[ProcessResult, Collected]:
        return result, Collected()

    def teardown(self) -> None:
        return None


def build_environment(plan: Plan, artifacts_root: Path) -> Environment:
    """The environment handling this plan's spec needs."""
    env = plan.spec.environment
    needs = (env.jdk_location or env.page_cache or env.prepare or env.cpus or env.memory
             or any(pc.prepare is not None for pc in plan.cells)
             or any(any(h in f for h in HUGE_FLAGS) for pc in plan.cells for f in pc.flags))
    return MachineEnvironment(artifacts_root) if needs else NoEnvironment()


def machine_only(plan: Plan) -> list[str]:
    """What of the spec is prepared on this machine only (a cluster's nodes would run without
    it): the [environment] keys and the cells' archive preparation. Empty: fine on a cluster."""
    env = plan.spec.environment
    named = {"jdk_location": env.jdk_location, "page_cache": env.page_cache, "prepare": env.prepare,
             "cpus": env.cpus, "memory": env.memory}
    out = [f"[environment] {key}" for key, value in named.items() if value]
    out += [f"prepare of {pc.cell.name}" for pc in plan.cells if pc.prepare is not None]
    template = plan.cells[0].template if plan.cells else None
    out += ["the hooks (setup, before_each, after_each, cleanup)"] if template is not None and template.hooks else []
    return out


def run_context(plan: Plan, cell: PreparedCell | None = None) -> RunContext:
    """Training runs start like measured runs: the cell's invocation template (cwd, env, timeout);
    without a cell, the first cell's, minus its own variables (the workload's environment)."""
    pc = cell or plan.cells[0]
    template = pc.template
    if template is None:
        raise ValueError(f"cell {pc.cell.name!r} has no invocation template (not made by plan.prepare)")
    if cell is None:
        template = replace(template, env=dict(plan.spec.workload.env))
    env = template.process_env(pc.jdk.home if cell is not None else None)
    return RunContext(cwd=template.cwd, env=env, timeout_s=template.timeout_s)


class MachineEnvironment:
    """tmpfs JDK copies, warm/cold page cache, CDS/AOT archives and huge-page hazards."""

    def __init__(self, artifacts_root: Path) -> None:
        self.artifacts_root = Path(artifacts_root)
        self.keep_copies = False
        self.copies: dict[Path, tmpfs.TmpfsCopy] = {}  # source home -> copy
        self.archives: dict[int, Archive] = {}  # cell index -> archive
        self.files: dict[int, list[Path]] = {}  # cell index -> files its JVM reads
        self.on_tmpfs: dict[Path, bool] = {}
        self.last_eviction: pagecache.EvictionReport | None = None
        self._warned: set[int] = set()
        self._evicted_since_warm = False
        self.limits: limits.LimitRunner | None = None
        self.cpu_shares: int | None = None  # CPU-limited groups' weight (LimitRunner); None: the kernel's
        # Every cell's classpath as a jar (setup does it when any cell has an archive, so only
        # the archive differs between cells); a caller adding archived cells later sets it.
        self.jar_all = False

    def setup(self, plan: Plan) -> Plan:
        env = plan.spec.environment
        self.keep_copies = env.keep_tmpfs_copy
        if env.cpus or env.memory:  # refused with one line before anything is copied or run
            self.limits = limits.LimitRunner(env.cpu_limit, self.cpu_shares)
            limits.refuse_if_unsupported(self.limits, list(plan.cells))
        cells = [self._locate(pc, Path(env.tmpfs_dir)) for pc in plan.cells]
        cells = self._prepare_archives(plan, cells)
        plan = replace(plan, cells=tuple(cells))
        if env.page_cache:
            self._collect_files(plan)
            if "warm" in env.page_cache:
                self._warm(plan)
        if self.limits is not None:
            cwd = run_context(plan).cwd
            for pc in plan.cells:
                self.limits.view(pc, cwd)
        return plan

    def add_cell(self, plan: Plan, cell: PreparedCell) -> PreparedCell:
        """A cell made after ``setup`` (the tuner adds one per configuration): its JDK copy, its
        archive (a training run), its page-cache file list and its JVM's view of the limits,
        as ``setup`` makes them for a planned cell. Raises UserError when the archive fails."""
        env = plan.spec.environment
        (pc,) = self._prepare_archives(plan, [self._locate(cell, Path(env.tmpfs_dir))])
        if env.page_cache:
            self._collect_files(replace(plan, cells=(pc,)))
        if self.limits is not None:
            self.limits.view(pc, run_context(plan, pc).cwd)
        return pc

    def wrap_argv(self, cell: PreparedCell, argv: list[str]) -> list[str]:
        return self.limits.enter(cell, argv) if self.limits is not None else argv

    def after(self, cell: PreparedCell, result: ProcessResult) -> tuple[ProcessResult, Collected]:
        return self.limits.leave(cell, result) if self.limits is not None else (result, Collected())

    def before(self, cell: PreparedCell) -> list[Hazard]:
        out: list[Hazard] = []
        if cell.cell.index not in self._warned:
            self._warned.add(cell.cell.index)
            out.extend(thp.flag_hazards(list(cell.flags), cell.cell.name))
        level = cell.cell.level("page_cache")
        if level == "cold":
            out.extend(self._evict(cell))
        elif level == "warm" and self._evicted_since_warm:
            for f in self.files.get(cell.cell.index, []):
                pagecache.warm(f)
            self._evicted_since_warm = False
        return out

    def teardown(self) -> None:
        if self.limits is not None:
            self.limits.close()
        if self.keep_copies:
            return
        for copy in self.copies.values():
            if copy.created:
                tmpfs.remove_copy(copy)

    # -- setup steps --------------------------------------------------------------------

    def _locate(self, pc: PreparedCell, tmpfs_dir: Path) -> PreparedCell:
        if pc.cell.level("jdk_location") != "tmpfs":
            return pc
        source = pc.jdk.home
        if source not in self.copies:
            self.copies[source] = tmpfs.ensure_copy(source, tmpfs_dir)
        return replace(pc, jdk=replace(pc.jdk, home=self.copies[source].home))

    def _prepare_archives(self, plan: Plan, cells: list[PreparedCell]) -> list[PreparedCell]:
        kinds = {pc.cell.index: archives.requested_kind(pc) for pc in cells}
        if not any(kinds.values()) and not self.jar_all:
            return cells
        self.jar_all = True
        cells = self._jar_classpaths(cells)  # every cell, so only the archive differs between them
        out = []
        for pc in cells:
            kind = kinds[pc.cell.index]
            if kind is None:
                out.append(pc)
                continue
            path = archives.archive_path(self.artifacts_root, pc, kind, plan.spec_hash[:8])
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise UserError(f"cell {pc.cell.name!r}: cannot create {path.parent} for the {kind}: {err}; "
                                f"pass a writable --artifacts folder") from None
            archive = archives.make_archive(pc, kind, path, run_context(plan, pc))
            self.archives[pc.cell.index] = archive
            flags = (*real_flags(pc), *archive.flags)  # the typed preparation becomes real flags
            out.append(replace(pc, flags=flags, archive=archive.record))
        return out

    def _jar_classpaths(self, cells: list[PreparedCell]) -> list[PreparedCell]:
        out = []
        for pc in cells:
            entries = tuple(str(archives.jar_of_folder(Path(e), self.artifacts_root / "jars"))
                            if Path(e).is_dir() else e for e in pc.launch.classpath)
            out.append(replace(pc, launch=replace(pc.launch, classpath=entries)))
        return out

    def _collect_files(self, plan: Plan) -> None:
        for pc in plan.cells:
            roots = [pc.jdk.home] + [Path(e) for e in pc.launch.classpath if "*" not in e]
            if pc.launch.jar:
                roots.append(Path(pc.launch.jar))
            archive = self.archives.get(pc.cell.index)
            if archive is not None:
                roots.append(archive.path)
            files = [f for f in pagecache.files_under(roots) if f.name != tmpfs.COMPLETE_MARK]
            self.files[pc.cell.index] = files
            for f in files:
                if f.parent not in self.on_tmpfs:
                    self.on_tmpfs[f.parent] = tmpfs.is_tmpfs(f.parent)
                self.on_tmpfs[f] = self.on_tmpfs[f.parent]

    def _warm(self, plan: Plan) -> None:
        seen: set[Path] = set()
        for pc in plan.cells:
            for f in self.files[pc.cell.index]:
                if f not in seen:
                    seen.add(f)
                    pagecache.warm(f)

    # -- per invocation -----------------------------------------------------------------

    def _evict(self, pc: PreparedCell) -> list[Hazard]:
        report = pagecache.evict_all(self.files.get(pc.cell.index, []), self.on_tmpfs)
        self.last_eviction = report
        self._evicted_since_warm = True
        out = []
        if report.tmpfs_files:
            out.append(Hazard(hazards.PAGE_CACHE, f"{len(report.tmpfs_files)} file(s) this JVM reads are on "
                              f"tmpfs (e.g. {pagecache.biggest(list(report.tmpfs_files), 1)[0]}): "
                              f"they live in RAM and cannot be evicted, "
                              f"so 'cold' is warm for them",
                              "expected for jdk_location=tmpfs; compare cold/warm on disk", pc.cell.name))
        worst = report.worst
        if worst is not None and worst.share is not None and worst.share > RESIDENT_WARN_SHARE:
            out.append(Hazard(hazards.PAGE_CACHE, f"after eviction {worst.path.name} was still about "
                              f"{round(worst.share * 10) * 10}% in the page cache",
                              "pages mapped by a running process (another JVM using the same JDK) "
                              "cannot be dropped; stop other JVMs", pc.cell.name))
        elif not report.checked and not report.tmpfs_files:
            out.append(Hazard(hazards.PAGE_CACHE, "cold page cache: no file could be evicted or checked",
                              "check that the JDK and workload files are readable", pc.cell.name))
        return out
