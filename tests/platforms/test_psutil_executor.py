"""The psutil executor: the Windows metric mapping on recorded psutil outputs, and the executor
itself on real processes here (Linux), including the process-tree kill on timeout."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import psutil
import pytest
from tests.platforms.recorded import psutil_records

from jvmlab.execute.windows import PsutilExecutor, measures_from_psutil
from jvmlab.execute.winhandle import (
    FILETIME,
    PROCESS_MEMORY_COUNTERS,
    counters_from_structs,
)
from jvmlab.model.process import InvocationPlan, Status
from jvmlab.server.control import kill_tree


def test_windows_mapping_uses_the_os_peak_and_fault_count():
    rec = psutil_records("psutil/windows-python.txt")
    m = measures_from_psutil(rec["pmem"], rec["pcputimes"], wall_s=1.5, sampled_max_rss=17_000_000)
    assert m.max_rss_bytes == 18239488, "peak_wset, not the sampled or current working set"
    assert m.minor_faults == 4762 and m.major_faults is None
    assert (m.user_s, m.sys_s, m.cpu_s) == (0.078125, 0.046875, 0.125)
    assert m.vol_ctx_switches is None and m.invol_ctx_switches is None and m.wall_s == 1.5


def test_macos_mapping_reads_faults_and_pageins():
    rec = psutil_records("psutil/macos-python.txt")
    m = measures_from_psutil(rec["pmem"], rec["pcputimes"], wall_s=1.0, sampled_max_rss=9_000_000)
    assert (m.minor_faults, m.major_faults, m.max_rss_bytes) == (3207, 18, 9_000_000)


def test_without_an_os_peak_the_sampled_peak_is_used_and_faults_are_unknown():
    rec = psutil_records("psutil/linux-python.txt")
    m = measures_from_psutil(rec["pmem"], rec["pcputimes"], wall_s=2.0, sampled_max_rss=12_000_000)
    assert m.max_rss_bytes == 12_000_000 and m.minor_faults is None and m.major_faults is None
    assert measures_from_psutil(rec["pmem"], rec["pcputimes"], wall_s=2.0).max_rss_bytes is None


def test_win32_structs_map_to_psutil_names():
    mem = PROCESS_MEMORY_COUNTERS(PageFaultCount=4762, PeakWorkingSetSize=18239488, WorkingSetSize=18202624)
    kernel, user = FILETIME(468750, 0), FILETIME(781250, 0)  # 100 ns units
    memory, times = counters_from_structs(mem, kernel, user)
    m = measures_from_psutil(memory, times, wall_s=1.0)
    assert (m.max_rss_bytes, m.minor_faults) == (18239488, 4762)
    assert m.user_s == pytest.approx(0.078125) and m.sys_s == pytest.approx(0.046875)
    big = FILETIME(0, 1)  # the high word counts 2**32 * 100 ns
    assert counters_from_structs(mem, big, user)[1]["system"] == pytest.approx(2**32 / 1e7)


def _plan(argv: list[str], tmp_path: Path, timeout_s: float = 30) -> InvocationPlan:
    return InvocationPlan(argv=tuple(argv), env=dict(os.environ), cwd=tmp_path, timeout_s=timeout_s,
                          artifacts_dir=tmp_path / "art")


ALLOC = "import time; b = bytearray(64 << 20); b[::4096] = b'x' * len(b[::4096]); time.sleep(0.3); print('done')"


def test_a_real_child_is_measured(tmp_path):
    result = PsutilExecutor().run(_plan([sys.executable, "-c", ALLOC], tmp_path))
    m = result.measures
    assert result.status == Status.OK and m is not None
    assert m.max_rss_bytes is not None and m.max_rss_bytes > 64 << 20
    assert m.user_s is not None and m.wall_s >= 0.3
    assert (tmp_path / "art" / "stdout.txt").read_text().strip() == "done"


def test_a_failing_child_is_data(tmp_path):
    script = "import sys; print('bad', file=sys.stderr); sys.exit(3)"
    result = PsutilExecutor().run(_plan([sys.executable, "-c", script], tmp_path))
    assert (result.status, result.exit_code) == (Status.FAILED, 3) and result.reason == "exit code 3: bad"


def test_a_missing_program_is_a_start_failure(tmp_path):
    result = PsutilExecutor().run(_plan([str(tmp_path / "no-such-java")], tmp_path))
    assert result.status == Status.START_FAILED and result.measures is None


def test_timeout_kills_the_whole_tree(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    script = ("import subprocess, sys, time; "
              "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
              f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(60)")
    started = time.monotonic()
    result = PsutilExecutor(poll_s=0.02).run(_plan([sys.executable, "-c", script], tmp_path, timeout_s=1.5))
    assert result.status == Status.TIMEOUT and "process tree killed" in (result.reason or "")
    assert time.monotonic() - started < 20
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while psutil.pid_exists(grandchild) and time.monotonic() < deadline:
        try:
            if psutil.Process(grandchild).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    alive = psutil.pid_exists(grandchild) and psutil.Process(grandchild).status() != psutil.STATUS_ZOMBIE
    assert not alive, "the grandchild outlived the timeout"


def test_kill_tree_of_a_gone_process_kills_nothing():
    assert kill_tree(2**22 + 12345) == []


@pytest.mark.jvm
def test_a_real_jvm_through_the_psutil_executor(tmp_path):
    java = Path("/usr/lib/jvm/java-17-openjdk-amd64/bin/java")
    if not java.is_file():
        pytest.skip("no JDK 17 here")
    result = PsutilExecutor().run(_plan([str(java), "-Xmx64m", "-version"], tmp_path))
    assert result.status == Status.OK and result.measures.max_rss_bytes > 10 << 20
    assert "version" in (tmp_path / "art" / "stderr.txt").read_text()


def test_the_platform_picks_the_executor(monkeypatch):
    from jvmlab.execute import windows
    from jvmlab.execute.local import LocalExecutor

    assert isinstance(windows.default_executor(), LocalExecutor)
    monkeypatch.setattr(windows.os, "name", "nt")
    assert isinstance(windows.default_executor(), PsutilExecutor)
