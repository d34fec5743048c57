"""`doctor` inside WSL: which WSL, the memory limit set in ``.wslconfig``, and THP in the WSL VM.

A JVM in WSL 2 runs in a lightweight VM whose memory is capped by ``[wsl2] memory=`` in the
Windows user's ``%UserProfile%\\.wslconfig`` (default: half of the host's memory), so a
heap near that cap swaps or is killed; the guest kernel has its own transparent-huge-page
setting, unrelated to Windows large pages. WSL 1 has no Linux kernel: THP and cgroup flags
mean nothing there.

Readers take text (``/proc/sys/kernel/osrelease``, the ``.wslconfig`` file) so they are tested
on recorded data; nothing here has run inside a real WSL here.
"""

from __future__ import annotations

import configparser
import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath

from jvmlab.machine.check import Check, Verdict
from jvmlab.machine.fingerprint import read_text, thp_setting

OSRELEASE = Path("/proc/sys/kernel/osrelease")
DEFAULT_SHARE = 0.5  # WSL 2's default memory limit: 50% of the host's memory
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)B?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


@dataclass(frozen=True)
class WslInfo:
    version: int  # 1 or 2
    kernel: str
    distro: str | None


def detect(osrelease: str | None, env: Mapping[str, str]) -> WslInfo | None:
    """WSL from the kernel release ("...-microsoft-standard-WSL2", "4.4.0-19041-Microsoft")."""
    kernel = (osrelease or "").strip()
    if "microsoft" not in kernel.lower():
        return None
    version = 2 if ("wsl2" in kernel.lower() or "microsoft-standard" in kernel.lower()) else 1
    return WslInfo(version, kernel, env.get("WSL_DISTRO_NAME"))


def parse_size(text: str) -> int | None:
    """``.wslconfig`` sizes ("8GB", "512MB", "4G") in bytes; None if unreadable."""
    match = _SIZE.match(text.strip().strip('"'))
    if match is None:
        return None
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def wslconfig_limits(text: str) -> dict[str, object]:
    """``[wsl2]`` memory, swap and processors of a ``.wslconfig``."""
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.read_string(text)
    section = parser["wsl2"] if parser.has_section("wsl2") else {}
    memory = section.get("memory")
    swap = section.get("swap")
    processors = section.get("processors")
    return {"memory_bytes": parse_size(memory) if memory else None,
            "swap_bytes": parse_size(swap) if swap else None,
            "processors": int(processors) if processors and processors.strip().isdigit() else None}


def windows_profile_path(userprofile: str) -> Path:
    """``C:\\Users\\me`` as seen from WSL (``/mnt/c/Users/me``)."""
    win = PureWindowsPath(userprofile.strip())
    drive = win.drive.rstrip(":").lower()
    return Path("/mnt", drive, *win.parts[1:])


def find_wslconfig(env: Mapping[str, str]) -> Path | None:
    """``JVMLAB_WSLCONFIG`` if set, else ``%UserProfile%\\.wslconfig`` asked from cmd.exe."""
    if env.get("JVMLAB_WSLCONFIG"):
        return Path(env["JVMLAB_WSLCONFIG"])
    try:
        done = subprocess.run(["cmd.exe", "/c", "echo %USERPROFILE%"], capture_output=True, text=True,
                              timeout=10, check=False, stdin=subprocess.DEVNULL, cwd="/")
    except (OSError, subprocess.TimeoutExpired):
        return None
    profile = done.stdout.strip()
    return windows_profile_path(profile) / ".wslconfig" if profile and "%" not in profile else None


def wsl_checks(info: WslInfo, wslconfig: Path | None, wslconfig_text: str | None, thp: str | None) -> list[Check]:
    """What WSL means for JVM measurements, from already-read inputs."""
    out = [Check("wsl", f"WSL {info.version} ({info.kernel})", "info",
                 "a JVM here runs in the WSL VM: timings include its virtualisation" if info.version == 2 else
                 "WSL 1 translates Linux calls: THP, cgroup and perf settings do not apply",
                 {"version": info.version, "kernel": info.kernel, "distro": info.distro})]
    if info.version == 1:
        return out
    if wslconfig_text is None:
        where = str(wslconfig) if wslconfig else "%UserProfile%\\.wslconfig (not found)"
        out.append(Check("wsl_memory", f"not set in {where}", "info",
                         f"WSL 2 defaults to {DEFAULT_SHARE:.0%} of the host's memory; set [wsl2] memory= to fix it",
                         {"memory_bytes": None, "path": str(wslconfig) if wslconfig else None}))
    else:
        limits = wslconfig_limits(wslconfig_text)
        memory = limits["memory_bytes"]
        text = f"{memory / (1 << 30):.1f} GiB" if isinstance(memory, int) else "not set (50% of the host)"
        out.append(Check("wsl_memory", f"{text} ([wsl2] memory in {wslconfig})", "info",
                         "heaps near this limit swap or are OOM-killed inside the WSL VM",
                         {**limits, "path": str(wslconfig)}))
    verdict: Verdict = "ok" if thp == "madvise" else "info"
    out.append(Check("wsl_thp", thp or "unknown", verdict,
                     "THP in WSL is the WSL kernel's own setting (Windows large pages are separate)",
                     {"enabled": thp}))
    return out


def run_wsl_checks(env: Mapping[str, str] | None = None) -> list[Check]:
    """The WSL checks of this machine; empty when not inside WSL."""
    env = os.environ if env is None else env
    info = detect(read_text(OSRELEASE), env)
    if info is None:
        return []
    path = find_wslconfig(env) if info.version == 2 else None
    text = read_text(path) if path is not None else None
    return wsl_checks(info, path, text, thp_setting("enabled"))
