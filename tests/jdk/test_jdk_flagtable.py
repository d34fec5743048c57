"""Parsing -XX:+PrintFlagsFinal tables in the JDK 9+ and JDK 8 layouts."""

from __future__ import annotations

from pathlib import Path

from jvmlab.jdk.flagtable import parse_flags_final, parse_row

DATA = Path(__file__).parent / "data"


def test_jdk17_table_excerpt() -> None:
    """Real output of `java -Xmx256m -XX:+UnlockDiagnosticVMOptions -XX:+PrintFlagsFinal` (17)."""
    rows = parse_flags_final((DATA / "flags_final_jdk17_excerpt.txt").read_text())
    assert len(rows) == 19  # every line but the header
    heap = rows["MaxHeapSize"]
    assert (heap.type, heap.value, heap.kind, heap.origin) == ("size_t", "268435456", "product", "command line")
    assert rows["CICompilerCount"].origin == "ergonomic"
    assert rows["PrintInlining"].kind == "diagnostic"
    assert rows["EscapeAnalysisTimeout"].kind == "C2 product"
    assert rows["ErrorFile"].value == ""  # empty ccstr
    assert rows["CompileCommand"].type == "ccstrlist"  # type column overflowing its padding
    assert rows["MaxRAMPercentage"].value == "25.000000"


def test_jdk8_table_layout() -> None:
    """JDK 8 has no origin column; ':=' marks values that differ from the default."""
    rows = parse_flags_final((DATA / "flags_final_jdk8_format.txt").read_text())
    assert len(rows) == 9
    assert rows["MaxHeapSize"].value == "268435456" and rows["MaxHeapSize"].origin == "changed"
    assert rows["UseG1GC"].origin == "default" and rows["UseG1GC"].value == "false"
    assert rows["Tier4InvocationThreshold"].kind == "C2 product"
    assert rows["ErrorFile"].value == ""


def test_values_with_spaces_and_non_rows() -> None:
    row = parse_row("ccstrlist OnError                                  = echo hi there              {product} {command line}")
    assert row is not None and row.value == "echo hi there" and row.origin == "command line"
    assert parse_row('openjdk version "17.0.15" 2025-04-15') is None
    assert parse_row("[0.004s][info][gc] Using G1") is None
    assert parse_row("") is None
