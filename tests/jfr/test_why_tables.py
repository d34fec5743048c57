"""The why section's tables from loaded jfr notes: GC phases per cell, missing reasons."""

from __future__ import annotations

from types import SimpleNamespace as NS

from jvmlab.report.why import gc_phase_rows, missing_reasons
from jvmlab.results.why import JfrNotes


def _summary():
    cells = [NS(cell=NS(id=1, name="G1")), NS(cell=NS(id=2, name="ZGC"))]
    return NS(cells=cells)


def _note(id_: int, cell: int, phases: dict | None = None, missing: dict | None = None,
          error: str | None = None) -> JfrNotes:
    return JfrNotes(id_, cell, phases, missing or {}, error)


def test_gc_phases_are_means_per_invocation_longest_first() -> None:
    notes = [_note(1, 1, {"Pause: Young": 10.0}), _note(2, 1, {"Pause: Young": 30.0}),
             _note(3, 2, {"Concurrent: Mark": 500.0})]
    header, rows = gc_phase_rows(_summary(), notes)
    assert header == ["GC phase (JFR event: phase)", "G1", "ZGC"]
    assert rows == [["Concurrent: Mark", "0.0", "500.0"], ["Pause: Young", "20.0", "0.0"]]


def test_an_invocation_without_a_phase_table_does_not_dilute_the_mean() -> None:
    notes = [_note(1, 1, {"Pause: Young": 10.0}), _note(2, 1, None, error="no recording was written")]
    _, rows = gc_phase_rows(_summary(), notes)
    assert rows == [["Pause: Young", "10.0", "-"]]


def test_missing_reasons_are_counted_per_cell() -> None:
    notes = [_note(1, 1, missing={"jfr.cpu_jvm_share": "no jdk.CPULoad event"}),
             _note(2, 1, missing={"jfr.cpu_jvm_share": "no jdk.CPULoad event"}),
             _note(3, 2, error="no recording was written")]
    assert missing_reasons(_summary(), notes) == [
        "G1: jfr.cpu_jvm_share: no jdk.CPULoad event (2 invocations)",
        "ZGC: all jfr metrics: no recording was written (1 invocation)"]
