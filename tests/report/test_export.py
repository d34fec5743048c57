"""`jvmlab export`: every format read back and checked against the store."""

from __future__ import annotations

import csv
import io
import json
import statistics
from pathlib import Path

import pytest

from jvmlab.cli.main import main
from jvmlab.report.export import export_text
from jvmlab.report.summary import summarize

HYPERFINE_KEYS = {"command", "mean", "stddev", "median", "user", "system", "min", "max", "times", "exit_codes",
                  "memory_usage_byte", "parameters", "jvmlab"}


def _export(synthetic, fmt: str) -> str:
    store, exp_id, _ = synthetic
    return export_text(summarize(store, exp_id), fmt)


def test_hyperfine_schema_and_values(synthetic) -> None:
    store, exp_id, _ = synthetic
    doc = json.loads(_export(synthetic, "hyperfine"))
    cells = store.cells(exp_id)
    invocations = store.invocations(exp_id)
    assert len(doc["results"]) == len(cells)
    for result, cell in zip(doc["results"], cells, strict=True):
        assert set(result) == HYPERFINE_KEYS
        ok = [i for i in invocations if i.cell_id == cell.id and i.status == "ok"]
        walls = [i.wall_s for i in ok]
        assert result["times"] == walls
        assert result["mean"] == pytest.approx(statistics.fmean(walls))
        assert result["stddev"] == pytest.approx(statistics.stdev(walls))
        assert result["median"] == pytest.approx(statistics.median(walls))
        assert result["min"] == min(walls) and result["max"] == max(walls)
        assert result["user"] == pytest.approx(statistics.fmean(i.user_s for i in ok))
        assert result["exit_codes"] == [0] * len(ok)
        assert result["memory_usage_byte"] == [i.max_rss_bytes for i in ok]
        assert all(isinstance(b, int) for b in result["memory_usage_byte"])
        # what hyperfine writes there: the parameters' values (2 JVMs x 2 GCs), no cell name of ours
        assert result["parameters"] == {"jvm": cell.jvm, **cell.levels} and "cell" not in result["parameters"]
        assert result["jvmlab"] == {"cell": cell.name, "jvm": cell.jvm, "levels": cell.levels}
        assert "-XX:+Use" in result["command"]


def test_csv_has_one_row_per_invocation_and_every_metric(synthetic) -> None:
    store, exp_id, _ = synthetic
    rows = list(csv.DictReader(io.StringIO(_export(synthetic, "csv"))))
    invocations = store.invocations(exp_id)
    assert len(rows) == len(invocations)
    assert {"level.gc", "wall_s", "max_rss_bytes", "gc.pause_p99_ms", "progress.steady_rate"} <= set(rows[0])
    failed = [r for r in rows if r["status"] != "ok"]
    assert len(failed) == 1 and failed[0]["gc.pause_p99_ms"] == ""  # not measured: empty, never 0
    first = invocations[0]
    assert float(rows[0]["wall_s"]) == first.wall_s and rows[0]["max_rss_bytes"] == str(first.max_rss_bytes)


def test_json_is_versioned_and_complete(synthetic) -> None:
    store, exp_id, _ = synthetic
    doc = json.loads(_export(synthetic, "json"))
    assert doc["schema"] == "jvmlab.export/1" and doc["summary"]["schema"] == "jvmlab.summary/1"
    assert len(doc["invocations"]) == len(store.invocations(exp_id))
    assert doc["metrics"]["gc.pause_p99_ms"]["unit"] == "ms"
    assert doc["invocations"][0]["metrics"]["gc.pause_count"] == 40.0


def test_markdown_table_has_a_row_per_cell(synthetic) -> None:
    store, exp_id, _ = synthetic
    text = _export(synthetic, "markdown")
    for cell in store.cells(exp_id):
        assert f"| {cell.name} |" in text
    assert "| baseline |" in text and "**Verdicts**" in text


@pytest.mark.parametrize("args, message", [
    (["--format", "yaml"], "unknown export format 'yaml'"),
    (["--format", "jsn"], "did you mean 'json'"),
    (["--output", "/nonexistent-folder/x.csv"], "does not exist"),
])
def test_bad_input_is_one_line_exit_2(synthetic, capsys: pytest.CaptureFixture[str], args: list[str],
                                      message: str) -> None:
    _, exp_id, db = synthetic
    with pytest.raises(SystemExit) as done:
        main(["export", str(exp_id), "--store", str(db), *args])
    err = capsys.readouterr().err
    assert done.value.code == 2 and message in err and err.count("\n") == 1


def test_unknown_experiment_exit_2(synthetic, capsys: pytest.CaptureFixture[str]) -> None:
    _, _, db = synthetic
    with pytest.raises(SystemExit) as done:
        main(["export", "999", "--store", str(db)])
    assert done.value.code == 2 and "no experiment 999" in capsys.readouterr().err


def test_cli_writes_output_file(synthetic, tmp_path: Path) -> None:
    _, exp_id, db = synthetic
    out = tmp_path / "h.json"
    with pytest.raises(SystemExit) as done:
        main(["export", str(exp_id), "--store", str(db), "--format", "hyperfine", "--output", str(out)])
    assert done.value.code == 0 and json.loads(out.read_text())["results"]


def test_csv_and_json_name_the_node_of_every_invocation_on_one_machine(synthetic, tmp_path: Path) -> None:
    """On one machine every invocation ran on the experiment's host and on no Dask worker; a
    store that does not know the host says nothing rather than guess."""
    from jvmlab.report.synthetic import SyntheticSpec, generate
    from jvmlab.store.sql import SqlStore

    store = SqlStore(f"sqlite:///{tmp_path / 'host.db'}")
    exp_id = generate(store, SyntheticSpec(), fingerprint={"hostname": "bench-host-7", "kernel": "Linux"})
    summary = summarize(store, exp_id)
    rows = list(csv.DictReader(io.StringIO(export_text(summary, "csv"))))
    assert rows and all(r["node"] == "bench-host-7" and r["worker"] == "" for r in rows)
    invocations = json.loads(export_text(summary, "json"))["invocations"]
    assert invocations and all(i["node"] == "bench-host-7" and i["worker"] is None for i in invocations)
    unknown = list(csv.DictReader(io.StringIO(_export(synthetic, "csv"))))
    assert unknown and all(r["node"] == "" for r in unknown)
