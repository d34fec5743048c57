"""The why section's tables from stored jfr documents: GC phases per cell, missing reasons."""

from __future__ import annotations

from types import SimpleNamespace as NS

from jvmlab.report.why import gc_phase_rows, missing_reasons


def _summary():
    cells = [NS(cell=NS(id=1, name="G1")), NS(cell=NS(id=2, name="ZGC"))]
    return NS(cells=cells)


def _inv(id_: int, cell: int) -> NS:
    return NS(id=id_, cell_id=cell, status="ok")


def test_gc_phases_are_means_per_invocation_longest_first() -> None:
    ok = [_inv(1, 1), _inv(2, 1), _inv(3, 2)]
    docs = {1: {"gc_phases_ms": {"Pause: Young": 10.0}}, 2: {"gc_phases_ms": {"Pause: Young": 30.0}},
            3: {"gc_phases_ms": {"Concurrent: Mark": 500.0}}}
    header, rows = gc_phase_rows(_summary(), docs, ok)
    assert header == ["GC phase (JFR event: phase)", "G1", "ZGC"]
    assert rows == [["Concurrent: Mark", "0.0", "500.0"], ["Pause: Young", "20.0", "0.0"]]


def test_missing_reasons_are_counted_per_cell() -> None:
    ok = [_inv(1, 1), _inv(2, 1), _inv(3, 2)]
    docs = {1: {"missing": {"jfr.cpu_jvm_share": "no jdk.CPULoad event"}},
            2: {"missing": {"jfr.cpu_jvm_share": "no jdk.CPULoad event"}},
            3: {"error": "no recording was written"}}
    assert missing_reasons(_summary(), docs, ok) == [
        "G1: jfr.cpu_jvm_share: no jdk.CPULoad event (2 invocations)",
        "ZGC: all jfr metrics: no recording was written (1 invocation)"]
