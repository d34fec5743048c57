"""Per-invocation hooks (issue 32): run outside the measured JVM, around every invocation, on
real JVMs. The program under test fails when a marker file exists and creates it, so only a
``before_each`` that removes the marker lets every invocation pass."""

from __future__ import annotations

import itertools
import json
import re
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab.store import open_store

pytestmark = pytest.mark.jvm

MARKER_JAVA = """
import java.nio.file.*;
public class Marker {
    public static void main(String[] args) throws Exception {
        Path marker = Paths.get("state", "marker");
        if (Files.exists(marker)) {
            System.err.println("marker exists: not a fresh state");
            System.exit(3);
        }
        Files.createFile(marker);
        System.out.println("created " + marker.toAbsolutePath());
    }
}
"""


def _app(folder: Path, jdk17_home: Path) -> None:
    """The Marker program compiled into folder/classes, and its state folder."""
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "Marker.java").write_text(MARKER_JAVA)
    subprocess.run([str(jdk17_home / "bin" / "javac"), "--release", "8", "-d", str(folder / "classes"),
                    str(folder / "src" / "Marker.java")], check=True, capture_output=True, timeout=120)
    (folder / "state").mkdir()


def _spec(jdk17_home: Path, hooks: str, invocations: int = 3, cells: str = "") -> str:
    return f"""
[workload]
main = "Marker"
classpath = "classes"
{hooks}

[jvms]
jdk17 = "{jdk17_home}"
{cells}
[run]
invocations = {invocations}
warmup = 1
order = "round-robin"
"""


def _run(folder: Path, spec_text: str, cwd: Path) -> list:
    (folder / "spec.toml").write_text(spec_text)
    # a cell that never succeeds is data here: -i keeps exit 0 (without it, exit 4)
    proc = run_jvmlab("run", str(folder / "spec.toml"), "--store", str(folder / "lab.db"), "--quiet", "-i", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    db = open_store(f"sqlite:///{folder / 'lab.db'}")
    exp = db.latest_experiment().id
    return db.invocations(exp, include_warmup=True)


def test_before_each_gives_every_invocation_a_fresh_state(tmp_path: Path, jdk17_home: Path) -> None:
    app = tmp_path / "app"
    _app(app, jdk17_home)
    elsewhere = tmp_path / "elsewhere"  # jvmlab started from another folder: hooks run in the spec's
    elsewhere.mkdir()
    hooks = ('setup = ["mkdir", "-p", "state"]\nbefore_each = ["rm", "-f", "state/marker"]\n'
             'cleanup = ["rm", "-f", "state/marker"]')
    runs = _run(app, _spec(jdk17_home, hooks), elsewhere)
    assert len(runs) == 4  # 1 warm-up + 3
    assert all(r.status == "ok" for r in runs), [(r.status, r.reason) for r in runs]
    assert not (app / "state" / "marker").exists()  # cleanup ran once at the end
    assert (Path(runs[0].artifacts_dir).parent / "hook-setup.txt").is_file()


def test_without_the_hook_the_same_program_fails_after_its_first_run(tmp_path: Path, jdk17_home: Path) -> None:
    """The control: the test above can fail (the marker really persists between invocations)."""
    app = tmp_path / "app"
    _app(app, jdk17_home)
    runs = _run(app, _spec(jdk17_home, ""), tmp_path)
    assert [r.status for r in runs] == ["ok", "failed", "failed", "failed"]


def test_the_hooks_time_is_not_in_wall_s(tmp_path: Path, jdk17_home: Path) -> None:
    app = tmp_path / "app"
    _app(app, jdk17_home)
    sleep_s = 4
    hooks = (f'before_each = {{ command = "rm -f state/marker && sleep {sleep_s}", shell = true }}\n'
             f'after_each = ["sleep", "1"]')
    runs = _run(app, _spec(jdk17_home, hooks, invocations=2), tmp_path)
    assert all(r.status == "ok" for r in runs), [(r.status, r.reason) for r in runs]
    # Had the hooks been inside the measured process, every wall_s would be at least 5 s.
    assert all(r.wall_s is not None and r.wall_s < sleep_s for r in runs), [r.wall_s for r in runs]
    starts = sorted(r.started_at for r in runs)
    assert all(b - a >= sleep_s + 1 for a, b in itertools.pairwise(starts))  # they did run between


def test_a_failing_hook_fails_that_invocation_and_the_matrix_continues(tmp_path: Path, jdk17_home: Path) -> None:
    app = tmp_path / "app"
    _app(app, jdk17_home)
    hooks = ('shell = true\n'
             'before_each = "rm -f state/marker; case {cell} in *bad*) echo refusing {cell}; exit 7;; esac"')
    cells = '[factors.x]\ngood = ""\nbad = "-Xss1m"\n'
    runs = _run(app, _spec(jdk17_home, hooks, invocations=2, cells=cells), tmp_path)
    db_cells = {c.id: c.name for c in open_store(f"sqlite:///{app / 'lab.db'}").cells(1)}
    by_cell: dict[str, list] = {}
    for r in runs:
        by_cell.setdefault(db_cells[r.cell_id], []).append(r)
    assert all(r.status == "ok" for r in by_cell["jdk17 x=good"])
    bad = by_cell["jdk17 x=bad"]
    assert len(bad) == 3 and all(r.status == "start-failed" for r in bad)
    assert all("before_each hook" in (r.reason or "") and "exited with code 7" in (r.reason or "")
               and "refusing" in (r.reason or "") for r in bad), [r.reason for r in bad]


def test_check_prints_the_hooks(tmp_path: Path, jdk17_home: Path) -> None:
    app = tmp_path / "app"
    _app(app, jdk17_home)
    hooks = 'before_each = { command = ["rm", "-f", "state/marker"], timeout = "30s" }\ncleanup = ["true"]'
    (app / "spec.toml").write_text(_spec(jdk17_home, hooks))
    proc = run_jvmlab("check", str(app / "spec.toml"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "hook before_each: rm -f state/marker (timeout 30 s)" in proc.stdout
    assert "hook cleanup: true (timeout 600 s)" in proc.stdout


@pytest.mark.parametrize("hooks, words", [
    ('before_each = "rm -f x"', "shell = true"),
    ('before_each = []', "non-empty"),
    ('before_each = ["./missing.sh"]', "does not exist"),
    ('setup = ["no-such-program-jvmlab"]', "not found on PATH"),
    ('after_each = { command = ["true"], timeout = "-1s" }', "after_each"),
])
def test_bad_hooks_are_one_line_and_exit_2(tmp_path: Path, jdk17_home: Path, hooks: str, words: str) -> None:
    app = tmp_path / "app"
    _app(app, jdk17_home)
    (app / "spec.toml").write_text(_spec(jdk17_home, hooks))
    proc = run_jvmlab("check", str(app / "spec.toml"), cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert words in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_hooks_are_refused_on_a_cluster(tmp_path: Path, jdk17_home: Path) -> None:
    """The nodes would run the JVMs without them: refused before the scheduler is contacted (port 1)."""
    (tmp_path / "s.toml").write_text(f'[workload]\nbuiltin = "hello"\nbefore_each = ["true"]\n'
                                     f'[jvms]\nj = "{jdk17_home}"\n[run]\ninvocations = 1\nwarmup = 0\n')
    proc = run_jvmlab("run", "s.toml", "--cluster", "tcp://127.0.0.1:1", "--store", "lab.db", cwd=tmp_path,
                      timeout=120)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and "the hooks" in lines[0], proc.stderr


@pytest.mark.slow
def test_tune_runs_the_hooks_around_every_trial_invocation(tmp_path: Path, jdk17_home: Path) -> None:
    (tmp_path / "tune.toml").write_text(f"""
[workload]
builtin = "hello"
shell = true
before_each = "echo {{cell}} >> before.txt"
cleanup = "echo done >> cleanup.txt"
[jvms]
j = "{jdk17_home}"
[tune]
objective = "wall_s"
budget = {{ trials = 2 }}
min_blocks = 2
max_blocks = 2
confirm_max_blocks = 3
[tune.params.gc]
type = "categorical"
values = {{ serial = "-XX:+UseSerialGC", parallel = "-XX:+UseParallelGC" }}
""")
    proc = run_jvmlab("tune", "tune.toml", "--store", "lab.db", "-q", cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    db = open_store(f"sqlite:///{tmp_path / 'lab.db'}")
    invocations = db.invocations(db.latest_experiment().id, include_warmup=True)
    assert invocations and len((tmp_path / "before.txt").read_text().splitlines()) == len(invocations)
    assert (tmp_path / "cleanup.txt").read_text().splitlines()  # at least one cell cleaned up, at the end


def test_a_failing_cleanup_is_a_stored_warning(tmp_path: Path, jdk17_home: Path) -> None:
    (tmp_path / "s.toml").write_text(f'[workload]\nbuiltin = "hello"\ncleanup = ["sh", "-c", "echo broken; exit 1"]\n'
                                     f'[jvms]\nj = "{jdk17_home}"\n[run]\ninvocations = 1\nwarmup = 0\n')
    proc = run_jvmlab("run", "s.toml", "--store", "lab.db", "--quiet", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    warnings = [w for w in json.loads(proc.stdout)["warnings"] if w["kind"] == "hook-failed"]
    assert len(warnings) == 1 and "cleanup hook" in warnings[0]["detail"] and "broken" in warnings[0]["detail"]


def test_tune_stores_and_shows_a_failing_cleanup_as_a_warning(tmp_path: Path, jdk17_home: Path) -> None:
    """The cleanup runs once per configuration when the tuning session ends (its teardown): its
    failure is a typed hook-failed hazard stored with the experiment, as in `run`, and the
    summary's warnings say it (it came after the engine's last block, so it used to be dropped)."""
    (tmp_path / "tune.toml").write_text(f"""
[workload]
builtin = "hello"
cleanup = ["sh", "-c", "echo broken; exit 1"]
[jvms]
j = "{jdk17_home}"
[tune]
objective = "wall_s"
budget = {{ trials = 1 }}
min_blocks = 2
max_blocks = 2
confirm_max_blocks = 2
[tune.params.gc]
type = "categorical"
values = {{ serial = "-XX:+UseSerialGC" }}
""")
    proc = run_jvmlab("tune", "tune.toml", "--store", "lab.db", "-q", cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    db = open_store(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = db.latest_experiment().id
    configs = len(db.cells(exp))  # the baseline and the one candidate: each its own cell, set up and cleaned up
    stored = [h for h in db.hazards(exp) if h.kind == "hook-failed"]
    assert configs >= 1 and len(stored) == configs, stored
    assert all("cleanup hook" in h.detail and "broken" in h.detail for h in stored)
    shown = [line for line in proc.stdout.splitlines() if line.startswith("warning:") and "cleanup hook" in line]
    assert shown, proc.stdout


@pytest.mark.slow
def test_minheap_runs_the_hooks_around_every_probe(tmp_path: Path, jdk17_home: Path) -> None:
    (tmp_path / "spec.toml").write_text(f'''[workload]
builtin = "hold"
args = ["--live-mb", "16", "--alloc-mb", "32"]
before_each = ["sh", "-c", "echo probe >> before.txt"]
[jvms]
j17 = "{jdk17_home}"
[run]
timeout = "60s"
''')
    proc = run_jvmlab("minheap", "spec.toml", "--store", "lab.db", "--lower", "8m", "--upper", "64m", "--step", "8m",
                      "--repeats", "1", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    folders = (tmp_path / "lab-artifacts").rglob("p*")
    probes = [p for p in folders if p.is_dir() and re.fullmatch(r"p\d{3}-\d+m", p.name)]
    assert probes and len((tmp_path / "before.txt").read_text().splitlines()) == len(probes)
