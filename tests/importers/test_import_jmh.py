"""`jvmlab import jmh` on real JMH 1.37 result files (see data/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab.errors import UserError
from jvmlab.importers.jmh import import_jmh
from jvmlab.importers.store import store_import
from jvmlab.model.hazards import IMPORTED
from jvmlab.report.compare import compare_experiments
from jvmlab.report.jmh import jmh_table
from jvmlab.report.summary import summarize
from jvmlab.results import load_experiment
from jvmlab.store.sql import SqlStore

DATA = Path(__file__).resolve().parent / "data"
FILES = [DATA / "jmh-jdk17-serial.json", DATA / "jmh-jdk25-serial.json"]
HELLO = "jmh.JMHSample_01_HelloWorld.wellHelloThere"


def test_cells_are_jvm_configurations_and_invocations_are_forks(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = store_import(store, import_jmh(FILES))
    cells = store.cells(exp)
    assert [c.name for c in cells] == ["jdk17 -Xmx256m -XX:+UseSerialGC", "jdk25 -Xmx256m -XX:+UseSerialGC"]
    assert [c.jvm for c in cells] == ["jdk17", "jdk25"] and cells[1].jdk["version"] == "25.0.3+9-LTS"
    invocations = store.invocations(exp)
    assert len(invocations) == 6 and all(i.status == "ok" for i in invocations)
    raw = json.loads(FILES[0].read_text())[0]["primaryMetric"]["rawData"]
    first = [i for i in invocations if i.cell_id == cells[0].id]
    assert [i.metrics[HELLO] for i in first] == pytest.approx([sum(f) / len(f) for f in raw])
    assert all(i.wall_s is None and i.user_s is None for i in invocations)  # not in the file: unknown
    assert len({i.block for i in invocations}) == 6  # never paired across cells


def test_unknown_block_order_is_stored_and_reported(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = store_import(store, import_jmh(FILES))
    assert store.experiment(exp).run_options.block_order == "unknown"
    summary = summarize(store, exp, HELLO)
    (hazard,) = [h for h in summary.hazards if h.kind == IMPORTED]
    assert "block order" in hazard.detail
    table = jmh_table(summary)
    assert table is not None and len(table.rows) == 3
    assert all(not c.paired for row in table.rows for c in row.comparisons.values())
    doc = summary.to_json()["jmh"]
    assert [b["metric"] for b in doc] == [r.metric for r in table.rows]
    assert doc[0]["unit"] == "ops/s" and doc[0]["lower_is_better"] is False
    assert doc[0]["comparisons"][0]["cell"] == "jdk25 -Xmx256m -XX:+UseSerialGC" and doc[0]["comparisons"][0]["verdict"]


def test_the_same_configuration_in_two_files_gives_cells_named_by_file(tmp_path: Path) -> None:
    copy = tmp_path / "after.json"
    copy.write_text(FILES[0].read_text())
    imported = import_jmh([FILES[0], copy])
    assert [c.name for c in imported.cells] == ["jmh-jdk17-serial", "after"]


def test_two_imports_compare_by_cell_name(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    a = store_import(store, import_jmh([FILES[0]]))
    b = store_import(store, import_jmh([FILES[0]]))
    result = compare_experiments(load_experiment(store, a), load_experiment(store, b), HELLO)
    (pair,) = result.pairs
    assert pair.comparison.ratio == pytest.approx(1.0)


def test_cli_import_then_report(tmp_path: Path) -> None:
    proc = run_jvmlab("import", "jmh", *map(str, FILES), "--store", "lab.db", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "as experiment 1" in proc.stdout and "unknown: block order" in proc.stdout
    report = run_jvmlab("report", "1", "--store", "lab.db", "--metric", HELLO, cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert "JMH benchmarks x cells" in report.stdout and "[imported]" in report.stdout
    assert "JMHSample_27_Params.bench[arg=1,certainty=16]" in report.stdout


def test_an_imported_jmh_experiment_reports_its_score_by_default(tmp_path: Path) -> None:
    proc = run_jvmlab("import", "jmh", *map(str, FILES), "--store", "lab.db", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = run_jvmlab("report", "1", "--store", "lab.db", "--json", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    doc = json.loads(report.stdout)
    assert doc["metric"] == HELLO  # not wall_s, which the files do not hold
    assert all(c["metrics"][HELLO]["mean"] > 0 and c["ci95"][HELLO] is not None for c in doc["cells"])


def test_a_file_that_is_not_jmh_is_one_line_and_exit_2(tmp_path: Path) -> None:
    proc = run_jvmlab("import", "jmh", str(DATA / "hyperfine-java-version.json"), "--store", "lab.db",
                      cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "not a JMH JSON result" in proc.stderr
    with pytest.raises(UserError, match="--baseline 'nope'"):
        store_import(SqlStore(f"sqlite:///{tmp_path / 'x.db'}"), import_jmh(FILES), baseline="nope")


def test_html_and_markdown_reports_carry_the_benchmark_table(tmp_path: Path) -> None:
    from jvmlab.report.export import export_text
    from jvmlab.report.html import render_html

    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = store_import(store, import_jmh(FILES))
    summary = summarize(store, exp, HELLO)
    page = render_html(summary)
    assert "JMH benchmarks x cells" in page and "JMHSample_27_Params.bench[arg=1,certainty=16]" in page
    md = export_text(summary, "markdown")
    assert "| JMHSample_01_HelloWorld.wellHelloThere | ops/s |" in md and "jdk25 -Xmx256m -XX:+UseSerialGC" in md


def test_files_with_the_same_name_get_numbered_cells(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "run.json").write_text(FILES[0].read_text())
    imported = import_jmh([tmp_path / "a" / "run.json", tmp_path / "b" / "run.json"])
    assert [c.name for c in imported.cells] == ["run-1", "run-2"]


def test_profiler_metrics_are_imported_per_fork(tmp_path: Path) -> None:
    store = SqlStore(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = store_import(store, import_jmh([DATA / "jmh-jdk17-prof-gc.json"]))
    units = store.metric_units(exp)
    assert units[HELLO + ":gc.alloc.rate.norm"] == "B/op" and units[HELLO + ":gc.count"] == "counts"
    assert [len(i.metrics) for i in store.invocations(exp)] == [4, 4]
