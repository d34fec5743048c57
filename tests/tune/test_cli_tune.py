"""`jvmlab tune` and `jvmlab apply` as a user runs them: bad input exits 2 before anything
runs; a real tuning run on real JVMs stores its trials as cells, resumes, reports, applies."""

import sqlite3

import pytest

from cli_runner import run_jvmlab
from jvmlab.model.documents import TuneDocument

SPEC = """
name = "tune-test"
[workload]
builtin = "hello"
[tune]
objective = "{objective}"
budget = {{ trials = 3 }}
min_blocks = 2
max_blocks = 3
confirm_max_blocks = 5
[tune.params.gc]
type = "categorical"
values = {values}
[tune.params.tier]
type = "categorical"
values = {{ c1 = "-XX:TieredStopAtLevel=1", c2 = "" }}
"""
GCS = '{ serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }'


def _spec(tmp_path, objective="wall_s", values=GCS, extra=""):
    path = tmp_path / "tune.toml"
    path.write_text(SPEC.format(objective=objective, values=values) + extra)
    return path


@pytest.mark.parametrize("objective, extra, words", [
    ("gc.pause_p99_ms", "[collect]\ngc = false\n", "measured by the gc collector, which is off"),
    ("mem.peak_rss_bytes", "[collect]\nproc = false\n", "measured by the proc collector, which is off"),
    ("cgroup.peak_bytes", "", "is not measured per invocation"),
])
def test_an_objective_the_tuner_does_not_measure_exits_2_before_anything_runs(tmp_path, objective, extra, words):
    proc = run_jvmlab("tune", str(_spec(tmp_path, objective=objective, extra=extra)), "--store", "lab.db",
                      cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and words in proc.stderr
    assert not (tmp_path / "lab-artifacts").exists()


@pytest.mark.jvm
def test_a_parameter_whose_every_value_fails_on_its_jdk_exits_2(tmp_path):
    values = '{ a = "-XX:+NoSuchFlagA", b = "-XX:+NoSuchFlagB" }'
    proc = run_jvmlab("tune", str(_spec(tmp_path, values=values)), "--store", "lab.db", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "every value fails" in proc.stderr and proc.stderr.count("\n") == 1


@pytest.mark.jvm
@pytest.mark.slow
def test_tune_on_real_jvms_resume_html_and_apply(tmp_path):
    spec = _spec(tmp_path)
    proc = run_jvmlab("tune", str(spec), "--store", "lab.db", "--html", "t.html", cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "Tuning experiment 1: 3 trials" in proc.stdout and "trial 3" in proc.stderr
    with sqlite3.connect(tmp_path / "lab.db") as db:
        cells = db.execute("select count(*) from cell where experiment_id = 1").fetchone()[0]
        invocations = db.execute("select count(*) from invocation where experiment_id = 1").fetchone()[0]
    assert cells >= 3 and invocations >= 2 * 3 + 2
    html = (tmp_path / "t.html").read_text()
    assert "Optimisation history" in html and "<script>alert" not in html
    again = run_jvmlab("tune", str(spec), "--store", "lab.db", "--resume", cwd=tmp_path, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"({invocations} read back from the store)" in again.stdout
    with sqlite3.connect(tmp_path / "lab.db") as db:
        assert db.execute("select count(*) from invocation").fetchone()[0] == invocations
    applied = run_jvmlab("apply", "1", "--store", "lab.db", cwd=tmp_path)
    assert applied.returncode == 0, applied.stderr
    assert "export JDK_JAVA_OPTIONS=" in applied.stdout and "[Service]" in applied.stdout
    assert "ENV JAVA_TOOL_OPTIONS=" in applied.stdout and "/bin/java" in applied.stdout


def test_apply_on_an_experiment_that_is_not_a_tuning_run_exits_2(tmp_path):
    from jvmlab.store import open_store

    store = open_store(str(tmp_path / "lab.db"))
    store.create_experiment(name="x", spec_text="", spec_hash="h", spec_path=None, fingerprint={}, seed=1,
                            command_line="", jvmlab_version="t", artifacts_dir=str(tmp_path))
    proc = run_jvmlab("apply", "1", "--store", "lab.db", cwd=tmp_path)
    assert proc.returncode == 2 and "not a tuning run" in proc.stderr


@pytest.mark.jvm
@pytest.mark.slow
def test_a_killed_tune_resumes_and_measures_nothing_twice(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    spec = tmp_path / "tune.toml"
    spec.write_text(SPEC.format(objective="wall_s", values=GCS).replace("trials = 3", "trials = 5"))
    proc = subprocess.Popen([sys.executable, "-m", "jvmlab", "tune", str(spec), "--store", "lab.db", "-q"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    count = 0
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.5)
        if (tmp_path / "lab.db").exists():
            with sqlite3.connect(tmp_path / "lab.db") as db:
                try:
                    count = db.execute("select count(*) from invocation").fetchone()[0]
                except sqlite3.OperationalError:
                    count = 0
            if count >= 8:
                break
    assert proc.poll() is None, "finished before it could be killed"
    os.kill(proc.pid, signal.SIGTERM)
    proc.communicate(timeout=60)
    with sqlite3.connect(tmp_path / "lab.db") as db:
        stored_at_kill = db.execute("select count(*) from invocation").fetchone()[0]
    resumed = run_jvmlab("tune", str(spec), "--store", "lab.db", "--resume", "-q", cwd=tmp_path, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert f"({stored_at_kill} read back from the store)" in resumed.stdout
    with sqlite3.connect(tmp_path / "lab.db") as db:
        dupes = db.execute("select count(*) from (select cell_id, block, position, count(*) c from invocation "
                           "group by cell_id, block, position having c > 1)").fetchone()[0]
        experiments = db.execute("select count(*) from experiment").fetchone()[0]
    assert dupes == 0 and experiments == 1


GC_SPEC = """
name = "tune-gc"
[workload]
builtin = "hold"
args = ["--live-mb", "16", "--alloc-mb", "256"]
[tune]
objective = "gc.pause_total_ms"
guardrails = ["gc.pause_count <= 100000"]
baseline = "-Xmx24m -XX:+UseSerialGC"
budget = { trials = 3 }
min_blocks = 2
max_blocks = 2
confirm_max_blocks = 2
[tune.params.heap]
type = "categorical"
values = { small = "-Xmx24m", big = "-Xmx512m" }
[tune.params.gc]
type = "categorical"
values = { serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }
"""


@pytest.mark.jvm
@pytest.mark.slow
def test_a_gc_metric_as_objective_on_real_jvms_is_measured_stored_and_replayed(tmp_path):
    """The trials run with the GC collector (the runner's slot path): every invocation stores
    the GC log's metrics, the tuner ranks on gc.pause_total_ms and guards on gc.pause_count,
    and a resumed run reads them back instead of measuring again. The assertion on the data
    is a count, not a timing: a 24 MiB heap collects far more often than a 512 MiB one."""
    from jvmlab.store import open_store

    spec = tmp_path / "tune.toml"
    spec.write_text(GC_SPEC)
    proc = run_jvmlab("tune", str(spec), "--store", "lab.db", cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    store = open_store(str(tmp_path / "lab.db"))
    doc = store.record(1, TuneDocument)
    assert doc is not None and doc.objectives[0].metric == "gc.pause_total_ms"
    measured = [t for t in doc.trials if t.state != "infeasible"]
    assert measured and all(t.estimate is not None for t in measured)
    cells = {c.id: c.flags for c in store.cells(1)}
    rows = [r for r in store.invocations(1) if r.status == "ok"]
    assert rows and all("gc.pause_total_ms" in r.metrics and "gc.pause_count" in r.metrics for r in rows)
    counts: dict[str, list[float]] = {}
    for r in rows:  # the confirmation's JDK-defaults cell has no -Xmx: "" groups it apart
        heap = next((f for f in cells[r.cell_id] if f.startswith("-Xmx")), "")
        counts.setdefault(heap, []).append(r.metrics["gc.pause_count"])
    assert min(counts["-Xmx24m"]) > 2 * max(counts.get("-Xmx512m", [0]))
    total = len(store.invocations(1))
    again = run_jvmlab("tune", str(spec), "--store", "lab.db", "--resume", cwd=tmp_path, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"({total} read back from the store)" in again.stdout
    assert len(open_store(str(tmp_path / "lab.db")).invocations(1)) == total
