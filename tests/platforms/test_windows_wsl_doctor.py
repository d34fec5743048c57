"""The doctor's Windows and WSL checks on recorded outputs (whoami /priv, powercfg, osrelease,
.wslconfig), and Windows command-line quoting of the argv lists jvmlab builds."""

from __future__ import annotations

import subprocess
from pathlib import Path, PureWindowsPath

import pytest
from tests.platforms.recorded import text

from jvmlab.machine import windows, wsl
from jvmlab.model.jdk import launcher_name


def test_lock_memory_privilege_held_even_when_disabled_in_the_token():
    check = windows.check_lock_memory(text("windows/whoami-priv-held.txt"))
    assert check.verdict == "ok" and check.data == {"held": True, "state": "Disabled"}


def test_lock_memory_privilege_missing_is_a_warning_with_the_fix():
    check = windows.check_lock_memory(text("windows/whoami-priv-not-held.txt"))
    assert check.verdict == "warn" and check.data["held"] is False
    assert "Lock pages in memory" in check.hint and "UseLargePages" in check.hint


@pytest.mark.parametrize("output", [None, "Zugriff verweigert\n"])
def test_unreadable_privileges_are_unknown_not_guessed(output):
    check = windows.check_lock_memory(output)
    assert check.value == "unknown" and check.data["held"] is None


def test_power_plan():
    assert windows.check_power_plan(text("windows/powercfg-balanced.txt")).verdict == "warn"
    high = windows.check_power_plan(text("windows/powercfg-high.txt"))
    assert (high.verdict, high.value) == ("ok", "High performance")
    assert windows.check_power_plan(None).value == "unknown"


def test_windows_checks_run_the_commands_through_the_runner():
    asked = []

    def runner(argv):
        asked.append(argv)
        return {"whoami": text("windows/whoami-priv-not-held.txt"),
                "powercfg": text("windows/powercfg-high.txt")}[argv[0]]

    checks = {c.name: c for c in windows.windows_checks(runner)}
    assert asked == [["whoami", "/priv"], ["powercfg", "/getactivescheme"]]
    assert checks["large_page_privilege"].verdict == "warn" and checks["power_plan"].verdict == "ok"
    assert checks["memory"].data["total_bytes"] > 0


@pytest.mark.parametrize("name, version", [("wsl/osrelease-wsl2.txt", 2), ("wsl/osrelease-wsl1.txt", 1)])
def test_wsl_detected_from_the_kernel_release(name, version):
    info = wsl.detect(text(name), {"WSL_DISTRO_NAME": "Ubuntu"})
    assert info is not None and info.version == version and info.distro == "Ubuntu"


def test_plain_linux_is_not_wsl():
    assert wsl.detect(text("wsl/osrelease-linux.txt"), {}) is None
    assert wsl.detect(None, {}) is None


def test_wslconfig_memory_limit():
    limits = wsl.wslconfig_limits(text("wsl/wslconfig-8gb.txt"))
    assert limits == {"memory_bytes": 8 << 30, "swap_bytes": 2 << 30, "processors": 4}
    assert wsl.wslconfig_limits(text("wsl/wslconfig-no-memory.txt"))["memory_bytes"] is None
    assert wsl.parse_size("512MB") == 512 << 20 and wsl.parse_size("lots") is None


def test_wsl2_checks_report_memory_and_thp():
    info = wsl.detect(text("wsl/osrelease-wsl2.txt"), {})
    path = Path("/mnt/c/Users/me/.wslconfig")
    checks = {c.name: c for c in wsl.wsl_checks(info, path, text("wsl/wslconfig-8gb.txt"), "madvise")}
    assert checks["wsl"].data["version"] == 2
    assert checks["wsl_memory"].value.startswith("8.0 GiB") and checks["wsl_memory"].data["memory_bytes"] == 8 << 30
    assert (checks["wsl_thp"].value, checks["wsl_thp"].verdict) == ("madvise", "ok")
    unset = {c.name: c for c in wsl.wsl_checks(info, None, None, "always")}
    assert "50%" in unset["wsl_memory"].hint and unset["wsl_memory"].data["memory_bytes"] is None
    assert unset["wsl_thp"].verdict == "info"


def test_wsl1_has_no_kernel_checks():
    info = wsl.detect(text("wsl/osrelease-wsl1.txt"), {})
    assert [c.name for c in wsl.wsl_checks(info, None, None, None)] == ["wsl"]


def test_windows_profile_path_as_seen_from_wsl():
    assert wsl.windows_profile_path("C:\\Users\\Jane Doe\r\n") == Path("/mnt/c/Users/Jane Doe")


def test_run_wsl_checks_is_empty_outside_wsl(monkeypatch):
    monkeypatch.setattr(wsl, "read_text", lambda path: "6.1.0-28-amd64")
    assert wsl.run_wsl_checks({}) == []


def test_launcher_names():
    assert launcher_name("java", "nt") == "java.exe" and launcher_name("java", "posix") == "java"


def split_windows(cmdline: str) -> list[str]:
    """The MS C runtime's argv rules (CommandLineToArgvW): what a Windows java.exe receives."""
    args, current, in_quotes, i, have = [], [], False, 0, False
    while i < len(cmdline):
        c = cmdline[i]
        if c == "\\":
            n = 0
            while i < len(cmdline) and cmdline[i] == "\\":
                n, i = n + 1, i + 1
            if i < len(cmdline) and cmdline[i] == '"':
                current.append("\\" * (n // 2))
                if n % 2:
                    current.append('"')
                    i += 1
            else:
                current.append("\\" * n)
            have = True
            continue
        if c == '"':
            in_quotes, have = not in_quotes, True
        elif c in " \t" and not in_quotes:
            if have:
                args.append("".join(current))
            current, have = [], False
        else:
            current.append(c)
            have = True
        i += 1
    if have:
        args.append("".join(current))
    return args


@pytest.mark.parametrize("argv", [
    ["C:\\Program Files\\Java\\jdk-21\\bin\\java.exe", "-Xmx1g", "-cp", "C:\\work dir\\app.jar", "Main"],
    ["java.exe", '-Xlog:gc*,safepoint:file="C:\\Users\\Jane Doe\\art\\gc-%p.log":uptime,level,tags:filecount=0'],
    ["java.exe", "-Xverbosegclog:C:\\art dir\\gc-%p.log", "-Dtrailing=C:\\dir\\", "-Dempty=", ""],
])
def test_argv_lists_survive_windows_quoting(argv):
    """Popen on Windows joins argv with list2cmdline; the JVM splits it back with the CRT rules."""
    assert split_windows(subprocess.list2cmdline(argv)) == argv
    assert PureWindowsPath(argv[0]).name.endswith(".exe")
