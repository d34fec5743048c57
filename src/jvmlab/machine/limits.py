"""CPU and memory limits per invocation, and what the JVM believed about them.

Used by the machine environment when a spec has ``[environment] cpus`` or ``memory``:
``check`` refuses the factor before anything runs when cgroups cannot be made here;
``view`` starts the cell's JVM once inside a limited group (``-XX:+PrintFlagsFinal
-Xlog:os+container=trace -version``) to record the CPU count and heap size it chose;
``enter``/``leave`` wrap one invocation in a fresh group and read its OOM-kill count.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.machine import cgroup
from jvmlab.machine.cgroup import Group, Hierarchy, Limits
from jvmlab.model.collected import Collected
from jvmlab.model.documents import JvmViewDocument, LimitsDocument
from jvmlab.model.process import ProcessResult, Status
from jvmlab.plan.prepare import Plan, PreparedCell

VIEW_TIMEOUT_S = 60.0
_PROCESSORS = re.compile(r"active_processor_count:\s*(\d+)", re.IGNORECASE)
_MEMORY_LIMIT = re.compile(r"Memory Limit is:\s*(\d+|Unlimited)", re.IGNORECASE)
_MAX_HEAP = re.compile(r"^\s*size_t\s+MaxHeapSize\s*=\s*(\d+)", re.MULTILINE)
_ACTIVE_FLAG = re.compile(r"^\s*int\s+ActiveProcessorCount\s*=\s*(-?\d+)", re.MULTILINE)


def cell_limits(pc: PreparedCell, cpu_mode: str, cpu_shares: int | None = None) -> Limits:
    """The limits a cell's ``cpus``/``memory`` levels ask for (``cpu_shares``: the CPU weight
    of a CPU-limited group, see :class:`LimitRunner`)."""
    cpus = pc.cell.level("cpus")
    memory = pc.cell.level("memory")
    return Limits(cpus=float(cpus) if cpus is not None else None,
                  memory_bytes=cgroup.parse_size_bytes(memory) if memory is not None else None,
                  cpu_mode=cpu_mode, cpu_shares=cpu_shares if cpus is not None and cpu_mode == "quota" else None)


def parse_view(output: str) -> JvmViewDocument:
    """Read PrintFlagsFinal and os+container trace output (JDK 11+ HotSpot wording)."""
    procs = _PROCESSORS.findall(output)
    limit = _MEMORY_LIMIT.findall(output)
    heap = _MAX_HEAP.search(output)
    flag = _ACTIVE_FLAG.search(output)
    lines = tuple(dict.fromkeys(line.strip() for line in output.splitlines()
                                if "os,container" in line and ("Limit is" in line or "processor_count" in line
                                                               or "Quota" in line or "cpuset" in line.lower())))
    return JvmViewDocument(
        active_processors=int(procs[-1]) if procs else None,
        max_heap_bytes=int(heap.group(1)) if heap else None,
        memory_limit_bytes=int(limit[-1]) if limit and limit[-1].isdigit() else None,
        active_processor_count_flag=int(flag.group(1)) if flag else None,
        container_lines=lines[:20],
    )


class LimitRunner:
    """Makes a fresh cgroup per invocation of a limited cell and removes it afterwards."""

    def __init__(self, cpu_mode: str, cpu_shares: int | None = None) -> None:
        self.cpu_mode = cpu_mode
        # None: CPU-limited groups weigh what the kernel gives any group. A driver measuring a
        # container's size (`rightsize`) gives them the most, so other work on the machine
        # takes nothing of what the quota allows, as a container whose request equals its limit.
        self.cpu_shares = cpu_shares
        self.hierarchies: dict[tuple[str, ...], Hierarchy] = {}
        self.views: dict[int, JvmViewDocument] = {}
        self.current: Group | None = None
        self.current_limits: Limits | None = None
        self._serial = 0

    def check(self, cells: list[PreparedCell]) -> None:
        """Refuse the factor with one line if any cell's limits cannot be applied here."""
        for pc in cells:
            limits = cell_limits(pc, self.cpu_mode, self.cpu_shares)
            refuse_beyond_machine(limits)
            if limits.any:
                self._hierarchy(limits)
                if limits.cpus is not None and limits.cpu_mode == "cpuset":
                    parent = self._hierarchy(limits).folders["cpuset"]
                    name = "cpuset.cpus" if (parent / "cpuset.cpus").exists() else "cpuset.cpus.effective"
                    cgroup.cpuset_list(parent / name, limits.cpus)

    def view(self, pc: PreparedCell, cwd: Path) -> JvmViewDocument | None:
        """Start the cell's JVM once inside its limits and read what it believed."""
        limits = cell_limits(pc, self.cpu_mode, self.cpu_shares)
        if not limits.any:
            return None
        group = cgroup.create(self._hierarchy(limits), self._name("view"), limits)
        argv = [str(pc.jdk.java), *[f for f in pc.flags if not f.startswith("@")],
                "-XX:+PrintFlagsFinal", "-Xlog:os+container=trace", "-version"]
        try:
            done = subprocess.run(cgroup.enter_argv(group, argv), cwd=cwd, capture_output=True, text=True,
                                  timeout=VIEW_TIMEOUT_S, check=False)
            found = parse_view(done.stdout + "\n" + done.stderr)
        except subprocess.TimeoutExpired:
            found = JvmViewDocument(None, None, None, None, ("timed out reading the JVM's view",))
        finally:
            group.remove()
        self.views[pc.cell.index] = found
        return found

    def enter(self, pc: PreparedCell, argv: list[str]) -> list[str]:
        """A fresh group for this invocation; the argv that runs inside it."""
        limits = cell_limits(pc, self.cpu_mode, self.cpu_shares)
        if not limits.any:
            self.current = None
            return argv
        self.current = cgroup.create(self._hierarchy(limits), self._name("run"), limits)
        self.current_limits = limits
        return cgroup.enter_argv(self.current, argv)

    def leave(self, pc: PreparedCell, result: ProcessResult) -> tuple[ProcessResult, Collected]:
        """Read the group's counters, name an OOM kill as such, remove the group."""
        collected = Collected()
        view = self.views.get(pc.cell.index)
        if view is not None:
            for name, value in (("jvm.active_processors", view.active_processors),
                                ("jvm.max_heap_bytes", view.max_heap_bytes),
                                ("jvm.memory_limit_bytes", view.memory_limit_bytes)):
                if value is not None:
                    collected.metrics[name] = float(value)
            collected.documents[JvmViewDocument.KIND] = view.to_json()
        group, limits, self.current = self.current, self.current_limits, None
        if group is None or limits is None:
            return result, collected
        kills = group.oom_kills()
        peak = group.peak_bytes()
        group.remove()
        if kills is not None:
            collected.metrics["cgroup.oom_kills"] = float(kills)
        if peak is not None:
            collected.metrics["cgroup.peak_bytes"] = float(peak)
        collected.documents[LimitsDocument.KIND] = LimitsDocument(
            limits.cpus, limits.memory_bytes, limits.cpu_mode, group.hierarchy.version, kills).to_json()
        if kills and result.status is not Status.OK:
            mib = (limits.memory_bytes or 0) / (1 << 20)
            result = replace(result, reason=f"OOM-killed by the cgroup memory limit of {mib:g} MiB "
                                            f"({kills} kill(s) in the group); was: {result.reason}")
        return result, collected

    def close(self) -> None:
        """Remove a group left by an invocation that raised (Ctrl-C) before ``leave``."""
        if self.current is not None:
            self.current.remove()
            self.current = None

    def _hierarchy(self, limits: Limits) -> Hierarchy:
        key = tuple(cgroup.controllers_needed(limits))
        if key not in self.hierarchies:
            self.hierarchies[key] = cgroup.find_hierarchy(list(key))
        return self.hierarchies[key]

    def _name(self, kind: str) -> str:
        self._serial += 1
        return f"jvmlab-{os.getpid()}-{kind}-{self._serial}"


def machine_cpus() -> int:
    """The CPUs this process may run on (its affinity, else the machine's count)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)


def machine_memory_bytes() -> int:
    import psutil

    return int(psutil.virtual_memory().total)


def refuse_beyond_machine(limits: Limits) -> None:
    """A limit above what the machine has limits nothing: the cell named after it would run
    unlimited and be reported as if limited. Refused with the numbers (``check`` and ``run``)."""
    if limits.cpus is not None and limits.cpus > machine_cpus():
        raise UserError(f"[environment] cpus = {limits.cpus:g} is more than the {machine_cpus()} CPUs this machine "
                        f"gives jvmlab: the cell would run unlimited; use at most {machine_cpus()}")
    if limits.memory_bytes is not None and limits.memory_bytes > machine_memory_bytes():
        total = machine_memory_bytes()
        raise UserError(f"[environment] memory = {limits.memory_bytes / 2**30:.4g} GiB is more than the "
                        f"{total / 2**30:.4g} GiB this machine has: the cell would run unlimited; "
                        f"use at most {total // 2**20}m")


def check_limits(plan: Plan) -> None:
    """``jvmlab check``: the same refusals ``run`` makes before anything runs (limits above the
    machine, a cpuset larger than the CPUs allowed, no usable cgroup hierarchy)."""
    env = plan.spec.environment
    if env.cpus or env.memory:
        refuse_if_unsupported(LimitRunner(env.cpu_limit), list(plan.cells))


def refuse_if_unsupported(runner: LimitRunner, cells: list[PreparedCell]) -> None:
    """The one-line refusal before anything runs (wraps find_hierarchy's reason)."""
    try:
        runner.check(cells)
    except OSError as err:
        raise UserError(f"[environment] cpus/memory: cannot read the cgroup setup here: {err}") from None
