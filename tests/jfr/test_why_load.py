"""The results layer loads the why part's documents from a real SQLite store into typed
records; the report builds its flame graphs and tables from those records, with no store."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace as NS

from jvmlab.model.collected import Collected
from jvmlab.model.process import ProcessMeasures, ProcessResult, Status
from jvmlab.report.why import build_why, why_json
from jvmlab.results import load_experiment
from jvmlab.results.why import InvocationProfile, JfrNotes, WhyRecords, load_why
from jvmlab.store import open_store
from jvmlab.store.protocol import Store


def _result(status: Status = Status.OK) -> ProcessResult:
    measures = ProcessMeasures(wall_s=1.0, user_s=1.0, sys_s=0.1, max_rss_bytes=1 << 20, minor_faults=1,
                               major_faults=0, vol_ctx_switches=1, invol_ctx_switches=1, ready_s=None)
    return ProcessResult(status, None if status == Status.OK else "exit 1", 0 if status == Status.OK else 1,
                         None, measures, 42, time.time())


def _cell(store: Store, exp: int, idx: int, name: str) -> int:
    return store.add_cell(exp, idx=idx, name=name, jvm="j", jdk={"home": "/j"}, levels={"gc": name},
                          requested_flags=[], flags=[], final_flags={}, argv=None)


def _store(tmp_path: Path) -> tuple[Store, int, int, int]:
    store = open_store(f"sqlite:///{tmp_path / 'lab.db'}")
    exp = store.create_experiment(name="e", spec_text="", spec_hash="h", spec_path=None, fingerprint={}, seed=1,
                                  command_line="jvmlab run", jvmlab_version="0", artifacts_dir=str(tmp_path))
    return store, exp, _cell(store, exp, 0, "G1"), _cell(store, exp, 1, "ZGC")


def _record(store: Store, exp: int, cell: int, block: int, documents: dict, status: Status = Status.OK) -> int:
    return store.record_invocation(exp, cell, block=block, position=0, result=_result(status),
                                   collected=Collected(documents=documents), argv=["java"], artifacts_dir=None)


def test_load_why_types_the_documents_of_successful_invocations(tmp_path: Path) -> None:
    store, exp, g1, zgc = _store(tmp_path)
    a = _record(store, exp, g1, 0, {"jfr.profile": {"cpu": {"main;work": 3}, "alloc": {}},
                                    "jfr": {"gc_phases_ms": {"Pause: Young": 4}, "missing": {}}})
    b = _record(store, exp, zgc, 0, {"jfr": {"error": "no recording was written"}})
    _record(store, exp, zgc, 1, {"jfr.profile": {"cpu": {"main;lost": 1}}}, status=Status.FAILED)
    _record(store, exp, g1, 1, {"jfr": ["not", "a", "mapping"]})
    records = load_why(store, exp)
    # A report passes the invocations it loaded already: the same records, no second read of them.
    loaded = load_experiment(store, exp, documents=False).invocations
    assert load_why(store, exp, loaded) == records
    store.close()
    assert records.experiment_id == exp and len(records.invocations) == 4
    assert records.profiles == (InvocationProfile(a, g1, {"cpu": {"main;work": 3.0}, "alloc": {}}),)
    assert records.jfr == (JfrNotes(a, g1, {"Pause: Young": 4.0}, {}, None),
                           JfrNotes(b, zgc, None, {}, "no recording was written"))


def test_build_why_merges_each_cells_profiles_and_diffs_against_the_baseline() -> None:
    cells = [NS(id=1, name="base"), NS(id=2, name="other")]
    invs = tuple(NS(id=i, cell_id=c, status="ok", value=lambda _k: None) for i, c in ((1, 1), (2, 1), (3, 2)))
    profiles = (InvocationProfile(1, 1, {"cpu": {"main;a": 6.0}, "alloc": {}}),
                InvocationProfile(2, 1, {"cpu": {"main;a": 2.0, "main;b": 2.0}, "alloc": {}}),
                InvocationProfile(3, 2, {"cpu": {"main;b": 8.0}, "alloc": {}}))
    summary = NS(cells=[NS(cell=c, stats={}) for c in cells], baseline="base")
    part = build_why(summary, WhyRecords(7, invs, profiles, ()))  # type: ignore[arg-type]
    assert part.profiles.stacks["base"]["cpu"] == {"main;a": 8.0, "main;b": 2.0}
    assert part.profiles.invocations == {"base": 2, "other": 1}
    [cpu] = [d for d in part.diffs if d.kind == "cpu"]
    assert cpu.cell == "other" and cpu.grew[0].frame == "b"  # the leaf frame
    assert why_json(summary, WhyRecords(7, invs)) == {}  # no profile, no startup, no jfr: no why part


def test_the_why_scenario_names_the_grown_frame_from_a_real_store(tmp_path: Path) -> None:
    # G1 (baseline) spends 8 of 10 samples in a, ZGC 8 of 10 in b: b grew by 60 percentage points.
    from jvmlab.report.summary import summarize
    from jvmlab.scenarios.why import frame_changes

    store, exp, g1, zgc = _store(tmp_path)
    store.set_baseline(exp, 0)
    for block in range(3):
        _record(store, exp, g1, block, {"jfr.profile": {"cpu": {"main;a": 8, "main;b": 2}, "alloc": {}}})
        _record(store, exp, zgc, block, {"jfr.profile": {"cpu": {"main;a": 2, "main;b": 8}, "alloc": {}}})
    summary = summarize(store, exp)
    assert frame_changes(summary, store) == ["ZGC: +60.0 pp [+60.0 … +60.0] of samples in b"]
    store.close()


def test_the_why_scenario_skips_a_growth_that_resampling_undoes(tmp_path: Path) -> None:
    # ZGC's x is 90 of 100 samples in one invocation and absent from the other two: the largest
    # pooled growth (+75 pp), but a third of the resamples have none of it. y is in every ZGC
    # invocation (+16.7 pp, interval above zero): y is the frame named.
    from jvmlab.report.summary import summarize
    from jvmlab.scenarios.why import frame_changes

    store, exp, g1, zgc = _store(tmp_path)
    store.set_baseline(exp, 0)
    zgc_runs = [{"main;x": 90, "main;y": 10}, {"main;a": 5, "main;y": 5}, {"main;a": 5, "main;y": 5}]
    for block, run in enumerate(zgc_runs):
        _record(store, exp, g1, block, {"jfr.profile": {"cpu": {"main;a": 8, "main;b": 2}, "alloc": {}}})
        _record(store, exp, zgc, block, {"jfr.profile": {"cpu": run, "alloc": {}}})
    summary = summarize(store, exp)
    (phrase,) = frame_changes(summary, store)
    assert phrase.startswith("ZGC: +16.7 pp [+") and phrase.endswith("of samples in y"), phrase
    store.close()


def test_the_why_verdict_uses_the_runs_metric_and_its_verdict_sentence(tmp_path: Path) -> None:
    """One metric, one rule: the scenario's conclusion is the run's own verdict on the run's metric."""
    from jvmlab.plan.metric_choice import MetricChoice, remember_metric
    from jvmlab.report.summary import summarize
    from jvmlab.scenarios.gc import FALLBACK
    from jvmlab.scenarios.why import verdict

    store, exp, g1, zgc = _store(tmp_path)
    store.set_baseline(exp, 0)
    remember_metric(store, exp, MetricChoice(FALLBACK, "scenario why: mean throughput"))
    for block in range(3):
        for cell, mean, steady in ((g1, 1200.0 + block, 1250.0), (zgc, 140.0 + block, 150.0)):
            store.record_invocation(exp, cell, block=block, position=0, result=_result(),
                                    collected=Collected(metrics={FALLBACK: mean, "progress.steady_rate": steady},
                                                        metric_units={FALLBACK: "chunks/s",
                                                                      "progress.steady_rate": "chunks/s"}),
                                    argv=["java"], artifacts_dir=None)
    summary = summarize(store, exp)
    assert summary.metric == FALLBACK
    said = verdict(summary, store)
    assert said.conclusion.startswith(summary.verdicts["ZGC"].rstrip(".") + ".")
    assert "mean throughput" in said.title
    store.close()
