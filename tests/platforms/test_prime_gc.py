"""Azul Zing / Prime GC logs: the recorded public excerpts in tests/data/jvms/prime-gc
(sources in tests/data/jvms/SOURCES.md) read by `jvmlab gc analyze`.

No public recorded or documented sample of Zing's per-cycle GPGC lines was found (SOURCES.md
lists the pages read), so none is tested: the excerpts hold Zing's GCHH header and the
safepoint lines Azul documents for Zing's gc.log (JDK 8 recorded, JDK 11+ constructed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jvmlab.cli.main import main
from jvmlab.gclog import analyze_paths, iter_events
from jvmlab.gclog.detect import LEGACY, UNIFIED, ZING, detect_format

LOGS = Path(__file__).resolve().parent.parent / "data" / "jvms" / "prime-gc"
HEADER = LOGS / "gchh-header.log"
STOPPED = LOGS / "stopped-time.log"
UNIFIED_SAFEPOINT = LOGS / "constructed-unified-safepoint.log"


def test_gchh_header_is_read_as_a_zing_log_with_c4():
    # Counted by hand: 24 lines, every one "0.092: [GCHH : ... ]"; none is a GC cycle or a
    # pause or a safepoint line, so 0 events of any type; "Zing release" names the build.
    assert detect_format(HEADER) == ZING
    assert list(iter_events(HEADER)) == []
    (summary,) = analyze_paths([HEADER])
    assert summary.format == ZING and summary.collector == "C4"
    assert summary.jvm_version == "1.8.0-zing_99.99.99.99.dev-b2018-product-azlinuxM-X86_64"
    assert summary.pauses.count == 0 and summary.cycles.count == 0 and summary.safepoints.count == 0
    assert summary.unparsed_lines == 0


def test_zing_stopped_time_lines_are_one_safepoint():
    # Counted by hand: 2 lines; "Application time: 0.6752136 seconds" is not an event, and one
    # "Total time for which application threads were stopped: 0.0000602 seconds" = 0.0602 ms.
    # Nothing in these two lines names the collector (HotSpot writes the same lines), so the
    # log reads as a JDK 8 one with no collector rather than as C4 by guess.
    assert detect_format(STOPPED) == LEGACY
    events = list(iter_events(STOPPED))
    assert [(e.type, e.t_s) for e in events] == [("safepoint", 12.836)]
    assert events[0].duration_ms == pytest.approx(0.0602)
    (summary,) = analyze_paths([STOPPED])
    assert summary.collector is None and summary.pauses.count == 0 and summary.cycles.count == 0
    assert summary.unparsed_lines == 0


def test_prime_unified_safepoint_lines_go_through_the_unified_parser():
    # Constructed from the support article's filter (SOURCES.md): one "Total time ... stopped:
    # 0.0000602 seconds" = 0.0602 ms at 12.836 s; the "Application time" line is no event.
    assert detect_format(UNIFIED_SAFEPOINT) == UNIFIED
    events = list(iter_events(UNIFIED_SAFEPOINT))
    assert [(e.type, e.t_s) for e in events] == [("safepoint", 12.836)]
    assert events[0].duration_ms == pytest.approx(0.0602)
    (summary,) = analyze_paths([UNIFIED_SAFEPOINT])
    assert summary.collector is None and summary.pauses.count == 0 and summary.unparsed_lines == 0


def test_a_gchh_headed_log_also_reads_its_safepoint_lines(tmp_path):
    # Not a recorded log: the two recorded excerpts (different runs) joined, to check that
    # the Zing parser hands the HotSpot-style lines to the JDK 8 parser.
    joined = tmp_path / "gc.log"
    joined.write_text(HEADER.read_text() + STOPPED.read_text())
    (summary,) = analyze_paths([joined])
    assert summary.format == ZING and summary.collector == "C4"
    assert summary.safepoints.count == 1 and summary.safepoints.total_ms == pytest.approx(0.0602)
    assert summary.pauses.count == 0 and summary.unparsed_lines == 0


@pytest.mark.parametrize("path", [HEADER, STOPPED], ids=["gchh-header", "stopped-time"])
def test_gc_analyze_json_on_prime_samples_exits_0(path, capsys):
    with pytest.raises(SystemExit) as done:
        main(["gc", "analyze", "--json", str(path)])
    assert done.value.code == 0, capsys.readouterr().err
    (log,) = json.loads(capsys.readouterr().out)["logs"]
    assert log["collector"] == ("C4" if path == HEADER else None)
