"""Compare with what other analyzers' own tests assert about real logs (../shared/gclogs).

Each source counts in its own way (EXPECTED.tsv `notes`); ``ours()`` maps our summary onto
that convention. Rows we cannot match are listed in KNOWN_MISMATCHES with the reason and
run as strict expected failures, so a fixed one must be moved out of the list and a
matched one that regresses fails. Run as a script to print the match rate per source.
"""

from __future__ import annotations

import csv
import math
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from jvmlab.gclog import analyze_paths, iter_events

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("JVMLAB_GCLOGS", REPO.parent / "shared" / "gclogs"))
EXPECTED = SHARED / "EXPECTED.tsv"

GCV_ZGC = "GCViewer counts ZGC cycle/phase lines as pauses; we count only the three STW pauses"
GCV_SIZE = "GCViewer's model size also counts each concurrent phase line as an event"
KNOWN_MISMATCHES: dict[tuple[str, str], str] = {
    ("sample-ujl-zgc-gc-all.txt", "gc_pause_count(non-full STW)"): GCV_ZGC,
    ("sample-ujl-zgc-gc-other.txt", "gc_pause_count(non-full STW)"): GCV_ZGC,
    ("sample-ujl-zgc-gc-all.txt", "gcviewer_model_size"): GCV_SIZE,
    ("sample-ujl-zgc-gc-other.txt", "gcviewer_model_size"): GCV_SIZE,
    ("sample-ujl-g1-gc-defaults.txt", "gcviewer_model_size"): GCV_SIZE,
    ("sample-ujl-g1-gc-all,safepoint,os+cpu.txt", "gcviewer_model_size"): GCV_SIZE,
    ("sample-ujl-jdk17-full-concurrent-cycle-g1-gc-all-safepont,os-cpu.txt", "gcviewer_model_size"): GCV_SIZE,
    ("sample-ujl-cms-gc-defaults.txt", "gcviewer_model_size"): GCV_SIZE,
    ("sample-ujl-parallel-gc-all,safepoint,os+cpu.txt", "gcviewer_model_size"):
        "GCViewer also counts safepoint VM operations into the model",
    ("sample-ujl-serial-gc-all,safepoint,os+cpu.txt", "gcviewer_model_size"):
        "GCViewer also counts safepoint VM operations into the model",
    ("SampleShenandoahSeveralSystemGC.txt", "gcviewer_model_size"):
        "GCViewer adds a safepoint/VM-op event per full GC (878 = 2 x 438 + 2)",
    ("Sample-ujl-shenandoah-jdk11.txt", "gcviewer_model_size"): GCV_SIZE,
    ("Sample-ujl-shenandoah-jdk17.txt", "gcviewer_model_size"): GCV_SIZE,
    ("SampleSun1_8_0G1_ConcurrentCycle.txt", "gcviewer_model_size"): GCV_SIZE,
    ("SampleSun1_8_0G1PrintGCID.txt", "gcviewer_model_size"): GCV_SIZE,
    ("SampleSun1_8_0CmsPrintGcId.txt", "gcviewer_model_size"): GCV_SIZE,
    ("SampleSun1_7_0_51_G1_PrintApplicationTimeTenuringDistribution.txt", "gcviewer_model_size"):
        "GCViewer adds the two 'application stopped' VM operations to the model",
    ("SampleOpenJdk1_8_0-332.txt", "gcviewer_model_size"):
        "GCViewer's model size also counts each concurrent phase line as an event (JDK 8 Shenandoah)",
    ("sample-ujl-zgc-gc-other.txt", "max_heap_total_kb"):
        "GCViewer takes ZGC's capacity at Mark Start (3884M); ours is the largest capacity in the "
        "cycle's heap table (its High column, 3954M: the heap grew during the cycle)",
    ("jdk11_details.log.zip", "gctoolkit_event_count:G1GCConcurrentMark"):
        "GCToolKit counts 4 concurrent marks that were aborted (no 'Concurrent Cycle N ms' end line)",
}


def _rows() -> list[dict[str, str]]:
    if not EXPECTED.is_file():
        return []
    with EXPECTED.open(newline="") as fh:
        return [r for r in csv.DictReader(fh, delimiter="\t") if r.get("file")]


@cache
def _summary(file: str) -> dict[str, Any]:
    return analyze_paths([SHARED / file])[0].to_json()


@cache
def _events(file: str) -> tuple[Any, ...]:
    return tuple(iter_events(SHARED / file))


def _first_pause(file: str, pred: Any) -> float | None:
    for e in _events(file):
        if e.type == "pause" and pred(e):
            return e.duration_ms
    return None


def _phase_count(s: dict[str, Any], name: str) -> int | None:
    phases = s["concurrent_phases"]
    return None if phases is None else (phases.get(name) or {}).get("count", 0)


# GCToolKit's event types for G1: one per pause type (a "Prepare Mixed" young pause is a
# Young), and the concurrent phases it models (it emits "Cleanup for Next Mark" twice, as
# G1GCConcurrentCleanup and ConcurrentCleanupForNextMark).
_GCTOOLKIT_PHASES = {"phase:Concurrent Mark": 1, "phase:Concurrent Scan Root Regions": 1,
                     "phase:Concurrent Clear Claimed Marks": 1, "phase:Concurrent Cleanup for Next Mark": 2}


def _gctoolkit_types(s: dict[str, Any]) -> int | None:
    names = (s["event_types"] or {}).get("names")
    if names is None:
        return None
    pauses = {n.replace("(Prepare Mixed)", "(Normal)") for n in names if n.startswith("pause:")}
    return len(pauses) + sum(_GCTOOLKIT_PHASES.get(n, 0) for n in names)


def _gcviewer_span(s: dict[str, Any]) -> float:
    """Our span on GCViewer's basis (first event start to last event end, one JVM run)."""
    return s["span_s"] - (s["first_event_s"] if s["span_from"] == "jvm_start" else 0.0)


def ours(file: str, metric: str) -> float | None:
    """Our figure under the source tool's convention, or None when there is no mapping."""
    s = _summary(file)
    p, kinds = s["pauses"], (s["pauses"]["by_kind"] or {})
    n = {k: (v or {}).get("count", 0) for k, v in kinds.items()}
    cycles = s["concurrent_cycles"]["count"]
    start = sum(1 for e in _events(file) if e.type == "pause" and "Concurrent Start" in e.name)
    table: dict[str, Any] = {
        # GCViewer reads a unified G1 "To-space exhausted" line as one more pause.
        "gc_pause_count(non-full STW)": lambda: (p["count"] or 0) - n.get("full", 0) + (
            ((s["failures"] or {}).get("to-space exhausted") or {}).get("count", 0) if s["format"] == "unified" else 0),
        "full_gc_pause_count": lambda: n.get("full"),
        "full_gc_footprint_count": lambda: n.get("full"),
        "vm_operation_pause_count": lambda: (s["safepoints"] or {}).get("count"),
        "gcviewer_model_size": lambda: (p["count"] or 0) + cycles,
        "total_pause_time_s": lambda: p["total_ms"] / 1000.0,
        "full_gc_pause_time_s": lambda: kinds["full"]["total_ms"] / 1000.0,
        "max_pause_s": lambda: p["max_ms"] / 1000.0,
        # GCViewer's running time starts at the first event (legacy stamps: its start); our
        # span starts at the JVM start when the log has uptime (test_span.py)
        "throughput_pct": lambda: 100.0 * (1 - p["total_ms"] / 1000.0 / _gcviewer_span(s)),
        "total_runtime_s": lambda: _gcviewer_span(s),
        "first_pause_s": lambda: _first_pause(file, lambda e: True) / 1000.0,
        "concurrent_cycle_duration_s": lambda: s["concurrent_cycles"]["total_ms"] / 1000.0,
        "jifa_gc_events": lambda: n["young"] + n["mixed"] + n["full"] + n["other"] * 0 + cycles,
        "young_gc_pause_ms": lambda: _first_pause(file, lambda e: e.kind == "young"),
        "first_young_gc_duration_ms": lambda: _first_pause(file, lambda e: e.kind == "young"),
        "full_gc_pause_ms": lambda: _first_pause(file, lambda e: e.kind == "full"),
        "safepoints": lambda: (s["safepoints"] or {}).get("count"),
        "zgc_cycle_duration_ms": lambda: s["concurrent_cycles"]["total_ms"],
        "pause_mark_start_ms": lambda: _first_pause(file, lambda e: "Mark Start" in e.name),
        "allocation_stalls": lambda: s["stalls"]["count"],
        "gctoolkit_event_count:Young": lambda: n["young"] - start,
        "gctoolkit_event_count:G1GCYoungInitialMark": lambda: start + n["initial_mark"],
        "gctoolkit_event_count:Mixed": lambda: n["mixed"],
        "gctoolkit_event_count:Full": lambda: n["full"],
        "gctoolkit_event_count:G1GCRemark": lambda: n["remark"],
        "gctoolkit_event_count:G1GCCleanup": lambda: n["cleanup"],
        "gctoolkit_event_count:G1GCConcurrentMark": lambda: cycles,
        "gctoolkit_event_count:ConcurrentRootRegionScan": lambda: cycles,
        "gctoolkit_event_count:ConcurrentClearClaimedMarks": lambda: cycles,
        "gctoolkit_event_count:PSYoungGen": lambda: n["young"],
        "gctoolkit_event_count:DefNew": lambda: n["young"],
        "gctoolkit_event_count:FullGC(incl PSFull)": lambda: n["full"],
        "gctoolkit_event_count:SystemGC": lambda: sum(
            1 for e in _events(file) if e.type == "pause" and e.cause == "System.gc()"),
        "gctoolkit_event_count:G1GCConcurrentCleanup": lambda: _phase_count(s, "Concurrent Cleanup for Next Mark"),
        "gctoolkit_event_count:ConcurrentCleanupForNextMark":
            lambda: _phase_count(s, "Concurrent Cleanup for Next Mark"),
        "gctoolkit_distinct_event_types": lambda: _gctoolkit_types(s),
        "concurrent_event_types": lambda: sum(1 for n in (s["event_types"] or {}).get("names", [])
                                              if n.startswith(("cycle:", "phase:"))),
        "max_heap_total_kb": lambda: None if s["heap_max_mb"]["committed"] is None
        else s["heap_max_mb"]["committed"] * 1024,
    }
    fn = table.get(metric)
    return None if fn is None else fn()


def _close(a: float, b: float, unit: str) -> bool:
    if unit in ("events", "count", "KB"):
        return a == b
    tol = {"s": 2e-3, "ms": 1e-3, "%": 0.05}.get(unit, 1e-6)
    return math.isclose(a, b, rel_tol=1e-3, abs_tol=tol)


def _source(file: str) -> str:
    return file.split("/", 1)[0]


def _params() -> list[Any]:
    rows = _rows()
    if not rows:
        return [pytest.param(None, id="no-shared-gclogs")]
    out = []
    for r in rows:
        key = (Path(r["file"]).name, r["metric"])
        marks = []
        if key in KNOWN_MISMATCHES:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_MISMATCHES[key] or "see list"))
        out.append(pytest.param(r, id=f"{key[0]}:{key[1]}", marks=marks))
    return out


def compare(row: dict[str, str]) -> tuple[bool | None, float | None]:
    """(matched, our value); matched is None when the metric has no mapping."""
    value = ours(row["file"], row["metric"])
    if value is None:
        return None, None
    return _close(float(value), float(row["value"]), row["unit"]), float(value)


@pytest.mark.parametrize("row", _params())
def test_matches_source_tool(row: dict[str, str] | None) -> None:
    if row is None:
        pytest.skip(f"no shared GC logs at {SHARED} (set JVMLAB_GCLOGS)")
    matched, value = compare(row)
    if matched is None:
        pytest.skip(f"no mapping for metric {row['metric']}")
    assert matched, f"{row['file']} {row['metric']}: expected {row['value']}, ours {value}"


def match_rates() -> dict[str, tuple[int, int, int]]:
    """source -> (matched, comparable, total asserted values)."""
    rates: dict[str, list[int]] = {}
    for row in _rows():
        matched, _ = compare(row)
        entry = rates.setdefault(_source(row["file"]), [0, 0, 0])
        entry[2] += 1
        if matched is None:
            continue
        entry[0] += int(matched)
        entry[1] += 1
    return {k: (v[0], v[1], v[2]) for k, v in rates.items()}


def test_match_rate_per_source() -> None:
    if not EXPECTED.is_file():
        pytest.skip(f"no shared GC logs at {SHARED}")
    rates = match_rates()
    for source, (hit, comparable, total) in sorted(rates.items()):
        print(f"{source}: {hit} matched / {comparable} comparable / {total} asserted")
    assert sum(r[0] for r in rates.values()) >= 0.75 * sum(r[1] for r in rates.values())


if __name__ == "__main__":
    print(f"{'source':24s} matched / comparable / total asserted")
    for source, (hit, comparable, total) in sorted(match_rates().items()):
        print(f"{source:24s} {hit:3d} / {comparable:3d} / {total:3d}  ({100.0 * hit / comparable:5.1f}% of comparable)")
    for row in _rows():
        matched, value = compare(row)
        if matched is False:
            print(f"MISMATCH {Path(row['file']).name} {row['metric']} expected={row['value']} ours={value}",
                  file=sys.stderr)
