"""gc-overhead proposes a bigger heap only when the heap is the likely cause (issue 45): not
when System.gc() started most of the paused time, nor when the heap peaked far below its max."""

from __future__ import annotations

from pathlib import Path

from jvmlab.gclog import analyze_paths
from jvmlab.gclog.findings_model import Finding
from jvmlab.gclog.findings_rules import evaluate as find

HEAD = ["[0.001s][info][gc,init] Version: 17.0.9+9 (release)", "[0.002s][info][gc] Using G1",
        "[0.003s][info][gc,init] Heap Region Size: 1M", "[0.004s][info][gc,init] Heap Max Capacity: 256M"]


def _pause(gid: int, t: float, ms: float, kind: str, cause: str, heap: str) -> list[str]:
    return [f"[{t:.3f}s][info][gc,start    ] GC({gid}) Pause {kind} ({cause})",
            f"[{t + ms / 1000:.3f}s][info][gc          ] GC({gid}) Pause {kind} ({cause}) {heap} {ms:.3f}ms"]


def _overhead(tmp_path: Path, kind: str, cause: str, heap: str) -> Finding:
    lines = [x for i in range(10) for x in _pause(i, 1.0 + i, 300.0, kind, cause, heap)]
    path = tmp_path / "gc.log"
    path.write_text("\n".join([*HEAD, *lines]) + "\n")
    (summary,) = analyze_paths([path])
    return {f.id: f for f in find(summary)}["gc-overhead"]


def test_system_gc_as_the_cause_gets_its_own_fix_not_a_bigger_heap(tmp_path: Path) -> None:
    f = _overhead(tmp_path, "Full", "System.gc()", "230M->200M(256M)")
    assert [x.flags for x in f.fixes] == [("-XX:+DisableExplicitGC",)]
    assert "System.gc() started 10 of the collections, 3000 ms of the 3000 ms paused" in f.explanation


def test_a_heap_that_peaked_far_below_its_max_gets_no_bigger_heap(tmp_path: Path) -> None:
    f = _overhead(tmp_path, "Young (Normal)", "G1 Evacuation Pause", "24M->4M(256M)")
    assert f.fixes == ()
    assert "The heap peaked at 24 MB of its 256 MB maximum" in f.explanation and "allocation rate" in f.advice


def test_a_heap_near_its_max_still_gets_a_bigger_heap(tmp_path: Path) -> None:
    f = _overhead(tmp_path, "Young (Normal)", "G1 Evacuation Pause", "230M->200M(256M)")
    assert [x.flags for x in f.fixes] == [("-Xmx384m",)]
