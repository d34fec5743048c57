"""The launch helper: the child's own peak RSS, and no orphan when jvmlab is SIGKILLed."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from jvmlab.execute import launcher
from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk import identify
from jvmlab.model.process import InvocationPlan, Status
from jvmlab.workloads.builtin import prepare_builtin

GNU_TIME = Path("/usr/bin/time")


def _plan(argv: list[str], tmp_path: Path, timeout_s: float = 60) -> InvocationPlan:
    return InvocationPlan(argv=tuple(argv), env=dict(os.environ), cwd=tmp_path, timeout_s=timeout_s,
                          artifacts_dir=tmp_path / "art")


def _need_helper() -> Path:
    helper = launcher.launcher_path()
    if helper is None:
        pytest.skip("no C compiler to build the launch helper (scripts/setup.sh installs gcc)")
    return helper


def test_reports_are_parsed_with_units() -> None:
    assert launcher.parse_report("S 42 1500000000\n") == launcher.Started(42, 1.5)
    assert launcher.parse_report("F 2\n") == 2
    ended = launcher.parse_report("E 2500000000 256 1 1500 250 36000 100 2 3 4\n")
    assert isinstance(ended, launcher.Ended)
    assert ended.t_end == 2.5 and ended.wait_status == 256 and ended.timed_out
    assert ended.user_s == 0.0015 and ended.sys_s == 0.00025
    assert ended.max_rss_bytes == 36000 * 1024
    assert (ended.minor_faults, ended.major_faults, ended.vol_ctx_switches, ended.invol_ctx_switches) == (100, 2, 3, 4)
    for bad in ("S 1\n", "E 1 2 3\n", "X 1 2\n", "S x 2\n"):
        with pytest.raises(ValueError):
            launcher.parse_report(bad)


def test_a_start_failure_names_the_errno(tmp_path: Path) -> None:
    _need_helper()
    result = LocalExecutor().run(_plan(["/nonexistent/prog"], tmp_path))
    assert result.status == Status.START_FAILED and "No such file" in result.reason


def test_a_missing_cwd_is_a_start_failure(tmp_path: Path) -> None:
    _need_helper()
    plan = InvocationPlan(argv=("/bin/true",), env=dict(os.environ), cwd=tmp_path / "gone", timeout_s=10,
                          artifacts_dir=tmp_path / "art")
    result = LocalExecutor().run(plan)
    assert result.status == Status.START_FAILED and "No such file" in result.reason


def _gnu_time_kib(argv: list[str], cwd: Path) -> int:
    out = cwd / "time.txt"
    subprocess.run([str(GNU_TIME), "-f", "%M", "-o", str(out), *argv], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return int(out.read_text().split()[-1])


def _compare_peak_rss(argv: list[str], tmp_path: Path) -> tuple[float, float]:
    """Median peak RSS (KiB) of three runs: jvmlab's, and GNU time's on the same command.

    A 200 MiB ballast, touched, makes this process's high-water RSS far above the command's,
    so an RSS borrowed from the parent (as with a fork or vfork from Python) would show.
    """
    ballast = bytearray(200 << 20)
    ballast[::4096] = b"\1" * len(range(0, len(ballast), 4096))
    executor = LocalExecutor()
    ours, theirs = [], []
    for _ in range(3):
        result = executor.run(_plan(argv, tmp_path))
        assert result.status == Status.OK, result.reason
        ours.append(result.measures.max_rss_bytes / 1024)
        theirs.append(_gnu_time_kib(argv, tmp_path))
    del ballast
    return statistics.median(ours), statistics.median(theirs)


# jvmlab's own Python process holds far more than this program: a borrowed RSS would show.
_SHELL_30MB = ["/bin/sh", "-c", 'x=$(head -c 30000000 /dev/zero | tr "\\0" a); echo ${#x}']


@pytest.mark.skipif(not GNU_TIME.exists(), reason="/usr/bin/time missing (scripts/setup.sh installs `time`)")
def test_peak_rss_of_a_small_shell_program_matches_gnu_time(tmp_path: Path) -> None:
    _need_helper()
    ours, theirs = _compare_peak_rss(_SHELL_30MB, tmp_path)
    assert abs(ours / theirs - 1) <= 0.05, (ours, theirs)


@pytest.mark.jvm
@pytest.mark.skipif(not GNU_TIME.exists(), reason="/usr/bin/time missing (scripts/setup.sh installs `time`)")
def test_peak_rss_of_a_small_jvm_matches_gnu_time(tmp_path: Path, jdk17_home: Path) -> None:
    _need_helper()
    jdk = identify(jdk17_home)
    built = prepare_builtin("hello", jdk)
    argv = [str(jdk.java), "-Xmx32m", "-XX:+UseSerialGC", "-cp", str(built.classpath), built.main_class]
    ours, theirs = _compare_peak_rss(argv, tmp_path)
    assert ours < 80 * 1024, "a HelloWorld JVM is far smaller than jvmlab's own process"
    assert abs(ours / theirs - 1) <= 0.05, (ours, theirs)


def test_the_fallback_path_reports_no_borrowed_rss(tmp_path: Path) -> None:
    result = LocalExecutor(use_helper=False).run(_plan(["/bin/true"], tmp_path))
    assert result.status == Status.OK
    assert result.measures.max_rss_bytes is None, "without the helper the figure would be jvmlab's own"
    assert result.measures.user_s is not None


_PARENT = textwrap.dedent('''
    import os, sys
    from pathlib import Path
    from jvmlab.execute.local import LocalExecutor
    from jvmlab.model.process import InvocationPlan
    argv = tuple(sys.argv[2:])
    LocalExecutor().run(InvocationPlan(argv=argv, env=dict(os.environ), cwd=Path(sys.argv[1]),
                                       timeout_s=600, artifacts_dir=Path(sys.argv[1]) / "art"))
''')


def _marked_jvms(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["name", "cmdline"]):
        cmd = proc.info["cmdline"] or []
        if proc.info["name"] == "java" and marker in cmd:
            found.append(proc)
    return found


@pytest.mark.jvm
def test_sigkilled_parent_leaves_no_jvm_behind(tmp_path: Path, jdk17_home: Path) -> None:
    """jvmlab is SIGKILLed while a JVM and its sibling run in the child's group: none survives."""
    _need_helper()
    jdk = identify(jdk17_home)
    built = prepare_builtin("busy", jdk)
    marker = f"-Djvmlab.orphan={time.time_ns()}"
    java = [str(jdk.java), marker, "-Xmx32m", "-cp", str(built.classpath), built.main_class, "--hang"]
    # A launcher shell starts one JVM in the background and another in the foreground: both are
    # in the child's process group, only the shell is the direct child.
    argv = ["/bin/sh", "-c", '"$@" & "$@"; wait', "sh", *java]
    parent = subprocess.Popen([sys.executable, "-c", _PARENT, str(tmp_path), *argv])
    try:
        deadline = time.monotonic() + 60
        while len(_marked_jvms(marker)) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.1)
        assert len(_marked_jvms(marker)) == 2, "both JVMs should be running"
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _marked_jvms(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _marked_jvms(marker), "the JVMs must die with jvmlab"
    finally:
        for proc in _marked_jvms(marker):
            proc.kill()
        if parent.poll() is None:
            parent.kill()


def test_the_child_starts_with_default_signals_and_an_empty_mask(tmp_path: Path) -> None:
    """Python ignores SIGPIPE and SIGXFSZ; the command must not inherit that (nor a blocked mask)."""
    _need_helper()
    result = LocalExecutor().run(_plan(["/bin/grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"], tmp_path))
    assert result.status == Status.OK, result.reason
    fields = dict(line.split(":\t") for line in result.stdout_tail.splitlines())
    assert int(fields["SigBlk"], 16) == 0
    ignored = int(fields["SigIgn"], 16)  # glibc's internal signals 32 and 33 may show (as under hyperfine)
    for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM):
        assert not ignored & (1 << (sig - 1)), sig.name


# The child lists its own open fds (the listing's own directory fd is closed by the time it is
# checked) and where each points.
_LIST_FDS = ("import os\n"
             "fds = sorted(int(f) for f in os.listdir('/proc/self/fd'))\n"
             "print(*(f'{fd}={os.readlink(f\"/proc/self/fd/{fd}\")}' for fd in fds\n"
             "        if os.path.lexists(f'/proc/self/fd/{fd}')), sep='\\n')\n")


def test_the_child_gets_stdin_stdout_and_stderr_only(tmp_path: Path) -> None:
    """An fd jvmlab's process left inheritable (by a library, or by jvmlab's own parent) must not
    reach the command: it gets 0, 1 and 2, as under hyperfine or a shell."""
    _need_helper()
    leaked_file = os.open(tmp_path / "leaked.txt", os.O_WRONLY | os.O_CREAT)
    read_end, write_end = os.pipe()
    for fd in (leaked_file, read_end, write_end):
        os.set_inheritable(fd, True)
    try:
        result = LocalExecutor().run(_plan([sys.executable, "-S", "-c", _LIST_FDS], tmp_path))
    finally:
        for fd in (leaked_file, read_end, write_end):
            os.close(fd)
    assert result.status == Status.OK, result.reason
    seen = dict(line.split("=", 1) for line in result.stdout_tail.splitlines())
    assert sorted(seen) == ["0", "1", "2"], seen
    assert seen["0"] == os.devnull


@pytest.mark.jvm
@pytest.mark.slow
@pytest.mark.skipif(not GNU_TIME.exists(), reason="/usr/bin/time missing (scripts/setup.sh installs `time`)")
def test_the_hyperfine_export_carries_the_childs_own_peak_rss(tmp_path: Path, jdk17_home: Path) -> None:
    """`run` then `export --format hyperfine`: memory_usage_byte is the JVM's, as GNU time sees it."""
    import json

    from cli_runner import run_jvmlab, run_spec_json

    _need_helper()
    run_spec_json(tmp_path, f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n'
                            '[run]\ninvocations = 2\nwarmup = 0\n[collect]\ngc = false\nflag_effect = false\n')
    proc = run_jvmlab("export", "--store", "lab.db", "--format", "hyperfine", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [result] = json.loads(proc.stdout)["results"]
    jdk = identify(jdk17_home)
    built = prepare_builtin("hello", jdk)
    reference = _gnu_time_kib([str(jdk.java), "-cp", str(built.classpath), built.main_class], tmp_path) * 1024
    for value in result["memory_usage_byte"]:
        assert abs(value / reference - 1) <= 0.05, (value, reference)
