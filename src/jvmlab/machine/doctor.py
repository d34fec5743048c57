"""`jvmlab doctor`: the machine settings that change JVM measurements, each with a verdict.

Every check reads the real machine and says ``ok`` (nothing to do), ``warn`` (this setting
can distort results or make a flag useless) or ``info`` (worth knowing), with a hint. What
cannot be read is said to be unknown, never guessed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from jvmlab.machine import tmpfs
from jvmlab.machine.check import Check, Verdict
from jvmlab.machine.fingerprint import cpu_model, meminfo, read_text, thp_setting
from jvmlab.machine.windows import windows_checks
from jvmlab.machine.wsl import run_wsl_checks

SCHEMA = "jvmlab.doctor/1"
BUSY_LOAD_PER_CPU = 0.25
PERF_TIMEOUT_S = 15.0
CGROUP_ROOT = Path("/sys/fs/cgroup")
SYS_CPU = Path("/sys/devices/system/cpu")
THP_HINT = "as root: echo madvise > /sys/kernel/mm/transparent_hugepage/enabled"


def _gib(n: int | None) -> str:
    return "unknown" if n is None else f"{n / (1 << 30):.1f} GiB"


def check_thp() -> list[Check]:
    enabled, defrag = thp_setting("enabled"), thp_setting("defrag")
    if enabled is None:
        thp = Check("thp_enabled", "unknown", "info",
                    "no /sys/kernel/mm/transparent_hugepage: THP flags may do nothing")
    elif enabled == "madvise":
        thp = Check("thp_enabled", enabled, "ok",
                    "-XX:+UseTransparentHugePages gives the heap huge pages; off means off")
    elif enabled == "always":
        thp = Check("thp_enabled", enabled, "warn", "every heap gets huge pages with or without the flag, so "
                    f"THP on/off comparisons show little; {THP_HINT}")
    else:
        thp = Check("thp_enabled", enabled, "warn", f"-XX:+UseTransparentHugePages has no effect; {THP_HINT}")
    if defrag in ("madvise", "defer", "defer+madvise"):
        dfg = Check("thp_defrag", defrag, "ok", "page faults do not stall on compaction except where asked")
    elif defrag == "always":
        dfg = Check("thp_defrag", defrag, "warn", "page faults may stall on compaction: noisy timings; "
                    "as root: echo madvise > /sys/kernel/mm/transparent_hugepage/defrag")
    else:
        dfg = Check("thp_defrag", defrag or "unknown", "info", "huge pages are given only when free ones exist")
    return [thp, dfg]


def check_hugepages(info: dict[str, int]) -> Check:
    total, free, size = info.get("HugePages_Total"), info.get("HugePages_Free"), info.get("Hugepagesize")
    data = {"total": total, "free": free, "size_bytes": size}
    if total is None:
        return Check("hugepages", "unknown", "info", "no HugePages lines in /proc/meminfo", data)
    text = f"{total} total, {free} free, {(size or 0) >> 10} KiB each"
    if total == 0:
        return Check("hugepages", text, "info", "-XX:+UseLargePages (hugetlbfs) falls back to small pages; "
                     "reserve some: echo 1024 > /proc/sys/vm/nr_hugepages (as root)", data)
    return Check("hugepages", text, "ok", "hugetlbfs pages are reserved for -XX:+UseLargePages", data)


def check_overcommit() -> Check:
    raw = read_text(Path("/proc/sys/vm/overcommit_memory"))
    if raw == "2":
        return Check("overcommit", "2 (strict)", "warn", "large -Xmx reservations may fail to start; "
                     "sysctl vm.overcommit_memory=0", {"mode": 2})
    if raw in ("0", "1"):
        words = {"0": "0 (heuristic)", "1": "1 (always)"}
        return Check("overcommit", words[raw], "ok", "heap reservations succeed", {"mode": int(raw)})
    return Check("overcommit", "unknown", "info", "cannot read /proc/sys/vm/overcommit_memory", {"mode": None})


def check_swap(info: dict[str, int]) -> Check:
    total, free = info.get("SwapTotal"), info.get("SwapFree")
    swappiness = read_text(Path("/proc/sys/vm/swappiness"))
    data = {"total_bytes": total, "free_bytes": free, "swappiness": int(swappiness) if swappiness else None}
    if total is None:
        return Check("swap", "unknown", "info", "no SwapTotal in /proc/meminfo", data)
    if total == 0:
        return Check("swap", "none", "ok", "no swap: paging cannot distort timings", data)
    used = total - (free or 0)
    if used > 0:
        return Check("swap", f"{_gib(used)} used of {_gib(total)}", "warn",
                     "swapped-out pages make timings noisy; free memory or swapoff -a", data)
    return Check("swap", f"{_gib(total)}, unused (swappiness {swappiness})", "info",
                 "a big heap under memory pressure may swap", data)


def cgroup_paths() -> tuple[Path | None, Path | None, Path | None]:
    """(v2 folder, v1 cpu folder, v1 memory folder) of this process's cgroup, where present."""
    v2 = v1cpu = v1mem = None
    for line in (read_text(Path("/proc/self/cgroup")) or "").splitlines():
        hid, _, rest = line.partition(":")
        controllers, _, rel = rest.partition(":")
        rel = rel.lstrip("/")
        if hid == "0" and controllers == "":
            v2 = _first_dir(CGROUP_ROOT / rel, CGROUP_ROOT)
        for name in controllers.split(","):
            if name == "cpu":
                v1cpu = _first_dir(CGROUP_ROOT / "cpu" / rel, CGROUP_ROOT / "cpu")
            elif name == "memory":
                v1mem = _first_dir(CGROUP_ROOT / "memory" / rel, CGROUP_ROOT / "memory")
    return v2, v1cpu, v1mem


def _first_dir(*candidates: Path) -> Path | None:
    return next((c for c in candidates if c.is_dir()), None)


def cgroup_limits() -> tuple[float | None, int | None, str]:
    """(CPU limit in CPUs, memory limit in bytes, where read); None means no limit found."""
    v2, v1cpu, v1mem = cgroup_paths()
    if v2 is not None and any((v2 / name).is_file() for name in ("cpu.max", "memory.max")):
        cpu = mem = None
        quota, _, period = (read_text(v2 / "cpu.max") or "max").partition(" ")
        if quota != "max" and period:
            cpu = int(quota) / int(period)
        raw = read_text(v2 / "memory.max")
        if raw and raw != "max":
            mem = int(raw)
        return cpu, mem, f"cgroup v2 {v2}"
    cpu = mem = None
    if v1cpu is not None:
        quota_us = read_text(v1cpu / "cpu.cfs_quota_us")
        period_us = read_text(v1cpu / "cpu.cfs_period_us")
        if quota_us and period_us and int(quota_us) > 0:
            cpu = int(quota_us) / int(period_us)
    if v1mem is not None:
        raw = read_text(v1mem / "memory.limit_in_bytes")
        if raw and int(raw) < (1 << 60):  # v1 says "no limit" with a huge number
            mem = int(raw)
    return cpu, mem, "cgroup v1" if (v1cpu or v1mem) else "no cgroup files"


def check_cgroup(info: dict[str, int]) -> list[Check]:
    cpu, mem, where = cgroup_limits()
    count = os.cpu_count() or 1
    if cpu is None:
        cpu_check = Check("cgroup_cpu", "no limit", "ok", f"read from {where}", {"cpus": None})
    else:
        verdict: Verdict = "warn" if cpu < count else "info"
        cpu_check = Check("cgroup_cpu", f"{cpu:g} CPUs", verdict, "the JVM sizes GC and JIT threads from this "
                          "limit; CPU throttling makes timings noisy", {"cpus": cpu})
    if mem is None:
        mem_check = Check("cgroup_memory", "no limit", "ok", f"read from {where}", {"bytes": None})
    else:
        total = info.get("MemTotal")
        verdict = "warn" if total and mem < total else "info"
        mem_check = Check("cgroup_memory", _gib(mem), verdict, "the JVM's default heap is a share of this; "
                          "heaps near it get OOM-killed", {"bytes": mem})
    return [cpu_check, mem_check]


def check_cpu() -> list[Check]:
    count = os.cpu_count() or 0
    governors = sorted({g for g in (read_text(p) for p in SYS_CPU.glob("cpu[0-9]*/cpufreq/scaling_governor")) if g})
    model = Check("cpu_model", cpu_model() or "unknown", "info", "")
    cpus = Check("cpu_count", str(count), "info" if count < 4 else "ok",
                 "few CPUs: concurrent GC and JIT threads compete with the application" if count < 4 else "",
                 {"count": count})
    if not governors:
        gov = Check("cpu_governor", "unknown", "info", "no cpufreq in /sys (usual in VMs): frequency is the host's")
    elif governors == ["performance"]:
        gov = Check("cpu_governor", "performance", "ok", "fixed high frequency")
    else:
        gov = Check("cpu_governor", ",".join(governors), "warn", "frequency scaling adds noise: "
                    "cpupower frequency-set -g performance (as root)")
    return [model, cpus, gov]


def check_load() -> Check:
    raw = read_text(Path("/proc/loadavg"))
    if raw is None:
        return Check("load", "unknown", "info", "cannot read /proc/loadavg", {"load1": None})
    load1 = float(raw.split()[0])
    per_cpu = load1 / (os.cpu_count() or 1)
    data = {"load1": load1, "load5": float(raw.split()[1]), "load15": float(raw.split()[2])}
    if per_cpu > BUSY_LOAD_PER_CPU:
        return Check("load", f"{load1:.2f} (1 min)", "warn", "other work is running: results will be noisy; "
                     "stop it, or let random-blocks order keep comparisons fair", data)
    return Check("load", f"{load1:.2f} (1 min)", "ok", "the machine is quiet", data)


def check_tmpfs() -> Check:
    found: list[dict[str, Any]] = []
    for mount in tmpfs.mounts():
        if mount.fs_type != "tmpfs" or mount.mount_point.parts[1:2] in (("sys",), ("proc",)):
            continue
        if not os.access(mount.mount_point, os.W_OK):
            continue
        try:
            st = os.statvfs(mount.mount_point)
        except OSError:
            continue
        found.append({"mount_point": str(mount.mount_point), "size_bytes": st.f_blocks * st.f_frsize,
                      "free_bytes": st.f_bavail * st.f_frsize})
    found = list({m["mount_point"]: m for m in found}.values())
    if not found:
        return Check("tmpfs", "none writable", "warn", "jdk_location = tmpfs needs one: "
                     "mount -t tmpfs -o size=1g tmpfs /mnt/ram (as root)", {"mounts": []})
    text = ", ".join(f"{m['mount_point']} ({_gib(m['free_bytes'])} free of {_gib(m['size_bytes'])})" for m in found)
    return Check("tmpfs", text, "ok", "a JDK copy needs about 300 MiB", {"mounts": found})


def check_perf() -> Check:
    """Hardware counters work only if perf can really count dTLB misses here (never faked)."""
    perf = shutil.which("perf")
    if perf is None:
        return Check("perf_counters", "unsupported", "info", "perf is not installed (apt-get install linux-perf)",
                     {"supported": False})
    try:
        done = subprocess.run([perf, "stat", "-x", ",", "-e", "dTLB-load-misses", "true"], capture_output=True,
                              text=True, timeout=PERF_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        return Check("perf_counters", "unsupported", "info", f"perf did not run: {err}", {"supported": False})
    line = next((ln for ln in done.stderr.splitlines() if "dTLB-load-misses" in ln), "")
    count = line.split(",", 1)[0]
    if done.returncode != 0 or not count.strip().isdigit():
        lines = done.stderr.strip().splitlines()
        why = line or (lines[-1] if lines else "no output")
        return Check("perf_counters", "unsupported", "info", f"perf cannot count dTLB-load-misses here "
                     f"({why}); VMs often hide the PMU", {"supported": False})
    return Check("perf_counters", "supported", "ok", "dTLB-load-misses counted by perf stat", {"supported": True})


def run_doctor() -> list[Check]:
    if os.name == "nt":  # no /proc or /sys: the Windows checks (large-page privilege, power plan)
        return windows_checks()
    info = meminfo()
    return [*check_thp(), check_hugepages(info), check_overcommit(), check_swap(info), *check_cgroup(info),
            *check_cpu(), check_load(), check_tmpfs(), check_perf(), *run_wsl_checks()]


def doctor_json(checks: list[Check]) -> dict[str, Any]:
    return {"schema": SCHEMA, "checks": [c.to_json() for c in checks],
            "warnings": sum(1 for c in checks if c.verdict == "warn")}
