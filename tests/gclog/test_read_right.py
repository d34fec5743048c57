"""GC logs read where a reader would (issue 31 item 14): a rotated G1 file without its header,
the collector named by its pauses, a JDK 8 record interrupted by another, and `gc compare`
with 3 logs a side. Each case failed before its fix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from jvmlab.gclog import analyze_paths, iter_events
from jvmlab.gclog.compare import CI_T, INCONCLUSIVE, METRICS, WORSE, compare_metric
from jvmlab.report import gccompare

# A G1 -Xlog:gc* file rotated mid-run: no "Using G1" header, and G1's debug line
# "Concurrent refinement times: ... 0.00ms" with each pause, which ends in a duration.
_REFINE = ("[{t}s][debug][gc,ergo,refine] GC({n}) Concurrent refinement times: Logged Cards Scan time goal: "
           "20.00ms Logged Cards Scan time: 0.07ms HCC time: 0.00ms")
_PAUSE = "[{t}s][info ][gc          ] GC({n}) Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(256M) 3.000ms"


def _rotated_g1(pauses: int) -> str:
    lines = []
    for i in range(pauses):
        t0 = 3600.0 + i
        lines.append(f"[{t0:.3f}s][info ][gc,start    ] GC({i + 40}) Pause Young (Normal) (G1 Evacuation Pause)")
        lines.append(_REFINE.format(t=f"{t0 + 0.002:.3f}", n=i + 40))
        lines.append(_PAUSE.format(t=f"{t0 + 0.003:.3f}", n=i + 40))
    return "\n".join(lines) + "\n"


@pytest.fixture(params=["1", "0"], ids=["compiled-filter", "python"])
def native(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("JVMLAB_GCLOG_NATIVE", request.param)
    return str(request.param)


def test_rotated_g1_without_header_has_no_fake_cycles(tmp_path: Path, native: str) -> None:
    log = tmp_path / "gc.log.3"
    log.write_text(_rotated_g1(5))
    [s] = analyze_paths([log])
    doc = s.to_json()
    assert doc["collector"] == "G1"
    assert doc["pauses"]["count"] == 5
    assert doc["concurrent_cycles"]["count"] == 0  # was one zero-length cycle per refinement line
    assert doc["concurrent_phases"] is None
    assert doc["first_event_s"] == pytest.approx(3600.003)  # the first pause, not a refinement line
    assert all(e.type == "pause" for e in iter_events(log))


@pytest.mark.parametrize(("pause", "collector"), [
    ("Pause Young (Normal) (G1 Evacuation Pause) 24M->4M(256M) 3.000ms", "G1"),
    ("Pause Young (G1 Evacuation Pause) 24M->4M(256M) 3.000ms", "G1"),  # JDK 9
    ("Pause Init Mark (unload classes) 0.321ms", "Shenandoah"),
    ("Pause Mark Start 0.021ms", "ZGC"),
    ("Pause Full (Ergonomics) 64M->10M(245M) 30.000ms", "Parallel"),
    ("Pause Young (Allocation Failure) 64M->1M(245M) 5.000ms", None),  # Parallel, Serial or CMS
])
def test_collector_named_by_its_pauses(tmp_path: Path, pause: str, collector: str | None) -> None:
    log = tmp_path / "gc.log.1"
    log.write_text(f"[5.100s][info][gc] GC(3) {pause}\n[6.100s][info][gc] GC(4) {pause}\n")
    [s] = analyze_paths([log])
    assert s.collector == collector


def test_collector_named_by_its_generation_line(tmp_path: Path) -> None:
    log = tmp_path / "gc.log.1"
    log.write_text("[5.090s][info][gc,heap] GC(3) PSYoungGen: 64M->1M(76M)\n"
                   "[5.100s][info][gc] GC(3) Pause Young (Allocation Failure) 64M->1M(245M) 5.000ms\n")
    [s] = analyze_paths([log])
    assert s.collector == "Parallel"


# JDK 8 CMS: a young collection's text is interrupted by a complete initial-mark record
# (with its tenuring distribution); its tail follows on its own line.
_INTERRUPTED = """\
OpenJDK 64-Bit Server VM (25.342-b07) for linux-amd64 JRE (1.8.0_342-b07), built on Jul 16 2022
CommandLine flags: -XX:InitialHeapSize=33554432 -XX:MaxHeapSize=536870912 -XX:+UseConcMarkSweepGC
10.000: [GC (Allocation Failure) 10.000: [ParNew: 8678K->1081K(9792K), 0.0088699 secs] 8678K->8064K(31680K), 0.0106548 secs] [Times: user=0.02 sys=0.00, real=0.01 secs]
20.000: [GC (Allocation Failure) 20.000: [ParNew
20.900: [GC (CMS Initial Mark) [1 CMS-initial-mark: 15645K(21888K)] 18533K(31680K), 0.0010369 secs] [Times: user=0.00 sys=0.00, real=0.00 secs]
Desired survivor size 2424832 bytes, new threshold 1 (max 6)
- age   1:    4819248 bytes,    4819248 total
: 9746K->1056K(9792K), 1.8200000 secs] 25391K->25378K(34560K), 1.8210000 secs] [Times: user=3.01 sys=0.01, real=1.82 secs]
30.000: [GC (Allocation Failure) 30.000: [ParNew: 8678K->1081K(9792K), 0.0088699 secs] 8678K->8064K(31680K), 0.0106548 secs] [Times: user=0.02 sys=0.00, real=0.01 secs]
"""


def test_interrupted_legacy_record_is_kept(tmp_path: Path) -> None:
    log = tmp_path / "gc.log"
    log.write_text(_INTERRUPTED)
    [s] = analyze_paths([log])
    doc = s.to_json()
    assert doc["pauses"]["count"] == 4
    assert doc["pauses"]["max_ms"] == pytest.approx(1821.0)
    assert doc["pauses"]["by_kind"]["young"]["count"] == 3
    assert doc["pauses"]["by_kind"]["initial_mark"]["count"] == 1
    assert doc["unparsed_lines"] == 0
    events = [e for e in iter_events(log) if e.duration_ms and e.duration_ms > 1000]
    assert [(e.t_s, e.kind) for e in events] == [(20.0, "young")]


def test_orphaned_record_tail_is_counted_as_not_understood(tmp_path: Path) -> None:
    log = tmp_path / "gc.log"
    tail = ": 9746K->1056K(9792K), 1.8200000 secs] 25391K->25378K(34560K), 1.8210000 secs] [Times: real=1.82 secs]"
    log.write_text(_INTERRUPTED.splitlines()[2] + "\n" + tail + "\n")
    [s] = analyze_paths([log])
    assert s.unparsed_lines == 1 and s.unparsed_samples == [tail]


def test_interrupted_record_without_tail_is_counted(tmp_path: Path) -> None:
    lines = _INTERRUPTED.splitlines()
    log = tmp_path / "gc.log"
    log.write_text("\n".join(lines[:5] + lines[8:]) + "\n")  # the tail never comes
    [s] = analyze_paths([log])
    assert s.pause_count == 3 and s.unparsed_lines == 1
    assert s.unparsed_samples[0].startswith("[GC (Allocation Failure) 20.000: [ParNew")


TOTAL = next(m for m in METRICS if m.key == "pause_total_ms")


def _docs(values: list[float]) -> list[dict]:
    return [{"pauses": {"total_ms": v}} for v in values]


def test_three_logs_a_side_say_t_interval_and_no_direction_when_sets_overlap() -> None:
    # Found by simulation: 3 against 3 whose ranges overlap (113.9 < 119.4) while the t
    # interval of the log ratio excludes 1.
    a, b = [86.5, 119.4, 54.7], [301.0, 318.6, 113.9]
    c = compare_metric(TOTAL, _docs(a), _docs(b), seed=1)
    assert c.ci is not None and c.ci[0] > 1.0
    assert c.ci_method == CI_T
    assert c.verdict == INCONCLUSIVE
    doc = gccompare.to_json({"label": "A"}, {"label": "B"}, [c])
    assert "BCa" not in doc["ratio"] and "t interval" in doc["ratio"]
    assert doc["metrics"][0]["ci_method"] == CI_T


def test_three_logs_a_side_apart_keep_their_direction() -> None:
    rng = np.random.default_rng(3)
    a = list(rng.normal(100.0, 1.0, 3))
    b = list(rng.normal(200.0, 1.0, 3))
    c = compare_metric(TOTAL, _docs(a), _docs(b), seed=1)
    assert c.verdict == WORSE and c.ci_method == CI_T
