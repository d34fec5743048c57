"""`jvmlab rightsize` on real JVMs under real cgroup limits: the issue's program (about 1.5 s of
CPU, holding 300 MB) over cpus {0.25, 1, 2} x memory {256m, 512m, 1g}, interrupted and
resumed; the built-in HTTP server under the built-in fixed-rate load with a p99 goal; a goal
no size meets (no JVM starts in a millisecond), in one line. Only what holds on every run is
asserted: a CPU quota of 0.25 makes 1.5 s of CPU take at least 6 s whatever the load (the
goal is 4 s); the candidates' groups get their quota first (cpu.shares), so 1 CPU on a busy
machine still leaves the goal 2.5 times the CPU needed; 256m is below the live set (killed),
512m above it."""

from __future__ import annotations

import json
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_runner import interruptible, run_jvmlab
from jvmlab.cli.main import main
from testing_cgroups import needs_cgroups

MB = 1 << 20

HOLD = '''[workload]
builtin = "hold"
args = ["--live-mb", "300", "--alloc-mb", "14000", "--churn", "0"]
jvm_args = ["-Xmx400m", "-XX:+UseSerialGC"]
timeout = "120s"
[jvms]
j17 = "{home}"
'''

SERVER = '''[workload]
builtin = "httpserver"
jvm_args = ["-Xmx64m", "-XX:TieredStopAtLevel=1"]
[jvms]
j17 = "{home}"
[server]
ready_url = "http://127.0.0.1:{{port}}/health"
stop_grace = "2s"
ready_timeout = "60s"
[load]
[[load.phases]]
name = "warmup"
count = 50
args = ["--connections", "1"]
[[load.phases]]
name = "measure"
duration = "1s"
args = ["--connections", "2", "--rate", "200"]
'''


@pytest.mark.parametrize("args, words", [
    (["--slo", "wall_s = 4"], "--slo 'wall_s = 4': write METRIC COMPARISON NUMBER"),
    (["--slo", "wall_s > 4"], "lower wall_s is better"),
    (["--cpus", "0,1"], "--cpus '0,1'"),
    (["--memory", "lots"], "--memory 'lots'"),
    (["--memory", "8m"], "at least 16m"),
    (["--memory", "512m,0.5g"], "a size is given twice"),
    (["--jvm-sizing", "guess"], "give auto or keep"),
    (["--heap-share", "150"], "--heap-share '150'"),
    (["--heap-share", "50", "--jvm-sizing", "keep"], "--heap-share sweeps the heap share with --jvm-sizing auto"),
    (["--spec-text", '[factors.tier]\nc1 = "-XX:TieredStopAtLevel=1"\nc2 = ""\n'],
     "rightsize sizes one configuration; the spec has 2 cells"),
    (["--spec-text", '[environment]\nmemory = ["1g"]\n'], "the spec sets [environment] cpus/memory"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, jdk17_home: Path, args: list[str], words: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec.toml"
    given = {"--slo": "wall_s < 4", "--cpus": "1,2", "--memory": "512m"}
    for i in range(0, len(args), 2):
        given[args[i]] = args[i + 1]
    spec.write_text(HOLD.format(home=jdk17_home) + given.pop("--spec-text", ""))
    with pytest.raises(SystemExit) as exit_info:
        main(["rightsize", str(spec), "--store", str(tmp_path / "lab.db"),
              *[x for k, v in given.items() for x in (k, v)]])
    _, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert exit_info.value.code == 2 and len(lines) == 1 and words in lines[0], err
    assert not (tmp_path / "lab.db").exists()


def _stored(db: Path) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return int(conn.execute("select count(*) from invocation").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.jvm
@pytest.mark.slow
@needs_cgroups
def test_the_smallest_size_for_a_program_is_chosen_and_proven_after_ctrl_c(tmp_path: Path, jdk17_home: Path) -> None:
    (tmp_path / "hold.toml").write_text(HOLD.format(home=jdk17_home))
    # memory dear (2 per GiB, 1 per CPU): 1 CPU / 512m costs less than 0.25 CPU / 1g, which is then never run
    args = ["rightsize", "hold.toml", "--slo", "wall_s < 4", "--cpus", "0.25,1,2", "--memory", "256m,512m,1g",
            "--jvm-sizing", "keep", "--cpu-weight", "1", "--memory-weight", "2", "--store", "lab.db"]
    proc = subprocess.Popen([sys.executable, "-m", "jvmlab", *args], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
    deadline = time.monotonic() + 240
    while proc.poll() is None and _stored(tmp_path / "lab.db") < 4 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None, "finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    last = err.strip().splitlines()[-1]
    assert "continue with: jvmlab rightsize " in last and "--resume" in last, err
    command = shlex.split(last.split("continue with: ", 1)[1])
    k8s, page = tmp_path / "k8s.yaml", tmp_path / "rightsize.html"
    done = run_jvmlab(*command[1:], "--json", "--k8s", str(k8s), "--html", str(page), cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    by = {(c["cpus"], c["memory_bytes"] // MB): c for c in out["candidates"]}
    chosen = out["chosen"]
    assert (chosen["cpus"], chosen["memory_bytes"]) == (1, 512 * MB), out["conclusion"]
    assert chosen["verdict"] == "meets" and chosen["goals"][0]["upper"] < 4
    assert chosen["jvm_processors"] == 1 and chosen["jvm_max_heap_bytes"] == 400 * MB  # what the JVM saw
    assert chosen["jvm_options"] == ["-Xmx400m", "-XX:+UseSerialGC"]
    killed = by[(0.25, 256)]
    assert killed["verdict"] == "fails" and "OOM-killed by the cgroup memory limit of 256 MiB" in killed["reason"]
    assert by[(0.25, 512)]["verdict"] == "misses" and by[(0.25, 512)]["goals"][0]["lower"] >= 4
    # the proof: both smaller neighbours measured (not implied) and not meeting
    assert [(p["dimension"], p["verdict"], p["phase"]) for p in out["proof"]] == [
        ("cpus", "misses", "search"), ("memory", "fails", "proof")]
    assert by[(2, 256)]["phase"] == "implied" and by[(2, 256)]["implied_by"] == [0.25, 256 * MB]
    assert by[(2, 512)]["verdict"] == "meets" and by[(2, 512)]["implied_by"] == [1, 512 * MB]  # never run
    assert by[(0.25, 1024)]["phase"] == "not-run" and by[(0.25, 1024)]["invocations"] == 0  # costs more
    assert out["conclusion"] == "1 CPU / 512m meets wall_s < 4; proof: 0.25 CPU / 512m misses, 1 CPU / 256m fails"
    text = k8s.read_text()
    assert 'cpu: "1"' in text and text.count("memory: 512Mi") == 2
    assert 'value: "-Xmx400m -XX:+UseSerialGC"' in text and "JAVA_TOOL_OPTIONS" in text
    assert "1 CPU / 512m meets" in page.read_text()
    stored = _stored(tmp_path / "lab.db")
    exp = str(out["experiment_id"])
    applied = run_jvmlab("apply", exp, "--store", "lab.db", cwd=tmp_path)
    assert applied.returncode == 0 and applied.stdout == text, applied.stderr
    for other in (["report", exp], ["export", exp, "--format", "csv"]):
        shown = run_jvmlab(*other, "--store", "lab.db", cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
    assert "cpus=0.25 memory=512m" in shown.stdout
    # the resumed search replayed what was stored before Ctrl-C (the largest size, decided first): not run again
    with sqlite3.connect(tmp_path / "lab.db") as conn:
        largest = conn.execute("select count(*) from invocation i join cell c on c.id = i.cell_id "
                               "where c.name = 'j17 cpus=2 memory=1g'").fetchone()[0]
    assert largest == by[(2, 1024)]["invocations"] >= 3 and stored >= 4


@pytest.mark.jvm
@pytest.mark.slow
@needs_cgroups
def test_a_server_under_fixed_rate_load_with_a_p99_goal(tmp_path: Path, jdk17_home: Path) -> None:
    (tmp_path / "server.toml").write_text(SERVER.format(home=jdk17_home))
    done = run_jvmlab("rightsize", "server.toml", "--slo", "load.latency_p99_ms < 2000", "--cpus", "1,2",
                      "--memory", "256m", "--heap-share", "50", "--store", "lab.db", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    chosen = out["chosen"]
    assert (chosen["cpus"], chosen["memory_bytes"]) == (1, 256 * MB), out["conclusion"]
    figures = chosen["goals"][0]
    assert figures["metric"] == "load.latency_p99_ms" and 0 < figures["mean"] <= figures["upper"] < 2000
    assert 0 < figures["ci95"][0] <= figures["mean"] <= figures["ci95"][1]
    # auto sizing: the spec's -Xmx dropped, half the 256m limit as heap, as the JVM saw it
    assert chosen["jvm_options"] == ["-XX:TieredStopAtLevel=1", "-XX:MaxRAMPercentage=50"]
    assert abs(chosen["jvm_max_heap_bytes"] - 128 * MB) <= 8 * MB and chosen["jvm_processors"] == 1
    assert out["proof"] == [{"dimension": "cpus", "none": True}, {"dimension": "memory", "none": True}]
    assert out["conclusion"].startswith("1 CPU / 256m meets load.latency_p99_ms < 2000; proof: no smaller cpus")


@pytest.mark.jvm
@needs_cgroups
def test_a_goal_no_size_meets_says_so_in_one_line(tmp_path: Path, jdk17_home: Path) -> None:
    # no JVM starts in a millisecond
    spec = f'name = "hello"\n[workload]\nbuiltin = "hello"\n[jvms]\nj17 = "{jdk17_home}"\n'
    (tmp_path / "hello.toml").write_text(spec)
    done = run_jvmlab("rightsize", "hello.toml", "--slo", "wall_s < 0.001", "--cpus", "1,2",
                      "--memory", "256m,512m", "--store", "lab.db", "--label", "v1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [line] = [x for x in done.stdout.splitlines() if x.startswith("rightsize (experiment")]
    assert line.endswith("no size meets wall_s < 0.001: the largest, 2 CPU / 512m, misses"), done.stdout
    with sqlite3.connect(tmp_path / "lab.db") as conn:  # the largest size missed: no smaller one was run
        cells = conn.execute("select distinct c.name from invocation i join cell c on c.id = i.cell_id").fetchall()
    assert cells == [("j17 cpus=2 memory=512m",)]
    history = run_jvmlab("history", "rightsize: hello", "--store", "lab.db", cwd=tmp_path)  # a labelled point
    assert history.returncode == 0 and "j17 cpus=2 memory=512m" in history.stdout and " v1 " in history.stdout, \
        history.stdout + history.stderr


@needs_cgroups
def test_a_candidates_group_weighs_the_most_and_keeps_its_quota() -> None:
    import os

    from jvmlab.machine import cgroup

    limits = cgroup.Limits(cpus=0.5, memory_bytes=256 * MB, cpu_shares=cgroup.V1_MAX_SHARES)
    hierarchy = cgroup.find_hierarchy(cgroup.controllers_needed(limits))
    group = cgroup.create(hierarchy, f"jvmlab-{os.getpid()}-test-shares", limits)
    try:
        cpu = group.folders["cpu"]
        if hierarchy.version == 1:
            assert (cpu / "cpu.shares").read_text().strip() == "262144"
            assert (cpu / "cpu.cfs_quota_us").read_text().strip() == "50000"
        else:
            assert (cpu / "cpu.weight").read_text().strip() == "10000"
            assert (cpu / "cpu.max").read_text().split() == ["50000", "100000"]
    finally:
        group.remove()
    assert not any(p.exists() for p in group.folders.values())
