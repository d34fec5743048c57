"""The quick commands stay quick: what a fresh interpreter imports to answer them (issue 34).

Timings live in ``bench/cli_latency.py``; here the behaviour behind them: ``--help``,
``--version``, a subcommand's ``--help``, ``jdks``, ``metrics`` and ``results`` import none of
the heavy libraries (numpy, scipy, plotly, optuna, dask, pandas, jinja2, ruptures), and the first
help texts not even SQLAlchemy or jvmlab's pydantic spec model. The rule for command authors is in the
docstring of ``jvmlab/cli/__init__.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("numpy", "scipy", "plotly", "optuna", "dask", "distributed", "pandas", "jinja2", "ruptures")
STORE = ("sqlalchemy",)
SPEC_MODEL = ("jvmlab.spec.model",)  # pydantic itself is typer's: typer._adapters loads it to build a command

PROBE = """
import atexit, json, sys
def dump():
    with open(sys.argv[1], "w") as f:
        json.dump(sorted(sys.modules), f)
atexit.register(dump)
from jvmlab.cli.main import main
main(sys.argv[2:])
"""


def imported(tmp_path: Path, *args: str) -> tuple[int, set[str]]:
    out = tmp_path / "modules.json"
    proc = subprocess.run([sys.executable, "-c", PROBE, str(out), *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    return proc.returncode, set(json.loads(out.read_text()))


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if n in modules or any(m.startswith(n + ".") for m in modules)]


@pytest.mark.parametrize("args", [("--help",), ("--version",), ("run", "--help"), ("gc", "analyze", "--help"),
                                  ("tune", "--help"), ("report", "--help")])
def test_help_and_version_import_nothing_heavy(tmp_path: Path, args: tuple[str, ...]) -> None:
    code, modules = imported(tmp_path, *args)
    assert code == 0
    assert loaded(modules, HEAVY + STORE + SPEC_MODEL) == []


def test_metrics_imports_nothing_heavy(tmp_path: Path) -> None:
    code, modules = imported(tmp_path, "metrics")
    assert code == 0
    assert loaded(modules, HEAVY + STORE) == []


def test_jdks_imports_nothing_heavy(tmp_path: Path) -> None:
    code, modules = imported(tmp_path, "jdks")
    assert code == 0
    assert loaded(modules, HEAVY + STORE) == []


def test_results_reads_the_store_without_the_statistics(tmp_path: Path) -> None:
    runs = {"results": [{"command": "sleep 0.1", "times": [0.101, 0.103, 0.102], "exit_codes": [0, 0, 0]}]}
    (tmp_path / "hf.json").write_text(json.dumps(runs))
    made = subprocess.run([sys.executable, "-m", "jvmlab", "import", "hyperfine", "hf.json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    code, modules = imported(tmp_path, "results")
    assert code == 0
    assert "sqlalchemy" in modules  # it did read the store
    assert loaded(modules, HEAVY) == []


@pytest.mark.parametrize("log_name", ["tiny", "jdk17-serial-oneline.log"])
def test_gc_analyze_of_a_log_imports_no_statistics(tmp_path: Path, log_name: str) -> None:
    """`gc analyze LOG --json` reads a log: no numpy, scipy or results package (importing
    `jvmlab.results` for the sides cost 0.7 s of a 1 s command on a 474 MB log). The Serial log
    has enough full collections for every finding's rule to run (live-set growth fits a slope)."""
    if log_name == "tiny":
        log = tmp_path / "gc.log"
        log.write_text("[0.010s][info][gc] Using G1\n"
                       "[1.000s][info][gc] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(64M) 4.600ms\n")
    else:
        log = Path(__file__).parents[1] / "data" / "gclogs" / log_name
    code, modules = imported(tmp_path, "gc", "analyze", str(log), "--json")
    assert code == 0
    assert loaded(modules, HEAVY + ("jvmlab.results",)) == []


def test_check_of_a_spec_without_tune_imports_no_tuner(tmp_path: Path) -> None:
    """`check` imports the tuner (optuna, ~1 s) only for a spec with a [tune] section."""
    spec = tmp_path / "spec.toml"
    spec.write_text('[workload]\nbuiltin = "hello"\n')
    code, modules = imported(tmp_path, "check", str(spec))
    assert code == 0
    assert loaded(modules, ("optuna", "jvmlab.tune.engine")) == []
