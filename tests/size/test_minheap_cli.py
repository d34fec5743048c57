"""`jvmlab minheap` from the command line: bad input is one line and exit 2; a real search
with --json and a resume; the spec's cpus/memory values are checked."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli_runner import run_jvmlab
from jvmlab.cli.main import main
from jvmlab.errors import UserError
from jvmlab.plan.matrix import expand
from jvmlab.spec.load import parse_spec

SPEC = '''[workload]
builtin = "hold"
args = ["--live-mb", "16", "--alloc-mb", "64"]
[jvms]
j17 = "{home}"
[factors.gc]
Serial = "-XX:+UseSerialGC"
[run]
timeout = "60s"
'''


@pytest.mark.parametrize("args, message", [
    (["--lower", "64m", "--upper", "32m"], "below the upper bound"),
    (["--step", "lots"], "--step"),
    (["--multiples", "1,zero"], "--multiples"),
    (["--fail-pattern", "("], "--fail-pattern"),
])
def test_bad_options_are_one_line_and_exit_2(tmp_path: Path, jdk17_home: Path, args: list[str], message: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(home=jdk17_home))
    with pytest.raises(SystemExit) as exit_info:
        main(["minheap", str(spec), "--store", str(tmp_path / "lab.db"), *args])
    _, err = capsys.readouterr()
    assert exit_info.value.code == 2, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in err
    assert not (tmp_path / "lab.db").exists()  # refused before the store is made


@pytest.mark.jvm
@pytest.mark.slow
def test_search_json_and_resume(tmp_path: Path, jdk17_home: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(home=jdk17_home))
    args = ("minheap", str(spec), "--store", "lab.db", "--lower", "8m", "--upper", "64m", "--step", "2m",
            "--repeats", "2", "--json")
    proc = run_jvmlab(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [cell] = json.loads(proc.stdout)["minheap"]["cells"]
    assert cell["status"] == "found" and 16 << 20 <= cell["upper_bytes"] <= 48 << 20
    assert "probe 1 of ~" in proc.stderr and " left (about " in proc.stderr  # each probe's line: where, and an ETA
    assert cell["upper_bytes"] - cell["lower_bytes"] >= 2 << 20 and 0 <= cell["confidence"] <= 0.5  # 2 repeats
    again = run_jvmlab(*args, "--resume", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "replayed" in again.stderr
    assert json.loads(again.stdout)["minheap"]["cells"][0]["upper_bytes"] == cell["upper_bytes"]


def test_cpus_and_memory_become_factors() -> None:
    spec = parse_spec('[workload]\nbuiltin = "hello"\n[environment]\ncpus = [1, 2]\nmemory = ["1g", "4g"]\n')
    cells = expand(spec)
    assert [(c.level("cpus"), c.level("memory")) for c in cells] == [("1", "1g"), ("1", "4g"), ("2", "1g"),
                                                                      ("2", "4g")]
    with pytest.raises(UserError, match="below 16m"):
        parse_spec('[workload]\nbuiltin = "hello"\n[environment]\nmemory = ["1k"]\n')
    with pytest.raises(UserError):
        parse_spec('[workload]\nbuiltin = "hello"\n[environment]\ncpus = [0]\n')


@pytest.mark.jvm
@pytest.mark.slow
def test_search_then_sweep_with_html(tmp_path: Path, jdk17_home: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(home=jdk17_home) + "warmup = 0\n")
    proc = run_jvmlab("minheap", str(spec), "--store", "lab.db", "--lower", "8m", "--upper", "64m", "--step", "4m",
                      "--repeats", "1", "--sweep", "--multiples", "1,2", "--invocations", "2", "--html", "s.html",
                      "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    minimum = out["minheap"]["cells"][0]["upper_bytes"]
    sweep = out["sweep"]
    assert [lv["heap_bytes"] for lv in sweep["levels"]] == [minimum, 2 * minimum]
    assert sweep["knees"]["j17 gc=Serial"] in ("x1", "x2")
    points = sweep["curves"]["wall_s"][0]["points"]
    assert [p["n"] for p in points] == [2, 2]
    assert "<!DOCTYPE html>" in (tmp_path / "s.html").read_text()
