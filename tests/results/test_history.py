"""`jvmlab history`: a labelled series loaded from a real SQLite store, its change points,
summaries, JSON, Markdown and the gate (exit codes through the real command line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_jvmlab
from jvmlab.analyze.gate import parse_condition
from jvmlab.errors import UserError
from jvmlab.report.history import gate_line, gate_markdown, history_json, summary_line
from jvmlab.results.history import load_history, ordered_labels
from jvmlab.results.history_gate import gate_history
from jvmlab.store import open_store
from jvmlab.store.protocol import Store
from series_data import seed_series

LABELS = [f"c{i:02d}" for i in range(16)]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    db = open_store(str(tmp_path / "lab.db"))
    yield db
    db.close()


def _step(at: int, factor: float, cell: str = "g1"):
    return lambda i, c: 1.0 * (factor if i >= at and c == cell else 1.0)


def test_a_step_is_found_where_it_starts_with_its_size_and_the_summary_says_so(store: Store) -> None:
    seed_series(store, "bench", LABELS, ["g1", "zgc"], _step(9, 1.18))
    history = load_history(store, "bench")
    g1 = next(c for c in history.cells if c.cell == "g1")
    zgc = next(c for c in history.cells if c.cell == "zgc")
    assert g1.segmentation is not None and zgc.segmentation is not None
    [change] = g1.segmentation.changes
    assert g1.label_at(change.index) == "c09" and change.p_value < 0.02
    assert change.ci95 is not None and change.ci95[0] < 1.18 < change.ci95[1]
    assert summary_line(g1).startswith("wall_s: +18.") and "from c09; no change since" in summary_line(g1)
    assert summary_line(zgc).startswith("wall_s: no change across 16 labels")
    assert [p.label for p in g1.points] == LABELS and all(p.n_runs == 5 for p in g1.points)
    doc = history_json(history)
    cell = next(c for c in doc["cells"] if c["cell"] == "g1")
    assert cell["changes"][0]["label"] == "c09" and cell["changes"][0]["before_label"] == "c08"
    json.dumps(doc)


def test_labels_keep_arrival_order_unless_order_is_given(store: Store) -> None:
    seed_series(store, "s", ["b", "a", "c", "d"], ["x"], lambda i, c: 1.0, orders=[2.0, 1.0, None, 0.5])
    seed_series(store, "s", ["a"], ["x"], lambda i, c: 1.0, seed=9)  # a second run of label a: pooled
    labels = ordered_labels(store.series_experiments("s"))
    # arrival b, a, c, d: d (order 0.5) first, a (1.0), b (2.0); c has no order and stays right
    # after a, the label that arrived before it
    assert [lab.label for lab in labels] == ["d", "a", "c", "b"]
    assert len(labels[1].experiment_ids) == 2
    history = load_history(store, "s")
    assert [p.n_runs for p in history.cells[0].points] == [5, 10, 5, 5]
    assert [p.label for p in history.cells[0].points] == ["d", "a", "c", "b"]


def test_series_option_metric_and_cell_selection_and_one_line_errors(store: Store) -> None:
    seed_series(store, "spec-name", LABELS[:6], ["g1", "zgc"], lambda i, c: 1.0, series="nightly")
    assert store.series_names() == {"nightly": 6}
    history = load_history(store, "nightly", ["wall_s", "workload.*"], ["z*"])
    assert {(c.cell, c.metric) for c in history.cells} == {("zgc", "wall_s"), ("zgc", "workload.ops_s")}
    with pytest.raises(UserError, match=r"no series 'nightlx'.*did you mean 'nightly'"):
        load_history(store, "nightlx")
    with pytest.raises(UserError, match="no such metric"):
        load_history(store, "nightly", ["gc.pause_p99_ms"])
    with pytest.raises(UserError, match="no such cell"):
        load_history(store, "nightly", [], ["shenandoah"])
    with pytest.raises(UserError, match="no measured values of ready_s; choose --metric among"):
        load_history(store, "nightly", ["ready_s"])  # a process measure this series never had


def test_too_few_labels_say_why_instead_of_guessing(store: Store) -> None:
    seed_series(store, "short", LABELS[:3], ["g1"], _step(2, 1.5))
    [cell] = load_history(store, "short").cells
    assert cell.segmentation is None and "3 label(s)" in (cell.reason or "")
    assert "cannot tell" in summary_line(cell)


def test_gate_fails_on_a_real_step_beyond_the_threshold_and_passes_below_it(store: Store) -> None:
    seed_series(store, "bench", LABELS, ["g1", "zgc"], _step(9, 1.10))
    history = load_history(store, "bench")
    failed = gate_history(history, [parse_condition("wall_s > +3%")])
    assert failed.outcome == "fail" and failed.exit_code == 1
    [check] = failed.result.failed
    assert check.comparison.cell == "g1" and check.comparison.baseline == "c08 -> c09"
    passed = gate_history(history, [parse_condition("wall_s > +20%")])
    assert passed.outcome == "pass" and passed.exit_code == 0
    md = gate_markdown(failed, history)
    assert md.startswith("❌ **jvmlab history gate failed**") and "**FAIL**" in md and "| g1 |" in md


def test_gate_is_inconclusive_when_the_newest_label_differs_alone(store: Store) -> None:
    seed_series(store, "bench", LABELS, ["g1"], lambda i, c: 1.25 if i == len(LABELS) - 1 else 1.0)
    gate = gate_history(load_history(store, "bench"), [parse_condition("wall_s > +3%")])
    assert gate.outcome == "inconclusive" and gate.exit_code == 3
    assert gate.too_short[0].label == "c15" and not gate.result.failed
    line = gate_line(gate)
    assert line.startswith("jvmlab history gate: inconclusive: g1 wall_s: the newest label c15 differs +")
    assert "but stands alone; measure the next label" in line
    [alone] = history_json(load_history(store, "bench"), gate)["gate"]["inconclusive"]
    assert alone["label"] == "c15" and alone["ratio"] > 1.1 and alone["ci95"][0] < alone["ratio"] < alone["ci95"][1]
    assert 0 <= alone["p_value"] <= 1


def test_the_command_line_gate_exit_codes_json_and_markdown(tmp_path: Path) -> None:
    db = open_store(str(tmp_path / "lab.db"))
    seed_series(db, "bench", LABELS, ["g1"], _step(9, 1.10))
    db.close()
    listing = run_jvmlab("history", "--store", "lab.db", cwd=tmp_path)
    assert listing.returncode == 0 and "bench  (16 experiments)" in listing.stdout
    proc = run_jvmlab("history", "bench", "--store", "lab.db", "--fail-if", "wall_s > +3%", "--summary-md",
                      "gate.md", "--json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["gate"]["outcome"] == "fail" and doc["cells"][0]["changes"][0]["label"] == "c09"
    assert "jvmlab history gate: FAIL" in proc.stderr
    assert (tmp_path / "gate.md").read_text().startswith("❌")
    ok = run_jvmlab("history", "bench", "--store", "lab.db", "--fail-if", "wall_s > +30%", cwd=tmp_path)
    assert ok.returncode == 0 and "jvmlab history gate: pass" in ok.stdout
    bad = run_jvmlab("history", "bench", "--store", "lab.db", "--fail-if", "wall_s >> 3", cwd=tmp_path)
    assert bad.returncode == 2 and "--fail-if" in bad.stderr and "Traceback" not in bad.stderr


def test_loading_a_series_costs_the_same_queries_for_4_or_16_labels(tmp_path: Path) -> None:
    """Batched, not one query per experiment (issue 36 item 5)."""
    from sqlalchemy import event

    counts = []
    for n in (4, 16):
        db = open_store(str(tmp_path / f"q{n}.db"))
        seed_series(db, "s", LABELS[:n], ["g1", "zgc"], lambda i, c: 1.0, runs=2)
        statements: list[str] = []

        def count(_conn: object, _cursor: object, statement: str, *_rest: object, seen: list[str] = statements) -> None:
            seen.append(statement)

        event.listen(db.engine, "before_cursor_execute", count)  # type: ignore[attr-defined]
        load_history(db, "s", ["wall_s", "workload.ops_s"])
        event.remove(db.engine, "before_cursor_execute", count)  # type: ignore[attr-defined]
        counts.append(len(statements))
        db.close()
    assert counts[0] == counts[1] <= 5, counts


def test_a_newest_change_whose_interval_straddles_the_threshold_is_inconclusive(tmp_path: Path) -> None:
    """The compare gate's own rule (analyze/gate.decide): significant, but the 95% interval
    reaches past +3% on both sides: not a fail and not a pass; `--inconclusive pass` exits 0."""
    db = open_store(str(tmp_path / "lab.db"))
    seed_series(db, "bench", LABELS, ["g1"], _step(9, 1.03))
    gate = gate_history(load_history(db, "bench"), [parse_condition("wall_s > +3%")])
    db.close()
    [check] = gate.result.checks
    assert check.comparison.ci95 is not None and check.comparison.ci95[0] < 1.03 < check.comparison.ci95[1]
    assert gate.outcome == "inconclusive" and not gate.too_short
    assert gate.exit_code == 3 and gate.exit_code_for("pass") == 0
    proc = run_jvmlab("history", "bench", "--store", "lab.db", "--fail-if", "wall_s > +3%", "--inconclusive",
                      "pass", cwd=tmp_path)
    assert proc.returncode == 0 and "jvmlab history gate: inconclusive" in proc.stdout, proc.stderr


def test_a_load_that_stopped_between_labels_is_inconclusive_not_a_speed_up(store: Store) -> None:
    """Issue 40 items 4 and 8: v06 adds 16.7% of work; at v08 the machine's load stops (run-queue
    delay 0.9 -> 0.1 s per run; half of it on the wall). On wall time the newest change (v08,
    about -25%) is the load, not the code: today "-25% from v08" and the gate passed the real
    regression. Now: "inconclusive: the machine changed at v08", the gate exits 3; the v06 step,
    under the same load on both sides, is still found."""
    labels = [f"v{i:02d}" for i in range(12)]
    seed_series(store, "busy", labels, ["c"], lambda i, c: (1.167 if i >= 6 else 1.0) + (0.45 if i < 8 else 0.05),
                delay=lambda i, c: 0.9 if i < 8 else 0.1)
    history = load_history(store, "busy")
    (cell,) = history.cells
    assert cell.segmentation is not None
    assert [cell.label_at(c.index) for c in cell.segmentation.changes] == ["v06", "v08"]
    assert [cell.label_at(m.index) for m in cell.machine_changes] == ["v08"]
    line = summary_line(cell)
    assert line.startswith("wall_s: inconclusive: the machine changed at v08 (run-queue delay 0.9 -> 0.1 s per run)")
    gate = gate_history(history, [parse_condition("wall_s > +3%")])
    assert gate.outcome == "inconclusive" and gate.exit_code == 3
    assert not gate.result.failed and not gate.result.passed


def test_a_cpu_change_a_busy_machine_could_make_is_inconclusive_where_the_load_changed(store: Store) -> None:
    """bench/busy_truth.py's history series: +50% of work from v03, a load on for v00-v05 that
    raises CPU time 1.5% (shared caches), off from v06. CPU time's v03 step is called; its
    -1.5% at v06, where the run-queue delay fell 0.3 -> 0.01 s per run, is what the machine did:
    "inconclusive: the machine changed at v06", not a change of the program (today: called)."""
    labels = [f"v{i:02d}" for i in range(12)]
    seed_series(store, "cpu", labels, ["c"], lambda i, c: 1.0 + (0.3 if i < 6 else 0.0), sd=0.002,
                delay=lambda i, c: 0.3 if i < 6 else 0.01,
                cpu=lambda i, c: 0.5 * (1.5 if i >= 3 else 1.0) * (1.015 if i < 6 else 1.0))
    (cell,) = load_history(store, "cpu", ["cpu_s"]).cells
    assert cell.segmentation is not None
    assert [cell.label_at(c.index) for c in cell.segmentation.changes] == ["v03", "v06"]
    assert [cell.label_at(m.index) for m in cell.machine_changes] == ["v06"]
    assert summary_line(cell).startswith("cpu_s: inconclusive: the machine changed at v06 (run-queue delay 0.3 -> "
                                         "0.01 s per run); a busy machine moves CPU time by up to 3%")


def test_a_cpu_change_beyond_what_a_busy_machine_does_is_called_though_the_load_changed(store: Store) -> None:
    """The same load change with a 10% CPU step at it: more than contention moves CPU time, called."""
    labels = [f"v{i:02d}" for i in range(12)]
    seed_series(store, "cpu", labels, ["c"], lambda i, c: 1.0 + (0.3 if i < 6 else 0.0), sd=0.002,
                delay=lambda i, c: 0.3 if i < 6 else 0.01, cpu=lambda i, c: 0.5 * (1.1 if i >= 6 else 1.0))
    (cell,) = load_history(store, "cpu", ["cpu_s"]).cells
    assert cell.segmentation is not None
    assert [cell.label_at(c.index) for c in cell.segmentation.changes] == ["v06"]
    assert cell.machine_changes == ()


def test_the_terminal_says_how_many_older_labels_it_left_out(store: Store) -> None:
    from jvmlab.report.history import RECENT_LABELS, render_text
    seed_series(store, "long", LABELS, ["g1"], _step(9, 1.18))
    lines: list[str] = []
    render_text(load_history(store, "long"), lines.append)
    assert f"({len(LABELS) - RECENT_LABELS} older label(s) left out; --json or --html has all)" in "\n".join(lines)
