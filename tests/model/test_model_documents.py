"""Every document kind is a frozen, versioned record: it round-trips, reads the layout jvmlab
stored before documents had versions, and refuses a newer or malformed one in one line."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from documents_old import OLD
from jvmlab.errors import UserError
from jvmlab.model.documents import (
    EXPERIMENT_DOCUMENTS,
    INVOCATION_DOCUMENTS,
    DocumentError,
    FlagEffectDocument,
    GcDocument,
    JfrDocument,
    JfrProfileDocument,
    JvmWarningsDocument,
    MinHeapDocument,
    ProgressDocument,
    ServerNotesDocument,
    SpecHistoryDocument,
    TuneDocument,
)

KINDS = {**EXPERIMENT_DOCUMENTS, **INVOCATION_DOCUMENTS}


def test_every_kind_has_an_old_layout_here_and_one_record_class():
    assert set(OLD) == set(KINDS)
    assert not set(EXPERIMENT_DOCUMENTS) & set(INVOCATION_DOCUMENTS)
    for kind, cls in KINDS.items():
        assert kind == cls.KIND and cls.VERSION >= 1
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen and hasattr(cls, "__slots__")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_old_layout_reads_and_round_trips_with_its_version(kind: str):
    cls = KINDS[kind]
    record = cls.from_json(copy.deepcopy(OLD[kind]))
    stored = record.to_json()
    assert stored["version"] == cls.VERSION
    assert cls.from_json(stored) == record
    assert cls.from_json(stored).to_json() == stored  # the current layout is a fixed point
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(record, dataclasses.fields(record)[0].name, None)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_newer_version_is_refused_in_one_line(kind: str):
    cls = KINDS[kind]
    newer = {**cls.from_json(copy.deepcopy(OLD[kind])).to_json(), "version": cls.VERSION + 1}
    with pytest.raises(UserError) as err:
        cls.from_json(newer)
    assert isinstance(err.value, DocumentError)
    text = str(err.value)
    assert "\n" not in text and repr(kind) in text and "newer than this jvmlab reads" in text


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_malformed_content_is_one_line_not_a_key_error(kind: str):
    cls = KINDS[kind]
    for bad in ({"version": "x"}, {"version": 0}, 7, "text", [1, 2]):
        with pytest.raises(DocumentError) as err:
            cls.from_json(bad)
        assert "\n" not in str(err.value) and repr(kind) in str(err.value)


def test_a_missing_part_is_named():
    broken = {k: v for k, v in OLD["tune"].items() if k != "winner"}
    with pytest.raises(DocumentError, match=r"'tune' document is malformed \(no 'winner'\)"):
        TuneDocument.from_json(broken)


def test_the_tune_record_is_what_apply_and_the_html_read():
    doc = TuneDocument.from_json(copy.deepcopy(OLD["tune"]))
    assert doc.winner.key == "j17|-XX:+UseSerialGC" and doc.winner.run_flags == ("-XX:+UseSerialGC", "-Xshare:auto")
    assert doc.trials[0].ci == (0.85, 0.95) and doc.trials[0].block_range == (0, 3)
    assert doc.confirmations[0].against == {"baseline": (0.9, (0.8, 0.95))}
    assert doc.confirmed_verdict(doc.winner) == "10% faster"
    assert doc.to_json() == {**OLD["tune"], "version": 1}  # the layout itself did not change


def test_the_layouts_that_changed_keep_their_content():
    history = SpecHistoryDocument.from_json(copy.deepcopy(OLD["spec_history"]))
    assert history.changes[0].cells_added == ("j17 gc=g1",) and history.changes[0].replaced_at == 1700000000.5
    minheap = MinHeapDocument.from_json(copy.deepcopy(OLD["minheap"]))
    found = minheap.cells[0].result
    assert found is not None and [p.heap_bytes for p in found.probes] == [64 << 20, 96 << 20]
    assert minheap.cells[1].result is None
    assert minheap.to_json()["cells"]["0"]["result"]["probes"] is None  # the probes are kept once, per cell


def test_the_invocation_documents_typed_after_v5_keep_what_their_readers_use():
    progress = ProgressDocument.from_json(copy.deepcopy(OLD["progress"]))
    assert progress.klass == "warmup" and progress.changepoints_s == (1.25,) and progress.segments[1].windows == 23
    assert progress.to_json()["class"] == "warmup" and "klass" not in progress.to_json()
    unclassified = ProgressDocument.from_json({"class": "unclassified", "reason": "fewer than two progress lines"})
    assert unclassified.steady_rate is None and unclassified.segments == ()
    failed = JfrDocument.from_json({"error": "no recording was written"})
    assert failed.to_json() == {"version": 1, "error": "no recording was written"}  # nothing else was measured
    assert failed.gc_phases_ms is None and failed.missing is None
    jfr = JfrDocument.from_json(copy.deepcopy(OLD["jfr"]))
    assert jfr.gc_phases_ms == {"Pause: Young": 4.5} and jfr.error is None and jfr.fallbacks == ()
    profile = JfrProfileDocument.from_json(copy.deepcopy(OLD["jfr.profile"]))
    assert profile.stacks() == {"cpu": {"main;work;leaf": 30.0, "main;other": 2.0}, "alloc": {"main;alloc": 1048576.0}}
    effects = FlagEffectDocument.from_json(copy.deepcopy(OLD["flag_effect"])).effects  # a bare list in version 1
    assert [(e.flag, e.in_effect) for e in effects] == [("-XX:+AlwaysPreTouch", True),
                                                       ("-XX:+UseTransparentHugePages", False),
                                                       ("-XX:MaxGCPauseMillis=50", None)]
    with pytest.raises(DocumentError, match="in_effect is 'yes'"):
        FlagEffectDocument.from_json([{"flag": "-XX:+UseNUMA", "in_effect": "yes", "evidence": ""}])
    assert JvmWarningsDocument.from_json(copy.deepcopy(OLD["jvm_warnings"])).lines == tuple(OLD["jvm_warnings"])
    notes = ServerNotesDocument.from_json(copy.deepcopy(OLD["server_notes"]))
    assert notes.first_request_why.startswith("not measured")


def test_the_gc_record_types_the_top_and_keeps_the_analyzers_summary():
    doc = GcDocument.from_json(copy.deepcopy(OLD["gc"]))
    assert doc.files == ("/a/gc-4242.log",) and doc.collector == "G1" and doc.gc_log == "light" and doc.readable
    assert doc.summary == OLD["gc"] and "version" not in doc.summary  # what jvmlab.gclog reads, unchanged
    unreadable = GcDocument(("/a/gc-1.log",), "truncated line", None, None, {})
    assert unreadable.to_json() == {"version": 1, "files": ["/a/gc-1.log"], "error": "truncated line"}
    assert not GcDocument.from_json(unreadable.to_json()).readable
    assert not GcDocument.from_json({"files": []}).readable  # nothing summarised: not a log to compare
    with pytest.raises(DocumentError, match="pauses is a list"):
        GcDocument.from_json({**OLD["gc"], "pauses": [1]})
