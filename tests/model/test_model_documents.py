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
    MinHeapDocument,
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
