"""`jvmlab compare`: matched cells across experiments, with CIs and fingerprint warnings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from jvmlab.cli.main import main
from jvmlab.errors import UserError
from jvmlab.report.compare import compare_experiments, render_comparison
from jvmlab.report.synthetic import SyntheticSpec, generate
from jvmlab.results import load_experiment
from jvmlab.store.sql import SqlStore

MACHINE = {"kernel": "Linux 6.1", "cpu_count": 2, "cpu_model": "X", "jdks": {}}


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[SqlStore, int, int, int, Path]:
    db = tmp_path_factory.mktemp("compare") / "lab.db"
    store = SqlStore(f"sqlite:///{db}")
    a = generate(store, SyntheticSpec(seed=1, failures=0), MACHINE)
    b = generate(store, SyntheticSpec(seed=2, failures=0, scale=1.3), MACHINE)  # 30% slower everywhere
    c = generate(store, SyntheticSpec(seed=3, failures=0), {**MACHINE, "kernel": "Linux 6.9"})
    return store, a, b, c, db


def test_a_uniform_slowdown_is_found_in_every_cell(pair) -> None:
    store, a, b, _, _ = pair
    result = compare_experiments(load_experiment(store, a), load_experiment(store, b))
    assert len(result.pairs) == 4 and not result.only_a and not result.only_b
    for p in result.pairs:
        c = p.comparison
        assert c.significant and 1.2 < c.ratio < 1.4
        assert c.ci95[0] <= 1.3 <= c.ci95[1]
        assert "slower" in p.verdict
    assert not result.hazards


def test_same_machine_same_settings_is_no_clear_difference(pair) -> None:
    store, a, _, c, _ = pair
    result = compare_experiments(load_experiment(store, a), load_experiment(store, c))
    assert not any(p.comparison.significant for p in result.pairs)
    assert [h.kind for h in result.hazards] == ["fingerprint-changed"]
    assert "kernel changed" in result.hazards[0].detail


def test_no_shared_cells_is_a_user_error(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'x.db'}")
    a = generate(store, SyntheticSpec(jvms=("jdk17",), invocations=3, failures=0))
    b = generate(store, SyntheticSpec(jvms=("jdk21",), invocations=3, failures=0))
    with pytest.raises(UserError, match="share no cell names"):
        compare_experiments(load_experiment(store, a), load_experiment(store, b))


def test_cli_json_and_errors(pair, capsys: pytest.CaptureFixture[str]) -> None:
    _, a, b, _, db = pair
    with pytest.raises(SystemExit) as done:
        main(["compare", str(a), str(b), "--store", str(db), "--json"])
    assert done.value.code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == "jvmlab.compare/1" and len(doc["pairs"]) == 4
    assert all(p["significant"] for p in doc["pairs"])
    with pytest.raises(SystemExit) as done:
        main(["compare", str(a), "77", "--store", str(db)])
    assert done.value.code == 2 and "no experiment 77" in capsys.readouterr().err


def test_cells_in_one_experiment_only_are_named_under_their_experiment(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'x.db'}")
    a = generate(store, SyntheticSpec(jvms=("jdk17", "jdk21"), gc_levels=("g1",), invocations=3, failures=0))
    b = generate(store, SyntheticSpec(jvms=("jdk17", "jdk25"), gc_levels=("g1",), invocations=3, failures=0))
    result = compare_experiments(load_experiment(store, a), load_experiment(store, b))
    console = Console(record=True, width=200)
    render_comparison(result, console)
    lines = console.export_text().splitlines()
    assert f"only in #{a}: jdk21 gc=g1" in lines and f"only in #{b}: jdk25 gc=g1" in lines
