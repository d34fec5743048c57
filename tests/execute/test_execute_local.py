"""The local executor on real JVMs: measures, failures, timeouts, output caps, ready marker."""

from __future__ import annotations

import os
import time
from pathlib import Path

import psutil
import pytest

from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk import identify
from jvmlab.model.process import InvocationPlan, Status
from jvmlab.workloads.builtin import prepare_builtin

pytestmark = pytest.mark.jvm


@pytest.fixture(scope="module")
def busy(jdk17_home: Path) -> list[str]:
    jdk = identify(jdk17_home)
    built = prepare_builtin("busy", jdk)
    return [str(jdk.java), "-Xmx64m", "-cp", str(built.classpath), built.main_class]


def _plan(argv: list[str], tmp_path: Path, timeout_s: float = 60, **kw) -> InvocationPlan:
    return InvocationPlan(argv=tuple(argv), env=dict(os.environ), cwd=tmp_path, timeout_s=timeout_s,
                          artifacts_dir=tmp_path / "art", **kw)


def test_a_clean_run_is_measured_from_the_child(busy: list[str], tmp_path: Path) -> None:
    result = LocalExecutor().run(_plan(busy + ["--ms", "300", "--spin"], tmp_path))
    m = result.measures
    assert result.status == Status.OK and result.exit_code == 0 and result.reason is None
    assert m is not None and m.wall_s >= 0.3
    assert m.user_s is not None and m.user_s > 0, "the child's own CPU time is measured"
    assert m.max_rss_bytes is not None and m.max_rss_bytes > 10 << 20
    assert m.minor_faults and m.minor_faults > 1000
    assert "busy_ms" in (tmp_path / "art" / "stdout.txt").read_text()


def test_non_zero_exit_is_data_with_a_reason(busy: list[str], tmp_path: Path) -> None:
    result = LocalExecutor().run(_plan(busy + ["--exit", "3"], tmp_path))
    assert result.status == Status.FAILED and result.exit_code == 3
    assert result.reason.startswith("exit code 3")


def test_out_of_memory_is_a_failure_naming_the_error(busy: list[str], tmp_path: Path) -> None:
    result = LocalExecutor().run(_plan(busy + ["--oom"], tmp_path))
    assert result.status == Status.FAILED
    assert "OutOfMemoryError" in result.reason


def test_timeout_kills_the_whole_process_group(busy: list[str], tmp_path: Path) -> None:
    started = time.monotonic()
    result = LocalExecutor().run(_plan(busy + ["--hang"], tmp_path, timeout_s=2))
    assert result.status == Status.TIMEOUT and "timed out after 2 s" in result.reason
    assert time.monotonic() - started < 30
    assert not _java_children_alive(result.pid)


def test_a_signal_from_outside_is_recorded(busy: list[str], tmp_path: Path) -> None:
    import signal
    import threading

    ex = LocalExecutor()

    class Killer:
        def jvm_args(self): return []
        def on_start(self, pid):  # a tiny probe that sends SIGKILL once the JVM is up
            threading.Timer(1.0, os.kill, (pid, signal.SIGKILL)).start()
        def on_line(self, *a): return None
        def on_exit(self): return None
        def finish(self, result): return None

    result = ex.run(_plan(busy + ["--hang"], tmp_path, timeout_s=60), [Killer()])
    assert result.status == Status.SIGNALED and result.signal == signal.SIGKILL
    assert "SIGKILL" in result.reason


def test_output_is_capped_but_the_tail_is_kept(tmp_path: Path, jdk17_home: Path) -> None:
    src = tmp_path / "Loud.java"
    src.write_text('public class Loud { public static void main(String[] a) {'
                   ' for (int i = 0; i < 200000; i++) System.out.println("line " + i); } }')
    result = LocalExecutor().run(_plan([str(jdk17_home / "bin" / "java"), str(src)], tmp_path,
                                       output_cap_bytes=10_000))
    assert result.status == Status.OK and result.output_truncated
    assert (tmp_path / "art" / "stdout.txt").stat().st_size == 10_000
    assert result.stdout_tail.rstrip().endswith("line 199999")


def test_ready_marker_time(busy: list[str], tmp_path: Path) -> None:
    result = LocalExecutor().run(_plan(busy + ["--ready-after-ms", "400", "--ms", "800"], tmp_path,
                                       ready_regex="^READY"))
    assert result.measures.ready_s is not None
    assert 0.4 <= result.measures.ready_s < result.measures.wall_s


def test_a_missing_program_is_a_start_failure(tmp_path: Path) -> None:
    result = LocalExecutor().run(_plan(["/nonexistent/java", "-version"], tmp_path))
    assert result.status == Status.START_FAILED and "No such file" in result.reason
    assert result.measures is None


def _java_children_alive(pid: int | None) -> bool:
    for proc in psutil.process_iter(["pid", "cmdline"]):
        cmd = " ".join(proc.info["cmdline"] or [])
        if "JvmlabBusy" in cmd and "--hang" in cmd and proc.info["pid"] == pid:
            return True
    return False
