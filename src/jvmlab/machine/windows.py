"""`doctor` on Windows: the large-page privilege, the power plan, memory and CPUs.

-XX:+UseLargePages on Windows needs the account to hold SeLockMemoryPrivilege ("Lock pages in
memory"); without it the JVM warns and falls back to small pages, so a large-page experiment
measures nothing. ``whoami /priv`` lists the privileges the account holds (``Disabled`` only
means not switched on in the token yet; the JVM switches it on itself). The active power plan
(``powercfg /getactivescheme``) decides whether the CPU clock drifts between invocations.

Readers take the commands' text, so the checks are tested on recorded outputs; the commands
themselves run only on Windows. This module has not run on a real Windows machine yet.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable

from jvmlab.machine.check import Check

COMMAND_TIMEOUT_S = 10.0
LOCK_MEMORY = "SeLockMemoryPrivilege"
LOCK_MEMORY_HINT = ("grant 'Lock pages in memory' (secpol.msc > Local Policies > User Rights Assignment) "
                    "to this account, then sign out and in again")
_PRIVILEGE_ROW = re.compile(r"^(Se\w+Privilege)\s+(.*?)\s+(Enabled|Disabled)\s*$")
_SCHEME = re.compile(r"GUID:\s*([0-9a-fA-F-]{36})\s*\((.*)\)")
HIGH_PERFORMANCE = {"8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c", "e9a42b02-d5df-448d-aa00-03f14749eb61"}  # + Ultimate

Runner = Callable[[list[str]], str | None]


def run_command(argv: list[str]) -> str | None:
    """A command's stdout, or None when it cannot run (not Windows, missing, timed out)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=COMMAND_TIMEOUT_S,
                              check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def privileges(whoami_priv: str) -> dict[str, str]:
    """``whoami /priv`` rows as {privilege: "Enabled" | "Disabled"} (English output)."""
    rows = {}
    for line in whoami_priv.splitlines():
        match = _PRIVILEGE_ROW.match(line.strip())
        if match:
            rows[match.group(1)] = match.group(3)
    return rows


def check_lock_memory(whoami_priv: str | None) -> Check:
    if whoami_priv is None:
        return Check("large_page_privilege", "unknown", "info", "whoami /priv did not run; "
                     f"-XX:+UseLargePages needs {LOCK_MEMORY}", {"held": None})
    rows = privileges(whoami_priv)
    if not rows:
        return Check("large_page_privilege", "unknown", "info", "could not read whoami /priv (not English?); "
                     f"-XX:+UseLargePages needs {LOCK_MEMORY}", {"held": None})
    if LOCK_MEMORY in rows:
        return Check("large_page_privilege", f"{LOCK_MEMORY} held ({rows[LOCK_MEMORY].lower()})", "ok",
                     "-XX:+UseLargePages can lock large pages (the JVM enables the privilege itself)",
                     {"held": True, "state": rows[LOCK_MEMORY]})
    return Check("large_page_privilege", f"{LOCK_MEMORY} not held", "warn",
                 f"-XX:+UseLargePages falls back to small pages; {LOCK_MEMORY_HINT}", {"held": False})


def check_power_plan(powercfg: str | None) -> Check:
    match = _SCHEME.search(powercfg or "")
    if match is None:
        return Check("power_plan", "unknown", "info", "powercfg /getactivescheme did not run", {"guid": None})
    guid, name = match.group(1).lower(), match.group(2).strip()
    if guid in HIGH_PERFORMANCE:
        return Check("power_plan", name, "ok", "the CPU stays at high clock speeds", {"guid": guid})
    return Check("power_plan", name, "warn", "the CPU clock follows load: noisy timings; "
                 "powercfg /setactive SCHEME_MIN (High performance)", {"guid": guid})


def check_memory_and_cpus() -> list[Check]:
    import psutil

    mem = psutil.virtual_memory()
    count = os.cpu_count() or 0
    return [Check("memory", f"{mem.available / (1 << 30):.1f} GiB free of {mem.total / (1 << 30):.1f} GiB", "info", "",
                  {"total_bytes": mem.total, "available_bytes": mem.available}),
            Check("cpu_count", str(count), "info" if count < 4 else "ok",
                  "few CPUs: GC and JIT threads compete with the application" if count < 4 else "", {"count": count})]


def windows_checks(run: Runner = run_command) -> list[Check]:
    """The Windows doctor: privilege, power plan, memory, CPUs."""
    return [check_lock_memory(run(["whoami", "/priv"])), check_power_plan(run(["powercfg", "/getactivescheme"])),
            *check_memory_and_cpus()]
