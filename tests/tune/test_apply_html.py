"""`apply` text and the tuning HTML from a stored result document (hostile text escaped)."""

import pytest

from jvmlab.errors import UserError
from jvmlab.model.documents import TuneDocument
from jvmlab.report.tune_html import tune_html
from jvmlab.tune.apply import apply_text

DOC = {
    "objectives": [{"metric": "wall_s", "minimize": True}],
    "trials": [{"number": 0, "config": {"jvm": "default",
                                       "flags": ["-XX:+UseSerialGC", "-Dx=</script><script>alert(1)</script>"]},
                "state": "promoted", "blocks": 4, "ratio": 0.9, "ci": [0.85, 0.95], "estimate": [1.0],
                "reason": None, "best_after": 1.0, "best_ci": [0.95, 1.05]}],
    "winner": {"values": {}, "jvm": "default",
               "flags": ["-XX:+UseSerialGC", "-XX:SharedArchiveFile=/tmp/app.jsa", "-Dq=\"x y\""],
               "run_flags": ["-XX:+UnlockDiagnosticVMOptions", "-XX:+UseSerialGC",
                             "-XX:SharedArchiveFile=/tmp/app.jsa", "-Dq=\"x y\""]},
    "baseline": {"values": {}, "jvm": "default", "flags": []},
    "pareto": [],
    "confirmations": [{"label": "winner", "config": {"jvm": "default",
                                                     "flags": ["-XX:+UseSerialGC", "-XX:SharedArchiveFile=/tmp/app.jsa",
                                                               "-Dq=\"x y\""]},
                       "blocks": 12, "verdicts": {"baseline": "12.4% faster (95% CI 10.1% ... 14.6%)"}}],
    "importances": {"gc": 0.8, "<b>heap</b>": 0.2}, "invocations": 40, "hazards": ["<i>busy</i>"],
}


def rec(doc):
    """The stored JSON as the record the readers take (today's unversioned layout)."""
    return TuneDocument.from_json(doc)


def test_apply_prints_every_deployment_form_with_unlocks_and_archive_commands():
    text = apply_text(rec(DOC), "/jdk/bin/java", ["-cp", "/app", "Main"], 3)
    assert "12.4% faster" in text
    assert "needs unlocking (-XX:+UnlockDiagnosticVMOptions)" in text
    assert "/jdk/bin/java -XX:+UnlockDiagnosticVMOptions -XX:+UseSerialGC" in text
    assert "# export JAVA_TOOL_OPTIONS='-XX:+UnlockDiagnosticVMOptions" in text and "\nexport JDK_JAVA_OPTIONS=" in text
    assert "ONE of these two" in text and "Picked up JAVA_TOOL_OPTIONS" in text  # never both, and the cost said
    assert 'ENV JAVA_TOOL_OPTIONS="-XX:+UnlockDiagnosticVMOptions -XX:+UseSerialGC' in text and '\\"x y\\"' in text
    assert "[Service]\nEnvironment=\"JAVA_TOOL_OPTIONS=" in text
    assert "-XX:ArchiveClassesAtExit=/tmp/app.jsa -cp /app Main" in text


def test_apply_without_a_tune_result_is_a_user_error():
    with pytest.raises(UserError, match="not a tuning run"):
        apply_text(None, "java", [], 7)


def test_html_has_history_and_importances_and_escapes_everything():
    page = tune_html(rec(DOC), "<t>")
    assert "Optimisation history" in page and "Parameter importances" in page and "12.4% faster" in page
    assert "<script>alert(1)" not in page and "<i>busy</i>" not in page and "&lt;t&gt;" in page


def test_html_trial_table_marks_a_drift_trial_with_its_reason_and_blocks_escaped():
    drift = {"number": 1, "config": {"jvm": "default", "flags": ["-XX:+UseParallelGC", "-Dy=<b>bold</b>"]},
             "state": "drift",
             "blocks": 6, "ratio": 0.8, "ci": [0.7, 0.9], "estimate": [0.8], "block_range": [5, 10],
             "reason": "measured during drift: the machine's level moved +40% (step after block 3, p = 0.0003)",
             "best_after": 1.0, "best_ci": None}
    page = tune_html(rec({**DOC, "trials": [*DOC["trials"], drift]}), "t")
    row = page[page.index("class='state-drift "):]
    row = row[:row.index("</tr>")]
    assert "-Dy=&lt;b&gt;bold&lt;/b&gt;" in row and "<b>bold</b>" not in row
    assert "not promoted: measured during drift: the machine&#x27;s level moved +40% (step after block 3" in row
    assert "6 (blocks 5-10)" in row and ">drift<" in row
    assert "1 trial looked better but was measured while the machine drifted" in page


def test_html_trial_table_marks_undecided_and_combined_trials():
    """A trial cut by the budget is shown undecided with its interval (never "not-better"), and
    the combined candidate says what it is."""
    cut = {"number": 1, "config": {"jvm": "default", "flags": ["-XX:+UseParallelGC"]}, "state": "undecided (budget)",
           "blocks": 3, "ratio": 0.93, "ci": [0.85, 1.02], "estimate": [0.93], "reason": "the budget ran out",
           "best_after": 1.0, "best_ci": None}
    both = {"number": 2, "config": {"jvm": "default", "flags": ["-XX:+UseParallelGC", "-Xmx1g"]},
            "state": "promoted", "blocks": 5, "ratio": 0.8, "ci": [0.75, 0.85], "estimate": [0.8],
            "reason": None, "best_after": 0.8, "best_ci": None, "origin": "combined"}
    page = tune_html(rec({**DOC, "trials": [*DOC["trials"], cut, both]}), "t")
    row = page[page.index("class='state-undecided origin-search'"):]
    row = row[:row.index("</tr>")]
    assert ">undecided (budget)<" in row and "0.930 (0.850..1.020)" in row and "background:#fff4e0" in row
    assert "1 trial stopped by the budget or the block cap before the race could decide" in page
    combined = page[page.index("origin-combined"):]
    combined = combined[:combined.index("</tr>")]
    assert "combined: the best level of each parameter, raced as one" in combined and ">promoted<" in combined
    assert "1 trial put the best level of each parameter together" in page
    plain = tune_html(rec(DOC), "t")
    assert "undecided" not in plain and "origin-combined" not in plain


def test_html_trial_table_from_a_real_drift_race(tmp_path):
    """A race on the simulated machine that slows by 40% mid-race: the stored document's trial
    reaches the HTML as drift (end to end through the engine and the result document)."""
    import dataclasses

    from jvmlab.tune.engine import tune
    from jvmlab.tune.flow import result_document
    from jvmlab.tune.sim import SimMeasurer, sim_config
    from jvmlab.tune.space import Budget

    cfg = dataclasses.replace(sim_config(), guardrails=(), budget=Budget(6, None, None), seed=3)
    result = tune(cfg, SimMeasurer(3, drift=0.01, step=(6, 1.4)), "default", do_confirm=False)
    doc = result_document(cfg, result)
    drifted = [t for t in doc.trials if t.state == "drift"]
    page = tune_html(doc, "t")
    assert all(t.block_range and t.block_range[1] - t.block_range[0] + 1 >= t.blocks
               for t in doc.trials if t.blocks)
    for t in drifted:
        assert t.block_range is not None
        assert f"blocks {t.block_range[0]}-{t.block_range[1]}" in page
    assert drifted, [(t.state, t.reason) for t in doc.trials]
    assert "not promoted: measured during drift" in page


def test_apply_turns_a_preparation_mark_into_the_archive_flag_and_its_build_command():
    doc = {**DOC, "winner": {"values": {}, "jvm": "default", "flags": ["-XX:+UseSerialGC", "@cds-archive"]},
           "confirmations": []}
    text = apply_text(rec(doc), "/jdk/bin/java", ["-cp", "/app.jar", "Main"], 3)
    assert "@cds-archive" not in text.split("\n", 1)[1]  # only the header names the configuration
    assert "/jdk/bin/java -XX:+UseSerialGC -XX:SharedArchiveFile=app.jsa -cp /app.jar Main" in text
    assert "-XX:ArchiveClassesAtExit=app.jsa -cp /app.jar Main" in text


def _doc_with(flags, objective="wall_s"):
    return rec({**DOC, "objectives": [{"metric": objective, "minimize": True}],
            "winner": {"values": {}, "jvm": "default", "flags": flags}, "confirmations": []})


def test_apply_warns_when_the_winner_trades_peak_performance_for_a_startup_objective():
    text = apply_text(_doc_with(["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"], "ready_s"), "java", [], 4)
    warnings = [line for line in text.splitlines() if line.startswith("# WARNING: ")]
    assert len(warnings) == 1 and "-XX:TieredStopAtLevel=1" in warnings[0] and "ready_s" in warnings[0]
    assert "long-running server" in warnings[0]
    assert "WARNING" not in apply_text(_doc_with(["-XX:TieredStopAtLevel=4", "-XX:+UseSerialGC"]), "java", [], 4)
    # measured on a steady-state throughput objective, the trade is what was measured: no warning
    assert "WARNING" not in apply_text(_doc_with(["-XX:TieredStopAtLevel=1"], "jmh.score"), "java", [], 4)


def test_apply_without_an_id_uses_the_latest_tuning_experiment(tmp_path):
    from cli_runner import run_jvmlab
    from jvmlab.store import open_store

    store = open_store(str(tmp_path / "lab.db"))
    for n, flags in enumerate((["-XX:+UseSerialGC"], ["-XX:+UseParallelGC"], None)):
        exp = store.create_experiment(name=f"e{n}", spec_text="", spec_hash=f"h{n}", spec_path=None, fingerprint={},
                                      seed=1, command_line="", jvmlab_version="t", artifacts_dir=str(tmp_path))
        if flags is not None:  # the third is a plain run, newer than both tuning runs
            store.put_record(exp, _doc_with(flags))
    store.close()
    proc = run_jvmlab("apply", "--store", "lab.db", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "latest tuning experiment, 2" in proc.stderr and "-XX:+UseParallelGC" in proc.stdout
    assert "-XX:+UseSerialGC" not in proc.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    open_store(str(empty / "lab.db")).close()
    proc = run_jvmlab("apply", "--store", "lab.db", cwd=empty)
    assert proc.returncode == 2 and "no tuning experiment" in proc.stderr and proc.stderr.count("\n") == 1


def test_the_winners_reason_is_stored_and_shown_escaped():
    """A winner that is no promoted incumbent (the tuner's ahead-at-the-end pick) keeps its
    reason through the record and the page; one-factor moves are named in the origin column."""
    why = "the search stopped while <b>t3</b> was ahead of the incumbent at 95%"
    move = {**DOC["trials"][0], "number": 1, "origin": "coordinate"}
    doc = rec({**DOC, "winner_why": why, "trials": [*DOC["trials"], move]})
    assert TuneDocument.from_json(doc.to_json()).winner_why == why
    page = tune_html(doc, "t")
    assert "Winner: the search stopped while &lt;b&gt;t3&lt;/b&gt; was ahead" in page
    assert "one-factor move: one parameter changed from the incumbent" in page
    assert "Winner:" not in tune_html(rec(DOC), "t")
