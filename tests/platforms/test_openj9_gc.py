"""OpenJ9 verbose GC per invocation: the collector's flag, and the J9 parser on a recorded log
of each GC policy (gencon, balanced, optthruput, optavgpause, metronome, nogc)."""

from __future__ import annotations

import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest

from jvmlab.collect.gc import GcProbe, gc_log_args
from jvmlab.gclog import analyze_paths, iter_events
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessMeasures, ProcessResult, Status

LOGS = Path(__file__).resolve().parent.parent / "data" / "jvms" / "openj9-gc"
OPENJ9 = JdkInfo(home=Path("/opt/semeru-17"), version="17.0.6+10", feature=17, vendor="IBM Corporation",
                 vm="Eclipse OpenJ9 VM", vm_kind="OpenJ9", has_javac=True, gcs=("gencon", "balanced"))

# policy -> (pause kinds in order, total pause ms)
EXPECTED = {
    "gencon": (["young", "full"], 30.815 + 17.060),
    "balanced": (["mixed", "other", "full"], 152.457 + 6.705 + 410.250),
    "optthruput": (["full", "full"], 12.250 + 15.750),
    "optavgpause": (["full"], 4.250),
    # two heartbeats of 4 (0.4 / 0.8 / 0.8 / 2.0 ms: min, max, the rest at their mean) and 1
    # (0.5 ms) quanta, then one 25.125 ms synchronous GC
    "metronome": (["other"] * 5 + ["full"], 4 * 1.0 + 0.5 + 25.125),
    "nogc": ([], 0.0),
}


def test_openj9_writes_its_verbose_gc_log_per_invocation(tmp_path):
    (flag,) = gc_log_args(OPENJ9, tmp_path)
    assert flag == f"-Xverbosegclog:{tmp_path}/gc-%pid.log"  # OpenJ9's dump-agent token for the pid
    assert gc_log_args(replace(OPENJ9, vm_kind="HotSpot"), tmp_path)[-1].startswith("-Xlog:gc,gc+init,")


@pytest.mark.parametrize("policy", sorted(EXPECTED))
def test_j9_parser_on_each_policy(policy):
    path = LOGS / f"{policy}.xml"
    kinds, total_ms = EXPECTED[policy]
    pauses = [e for e in iter_events(path) if e.type == "pause"]
    assert [e.kind for e in pauses] == kinds
    assert sum(e.duration_ms for e in pauses) == pytest.approx(total_ms)
    summary = analyze_paths([path])[0]
    assert summary.format == "openj9-xml" and summary.collector == f"OpenJ9 {policy}"
    assert summary.unparsed_lines == 0


def test_gc_probe_turns_an_openj9_log_into_metrics(tmp_path):
    shutil.copy(LOGS / "balanced.xml", tmp_path / "gc-4242.log")
    probe = GcProbe(ProbeContext(jdk=OPENJ9, cell_name="semeru gc=balanced", flags=("-Xgcpolicy:balanced",),
                                 artifacts_dir=tmp_path), keep_logs=True)
    probe.on_start(4242)
    measures = ProcessMeasures(wall_s=6.0, user_s=1.0, sys_s=0.1, max_rss_bytes=1 << 30, minor_faults=1,
                               major_faults=0, vol_ctx_switches=1, invol_ctx_switches=1)
    collected = probe.finish(ProcessResult(Status.OK, None, 0, None, measures, 4242, time.time()))
    assert collected.metrics["gc.pause_count"] == 3
    assert collected.metrics["gc.pause_max_ms"] == pytest.approx(410.25)
    assert collected.documents["gc"]["collector"] == "OpenJ9 balanced"
