"""`jvmlab doctor --json` on this machine: every check present, each with a verdict."""

from __future__ import annotations

import json
import subprocess
import sys

from jvmlab.machine import doctor
from jvmlab.machine.fingerprint import meminfo

FIELDS = {"thp_enabled", "thp_defrag", "hugepages", "overcommit", "swap", "cgroup_cpu", "cgroup_memory",
          "cpu_model", "cpu_count", "cpu_governor", "load", "tmpfs", "perf_counters"}


def test_doctor_json_has_every_field_with_a_verdict() -> None:
    done = subprocess.run([sys.executable, "-m", "jvmlab", "doctor", "--json"], capture_output=True,
                          text=True, timeout=60, check=True)
    doc = json.loads(done.stdout)
    assert doc["schema"] == doctor.SCHEMA
    checks = {c["name"]: c for c in doc["checks"]}
    assert set(checks) == FIELDS
    for c in checks.values():
        assert c["verdict"] in ("ok", "warn", "info") and c["value"], c
        if c["verdict"] == "warn":
            assert c["hint"], c  # a warning always says what to do
    assert checks["perf_counters"]["value"] in ("supported", "unsupported")
    assert doc["warnings"] == sum(c["verdict"] == "warn" for c in checks.values())


def test_hugepages_and_swap_verdicts_follow_meminfo() -> None:
    none = meminfo("HugePages_Total: 0\nHugePages_Free: 0\nHugepagesize: 2048 kB\nSwapTotal: 0 kB\n")
    some = meminfo("HugePages_Total: 64\nHugePages_Free: 64\nHugepagesize: 2048 kB\n"
                   "SwapTotal: 1024 kB\nSwapFree: 512 kB\n")
    assert doctor.check_hugepages(none).verdict == "info"
    assert doctor.check_hugepages(some).verdict == "ok"
    assert doctor.check_swap(none).verdict == "ok"
    swap = doctor.check_swap(some)
    assert swap.verdict == "warn" and swap.data["total_bytes"] == 1 << 20
    assert doctor.check_hugepages({}).value == "unknown"


def test_tmpfs_check_lists_dev_shm_with_free_space() -> None:
    check = doctor.check_tmpfs()
    points = {m["mount_point"]: m for m in check.data["mounts"]}
    if "/dev/shm" in points:
        assert points["/dev/shm"]["free_bytes"] > 0 and check.verdict == "ok"
    assert not any(p.startswith("/sys") for p in points)
