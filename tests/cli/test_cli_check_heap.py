"""`jvmlab check` on heaps larger than the machine: one line and exit 2 for an initial heap,
a warning for a maximum heap; neither commits nor touches the memory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli_runner import run_jvmlab

pytestmark = pytest.mark.jvm


def _twice_the_machine_gib() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * 2 // (1 << 30)


def _spec(tmp_path: Path, home: Path, flags: str) -> str:
    (tmp_path / "heap.toml").write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{home}"\n'
                                        f'[factors.heap]\nbig = "{flags}"\n')
    return "heap.toml"


def test_check_refuses_an_initial_heap_larger_than_the_machine(tmp_path: Path, jdk17_home: Path) -> None:
    gib = _twice_the_machine_gib()
    proc = run_jvmlab("check", _spec(tmp_path, jdk17_home, f"-Xms{gib}g -Xmx{gib}g -XX:+AlwaysPreTouch"),
                      cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert f"-Xms{gib}g" in proc.stderr and "machine's memory" in proc.stderr


def test_check_warns_about_a_maximum_heap_larger_than_the_machine(tmp_path: Path, jdk17_home: Path) -> None:
    gib = _twice_the_machine_gib()
    proc = run_jvmlab("check", _spec(tmp_path, jdk17_home, f"-Xmx{gib}g"), cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert f"warning: -Xmx{gib}g: the maximum heap is larger than the machine's memory" in proc.stdout
