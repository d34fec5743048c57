"""`jvmlab gc advise` end to end on a real JVM: a log with System.gc() calls, the spec that made
it, a stored experiment whose DisableExplicitGC cell has no explicit-gc finding in any run;
`report` and `apply` work on it, and a stored cell (N:CELL) can be advised again.
Also `gc analyze` / `gc compare` showing findings (terminal, JSON, HTML) on hand-made logs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cli_runner import run_jvmlab

SPEC = """
name = "explicit"
[workload]
builtin = "gctrouble"
args = ["--mode", "explicit", "--count", "3"]
jvm_args = "-XX:+UseG1GC -Xmx128m"
[jvms]
j17 = "{home}"
[run]
invocations = 3
warmup = 0
[collect]
proc = false
flag_effect = false
"""


def _explicit_log(tmp_path: Path, home: Path) -> Path:
    from jvmlab.model.jdk import JdkInfo
    from jvmlab.workloads.builtin import prepare_builtin

    jdk = JdkInfo(home=home, version="17", feature=17, vendor="test", vm="OpenJDK 64-Bit Server VM",
                  vm_kind="HotSpot", has_javac=True)
    w = prepare_builtin("gctrouble", jdk)
    log = (tmp_path / "prod-gc.log").absolute()
    subprocess.run([str(home / "bin" / "java"), "-XX:+UseG1GC", "-Xmx128m", f"-Xlog:gc*:file={log}", "-cp",
                    str(w.classpath), w.main_class, "--mode", "explicit", "--count", "3"],
                   check=True, capture_output=True, timeout=120)
    return log


@pytest.mark.jvm
@pytest.mark.slow
def test_gc_advise_confirms_disable_explicit_gc(tmp_path: Path, jdk17_home: Path) -> None:
    (tmp_path / "spec.toml").write_text(SPEC.format(home=jdk17_home))
    log = _explicit_log(tmp_path, jdk17_home)
    done = run_jvmlab("gc", "advise", str(log), "--spec", "spec.toml", "--store", "lab.db", "--json", "-q",
                      "--max-invocations", "9", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    advice = doc["advice"]
    by_level = {f["level"]["name"]: f for f in advice["fixes"]}
    assert set(by_level) == {"DisableExplicitGC", "ExplicitGCInvokesConcurrent"}
    (gone,) = by_level["DisableExplicitGC"]["findings"]
    assert gone["verdict"] == "gone", gone
    assert gone["current"]["runs_with"] == gone["current"]["runs"] >= 3  # the current flags show it every run
    assert gone["fix"]["runs"] >= 3 and gone["fix"]["runs_with"] == 0
    # ExplicitGCInvokesConcurrent still calls System.gc() (as a concurrent cycle): honestly still there
    (still,) = by_level["ExplicitGCInvokesConcurrent"]["findings"]
    assert still["verdict"] != "gone"
    assert by_level["DisableExplicitGC"]["metric"]["metric"] == "wall_s"
    assert doc["run"]["experiment_id"] == advice["experiment"]
    exp = str(advice["experiment"])
    report = run_jvmlab("report", exp, "--store", "lab.db", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    if advice["winner"] is not None:  # unless DisableExplicitGC was measurably slower on a loaded machine
        applied = run_jvmlab("apply", exp, "--store", "lab.db", cwd=tmp_path)
        assert applied.returncode == 0, applied.stderr
        assert "-XX:+DisableExplicitGC" in applied.stdout and "--mode explicit" in applied.stdout
    # a stored cell is a source too: its own GC logs' findings, its spec, its flags
    again = run_jvmlab("gc", "advise", f"{exp}:j17 gcfix=ExplicitGCInvokesConcurrent", "--store", "lab.db", "-q",
                       "--max-invocations", "4", "--invocations", "2", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "DisableExplicitGC: -XX:+DisableExplicitGC" in again.stdout
    assert "ExplicitGCInvokesConcurrent:" not in again.stdout  # already among the cell's flags


def test_gc_advise_bad_input_is_one_line(tmp_path: Path) -> None:
    log = tmp_path / "gc.log"
    log.write_text("[0.010s][info][gc] Using G1\n[1.000s][info][gc] GC(0) Pause Young (Normal) "
                   "(G1 Evacuation Pause) 24M->4M(256M) 1.000ms\n")
    no_spec = run_jvmlab("gc", "advise", str(log), cwd=tmp_path)
    assert no_spec.returncode == 2 and "--spec" in no_spec.stderr and "Traceback" not in no_spec.stderr
    missing = run_jvmlab("gc", "advise", "7:cell", "--store", "lab.db", cwd=tmp_path)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def _findings_log(path: Path, explicit: bool) -> Path:
    lines = ["[0.010s][info][gc] Using G1", "[0.011s][info][gc,init] Heap Max Capacity: 256M"]
    for i in range(3):
        cause = "System.gc()" if explicit else "G1 Evacuation Pause"
        kind = "Full" if explicit else "Young (Normal)"
        lines.append(f"[{1 + i}.000s][info][gc] GC({i}) Pause {kind} ({cause}) 24M->4M(256M) 2.000ms")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_gc_analyze_and_compare_show_findings(tmp_path: Path) -> None:
    a = _findings_log(tmp_path / "a.log", explicit=True)
    b = _findings_log(tmp_path / "b.log", explicit=False)
    text = run_jvmlab("gc", "analyze", str(a), "--html", "page.html", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "explicit-gc" in text.stdout and "-XX:+DisableExplicitGC" in text.stdout
    page = (tmp_path / "page.html").read_text()
    assert "Findings" in page and "System.gc() started 3 collection(s)" in page
    as_json = json.loads(run_jvmlab("gc", "analyze", str(a), str(b), "--json", cwd=tmp_path).stdout)
    assert [[f["id"] for f in log["findings"]] for log in as_json["logs"]] == [["explicit-gc"], []]
    cmp = run_jvmlab("gc", "compare", str(a), str(b), "--json", cwd=tmp_path)
    assert cmp.returncode == 0, cmp.stderr
    (change,) = json.loads(cmp.stdout)["findings"]
    assert (change["id"], change["status"]) == ("explicit-gc", "disappears")
    shown = run_jvmlab("gc", "compare", str(a), str(b), cwd=tmp_path)
    assert "disappears" in shown.stdout
