"""Workload faults are data: recorded with their reason, and the matrix goes on."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import psutil
import pytest

from cli_runner import run_jvmlab, run_spec_json
from jvmlab.execute.local import LocalExecutor
from jvmlab.jdk import identify
from jvmlab.model.process import InvocationPlan, Status
from jvmlab.workloads.builtin import prepare_builtin

pytestmark = pytest.mark.jvm


class SendSignal:
    """A probe that sends a signal to the JVM a moment after it started."""

    def __init__(self, signum: int, after_s: float) -> None:
        self.signum, self.after_s = signum, after_s

    def jvm_args(self) -> list[str]:
        return []

    def on_start(self, pid: int) -> None:
        threading.Timer(self.after_s, _kill, (pid, self.signum)).start()

    def on_line(self, *args: object) -> None:
        return None

    def on_exit(self) -> None:
        return None

    def finish(self, result: object) -> None:
        return None


def _kill(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass


def test_sigsegv_sent_to_the_jvm_is_recorded(tmp_path: Path, jdk17_home: Path) -> None:
    jdk = identify(jdk17_home)
    built = prepare_builtin("busy", jdk)
    argv = (str(jdk.java), f"-XX:ErrorFile={tmp_path}/hs_err_%p.log", "-cp", str(built.classpath),
            built.main_class, "--hang")
    plan = InvocationPlan(argv=argv, env=dict(os.environ), cwd=tmp_path, timeout_s=60, artifacts_dir=tmp_path / "a")
    result = LocalExecutor().run(plan, [SendSignal(signal.SIGSEGV, 1.5)])
    # HotSpot turns a foreign SIGSEGV into a crash report and an abort (SIGABRT), or dies of it.
    assert result.status in (Status.SIGNALED, Status.FAILED)
    assert result.status != Status.OK and result.reason


def _memory_cgroup(name: str) -> tuple[Path, str, str] | None:
    """A new child memory cgroup (v2, or v1 under our own), as (folder, limit file, events file)."""
    v2 = Path("/sys/fs/cgroup")
    if (v2 / "cgroup.controllers").is_file() and "memory" in (v2 / "cgroup.controllers").read_text():
        return v2 / name, "memory.max", "memory.events"
    own = next((line.split(":", 2)[2] for line in Path("/proc/self/cgroup").read_text().splitlines()
                if line.split(":")[1] == "memory"), None)
    v1 = Path("/sys/fs/cgroup/memory")
    if own is not None and v1.is_dir():
        return v1 / own.lstrip("/") / name, "memory.limit_in_bytes", "memory.oom_control"
    return None


def test_kernel_oom_kill_in_a_memory_limited_cgroup(tmp_path: Path, jdk17_home: Path) -> None:
    found = _memory_cgroup(f"jvmlab-test-{os.getpid()}")
    if found is None:
        pytest.skip("no memory cgroup controller here")
    group, limit_file, events_file = found
    try:
        group.mkdir()
        (group / limit_file).write_text(str(96 << 20))
    except OSError as err:
        pytest.skip(f"cannot make a memory-limited cgroup here: {err}")
    try:
        jdk = identify(jdk17_home)
        built = prepare_builtin("busy", jdk)
        # A tiny launcher puts itself in the cgroup, then becomes the JVM (explicit argv, no jvmlab shell).
        argv = ("/bin/sh", "-c", f'echo $$ > "{group}/cgroup.procs" && exec "$0" "$@"', str(jdk.java),
                "-Xms512m", "-Xmx512m", "-XX:+AlwaysPreTouch", "-cp", str(built.classpath), built.main_class)
        plan = InvocationPlan(argv=argv, env=dict(os.environ), cwd=tmp_path, timeout_s=60,
                              artifacts_dir=tmp_path / "a")
        result = LocalExecutor().run(plan)
        assert result.status == Status.SIGNALED and result.signal == signal.SIGKILL, result.reason
        assert "SIGKILL" in result.reason
        events = (group / events_file).read_text()
        assert "oom_kill 1" in events, events
    finally:
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)


def test_failure_budget_stops_a_failing_cell_but_not_the_others(tmp_path: Path, jdk17_home: Path) -> None:
    doc = run_spec_json(tmp_path, f'''
[workload]
builtin = "busy"
[jvms]
j = "{jdk17_home}"
[factors.outcome]
good = {{ args = ["--ms", "10"] }}
bad = {{ args = ["--exit", "7"] }}
[run]
invocations = 6
warmup = 0
max_consecutive_failures = 2
''', "-i")
    good, bad = doc["cells"]
    assert good["n"] == 6 and good["failures"] == 0
    assert bad["n"] == 0 and bad["failures"] == 2
    assert any(w["kind"] == "failure-budget" and "2 consecutive failures" in w["detail"] for w in doc["warnings"])


def test_a_jvm_that_refuses_to_start_is_data(tmp_path: Path, jdk17_home: Path) -> None:
    doc = run_spec_json(tmp_path, f'''
[workload]
command = ["{{java}}", "{{jvm_args}}", "-jar", "{tmp_path}/not-here.jar"]
[jvms]
j = "{jdk17_home}"
[run]
invocations = 2
warmup = 0
''', "--ignore-failure")
    [cell] = doc["cells"]
    assert cell["failures"] == 2
    assert any("Unable to access jarfile" in r or "exit code 1" in r for r in cell["failure_reasons"])


def test_shell_metacharacters_and_odd_paths_pass_literally(tmp_path: Path, jdk17_home: Path) -> None:
    folder = tmp_path / "dir with späces ünd $(x)"
    folder.mkdir()
    (folder / "Echo.java").write_text(
        'public class Echo { public static void main(String[] a) {'
        ' for (String s : a) System.out.println("arg[" + s + "]"); } }')
    spec = folder / "spec.toml"
    spec.write_text(f'''
[workload]
command = ["{{java}}", "{{jvm_args}}", "{folder}/Echo.java"]
args = ["$(touch pwned)", "; rm -rf nothing", "*", "`id`", "a b"]
[jvms]
j = "{jdk17_home}"
[run]
invocations = 1
warmup = 0
''')
    proc = run_jvmlab("run", str(spec), "--store", str(folder / "lab.db"), "--json", "--quiet", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    [cell] = json.loads(proc.stdout)["cells"]
    assert cell["n"] == 1
    out = next((folder / "lab-artifacts").rglob("stdout.txt")).read_text()
    for arg in ("$(touch pwned)", "; rm -rf nothing", "*", "`id`", "a b"):
        assert f"arg[{arg}]" in out
    assert not (folder / "pwned").exists() and not (tmp_path / "pwned").exists()


def test_store_and_artifacts_follow_the_umask(tmp_path: Path, jdk17_home: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[workload]\nbuiltin = "hello"\n[jvms]\nj = "{jdk17_home}"\n[run]\ninvocations = 1\nwarmup = 0\n')
    import subprocess
    import sys
    proc = subprocess.run(["/bin/sh", "-c", 'umask 077 && exec "$@"', "sh", sys.executable, "-m", "jvmlab", "run",
                           str(spec), "--store", "lab.db", "--quiet"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "lab.db").stat().st_mode & 0o077 == 0
    for path in (tmp_path / "lab-artifacts").rglob("*"):
        assert path.stat().st_mode & 0o077 == 0, path


def test_nothing_listens_on_the_network_during_a_run(tmp_path: Path, jdk17_home: Path) -> None:
    """jvmlab itself opens no listening socket (checked while a run is in flight)."""
    import subprocess
    import sys
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[workload]\nbuiltin = "busy"\nargs = ["--ms", "3000"]\n[jvms]\nj = "{jdk17_home}"\n'
                    '[run]\ninvocations = 1\nwarmup = 0\n')
    proc = subprocess.Popen([sys.executable, "-m", "jvmlab", "run", str(spec), "--store", "lab.db", "--quiet"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(2.0)
        me = psutil.Process(proc.pid)
        listening = [c for c in me.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
        assert listening == []
    finally:
        proc.wait(timeout=60)
