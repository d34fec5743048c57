"""CPU and memory limits for one invocation: a cgroup made and removed by jvmlab.

``[environment] cpus = [1, 2]`` and ``memory = ["1g", "4g"]`` become factors; each
invocation of a limited cell runs in a fresh cgroup (v1: one folder per controller under
this process's own; v2: one folder under the unified root) with a CFS quota (or a cpuset)
and a memory limit with swap off. A fresh group per invocation keeps the OOM-kill counter
and the peak-memory counter to that invocation alone.

How the JVM gets in (the race chosen): the argv is wrapped in ``/bin/sh -c`` with a fixed
script that writes its own pid into the group's ``cgroup.procs`` files and then ``exec``s
the JVM with the original argv (the user's arguments are positional parameters, never
parsed by the shell). The JVM therefore starts inside the group and reads its limits at
startup; joining from the parent after spawn would race the JVM's own container
detection. The cost is one dash start (about a millisecond, the same in every cell).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.spec.durations import parse_size_bytes as parse_size_bytes  # re-exported: machine.limits reads it here

CGROUP_ROOT = Path("/sys/fs/cgroup")
PERIOD_US = 100_000
V1_MAX_SHARES = 262_144
ENTER_SCRIPT = 'while [ "$1" != "--" ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


@dataclass(frozen=True)
class Limits:
    """One cell's limits; None means not limited."""

    cpus: float | None = None
    memory_bytes: int | None = None
    cpu_mode: str = "quota"  # "quota" (CFS bandwidth) or "cpuset" (the first N CPUs)
    # The group's CPU weight against other processes (v1 cpu.shares, 2-262144; v2 cpu.weight,
    # 1-10000, scaled); None: the kernel's default. A quota still caps what the group gets.
    cpu_shares: int | None = None

    @property
    def any(self) -> bool:
        return self.cpus is not None or self.memory_bytes is not None


@dataclass(frozen=True)
class Hierarchy:
    """Where groups are made on this machine: v2 (one folder) or v1 (one per controller)."""

    version: int
    folders: dict[str, Path]  # controller -> parent folder for new groups (v2: same folder)


@dataclass
class Group:
    """One created cgroup (a folder per v1 controller, or one v2 folder)."""

    hierarchy: Hierarchy
    folders: dict[str, Path] = field(default_factory=dict)

    @property
    def procs_files(self) -> list[Path]:
        return sorted({f / "cgroup.procs" for f in self.folders.values()})

    def oom_kills(self) -> int | None:
        """The kernel's OOM-kill count in this group (None where the kernel does not say)."""
        folder = self.folders.get("memory")
        if folder is None:
            return None
        name = "memory.events" if self.hierarchy.version == 2 else "memory.oom_control"
        return _field(folder / name, "oom_kill")

    def peak_bytes(self) -> int | None:
        folder = self.folders.get("memory")
        if folder is None:
            return None
        name = "memory.peak" if self.hierarchy.version == 2 else "memory.max_usage_in_bytes"
        try:
            return int((folder / name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def remove(self) -> None:
        """rmdir each folder; a just-reaped process may take a moment to leave it."""
        for folder in self.folders.values():
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)


def enter_argv(group: Group, argv: list[str]) -> list[str]:
    """argv that joins ``group`` and then becomes ``argv`` (see the module doc for why)."""
    return ["/bin/sh", "-c", ENTER_SCRIPT, "jvmlab-cgroup", *map(str, group.procs_files), "--", *argv]


def controllers_needed(limits: Limits) -> list[str]:
    out = []
    if limits.cpus is not None:
        out.append("cpuset" if limits.cpu_mode == "cpuset" else "cpu")
    if limits.memory_bytes is not None:
        out.append("memory")
    return out


def find_hierarchy(controllers: list[str]) -> Hierarchy:
    """Where the controllers can be used, or a UserError saying why not (before anything runs)."""
    if os.geteuid() != 0:
        raise UserError("[environment] cpus/memory need cgroups, which only root can create here; "
                        "run jvmlab as root (or drop the cpus/memory factors)")
    mounts = _cgroup_mounts()
    v1 = {c: m for c, m in mounts.items() if c != "" and c in controllers}
    if len(v1) == len(controllers):
        own = _own_paths()
        return Hierarchy(1, {c: v1[c] / own.get(c, "/").lstrip("/") for c in controllers})
    unified = mounts.get("")
    if unified is not None:
        available = (_read(unified / "cgroup.controllers") or "").split()
        missing = [c for c in controllers if c not in available]
        if not missing:
            return Hierarchy(2, {c: unified for c in controllers})
        raise UserError(f"[environment] cpus/memory: the cgroup v2 controller(s) {', '.join(missing)} "
                        f"are not enabled at {unified}; enable them or drop the factor")
    missing = [c for c in controllers if c not in v1]
    raise UserError(f"[environment] cpus/memory: no cgroup controller {', '.join(missing)} is mounted "
                    f"on this machine; drop the factor or mount it")


def create(hierarchy: Hierarchy, name: str, limits: Limits) -> Group:
    """Make the group and write its limits; UserError if the kernel refuses."""
    group = Group(hierarchy)
    try:
        if hierarchy.version == 2:
            _create_v2(group, name, limits)
        else:
            _create_v1(group, name, limits)
    except OSError as err:
        group.remove()
        raise UserError(f"cannot create cgroup {name!r} with {limits}: {err}; check `jvmlab doctor` "
                        f"and that the controllers are writable") from None
    return group


def _create_v1(group: Group, name: str, limits: Limits) -> None:
    for controller, parent in group.hierarchy.folders.items():
        folder = parent / name
        folder.mkdir()
        group.folders[controller] = folder
        if controller == "memory":
            assert limits.memory_bytes is not None
            (folder / "memory.limit_in_bytes").write_text(str(limits.memory_bytes))
            if (folder / "memory.memsw.limit_in_bytes").exists():
                (folder / "memory.memsw.limit_in_bytes").write_text(str(limits.memory_bytes))
        elif controller == "cpu":
            assert limits.cpus is not None
            (folder / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (folder / "cpu.cfs_quota_us").write_text(str(round(limits.cpus * PERIOD_US)))
            if limits.cpu_shares is not None:
                (folder / "cpu.shares").write_text(str(min(max(limits.cpu_shares, 2), V1_MAX_SHARES)))
        elif controller == "cpuset":
            (folder / "cpuset.mems").write_text(_read(parent / "cpuset.mems") or "0")
            (folder / "cpuset.cpus").write_text(cpuset_list(parent / "cpuset.cpus", limits.cpus))


def _create_v2(group: Group, name: str, limits: Limits) -> None:
    root = next(iter(group.hierarchy.folders.values()))
    wanted = " ".join(f"+{c}" for c in group.hierarchy.folders)
    enabled = (_read(root / "cgroup.subtree_control") or "").split()
    if any(c not in enabled for c in group.hierarchy.folders):
        (root / "cgroup.subtree_control").write_text(wanted)
    folder = root / name
    folder.mkdir()
    group.folders = {c: folder for c in group.hierarchy.folders}
    if limits.memory_bytes is not None:
        (folder / "memory.max").write_text(str(limits.memory_bytes))
        if (folder / "memory.swap.max").exists():
            (folder / "memory.swap.max").write_text("0")
    if limits.cpus is not None and limits.cpu_mode == "cpuset":
        (folder / "cpuset.cpus").write_text(cpuset_list(root / "cpuset.cpus.effective", limits.cpus))
    elif limits.cpus is not None:
        (folder / "cpu.max").write_text(f"{round(limits.cpus * PERIOD_US)} {PERIOD_US}")
        if limits.cpu_shares is not None:  # the v1 range mapped onto v2's (the kernel's own formula)
            weight = 1 + (min(max(limits.cpu_shares, 2), V1_MAX_SHARES) - 2) * 9999 // (V1_MAX_SHARES - 2)
            (folder / "cpu.weight").write_text(str(weight))


def cpuset_list(parent_cpus: Path, cpus: float | None) -> str:
    """The first ``cpus`` CPUs the parent allows, as a cpuset list ("0", "0,1")."""
    allowed = expand_cpu_list(_read(parent_cpus) or "")
    n = int(cpus or 0)
    if n != cpus or not 1 <= n <= len(allowed):
        raise UserError(f"[environment] cpus = {cpus:g} with cpu_limit = \"cpuset\" needs a whole number "
                        f"from 1 to {len(allowed)} (the CPUs this machine allows)")
    return ",".join(str(c) for c in allowed[:n])


def expand_cpu_list(text: str) -> list[int]:
    """"0-2,5" -> [0, 1, 2, 5]."""
    out: list[int] = []
    for part in text.strip().split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out.extend(range(int(a), int(b) + 1))
        elif part.strip():
            out.append(int(part))
    return out


def _cgroup_mounts() -> dict[str, Path]:
    """controller -> v1 mount point; "" -> the cgroup2 mount."""
    out: dict[str, Path] = {}
    for line in (_read(Path("/proc/self/mounts")) or "").splitlines():
        parts = line.split()
        if len(parts) < 4:
            continue
        if parts[2] == "cgroup2":
            out.setdefault("", Path(parts[1]))
        elif parts[2] == "cgroup":
            for option in parts[3].split(","):
                out.setdefault(option, Path(parts[1]))
    return out


def _own_paths() -> dict[str, str]:
    """controller -> this process's v1 cgroup path (from /proc/self/cgroup)."""
    out: dict[str, str] = {}
    for line in (_read(Path("/proc/self/cgroup")) or "").splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(","):
                out[controller] = parts[2]
    return out


def _field(path: Path, key: str) -> int | None:
    for line in (_read(path) or "").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            return int(parts[1])
    return None


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None
