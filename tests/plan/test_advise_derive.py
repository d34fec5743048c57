"""`gc advise`'s derived spec: levels from findings, one cell folded, the gcfix factor, the
[tune] space, and the stored text (the original, still valid TOML)."""

from __future__ import annotations

import tomllib

import pytest

from jvmlab.errors import UserError
from jvmlab.gclog.findings_model import Evidence, Finding, Fix
from jvmlab.plan import advise as derive
from jvmlab.plan.matrix import expand, find_baseline
from jvmlab.spec.load import parse_spec
from jvmlab.spec.model import FACTOR_NAME

SPEC = """
name = "svc"
[workload]
builtin = "gctrouble"
args = ["--mode", "fill"]
jvm_args = "-XX:+UseG1GC"
[jvms]
a = "default"
b = "default"
[factors.heap]
small = { flags = "-Xmx64m", args = ["--count", "3"], env = { X = "1" } }
large = "-Xmx1g"
[matrix]
baseline = { heap = "small", jvm = "a" }
"""


def _finding(fid: str, *fixes: Fix) -> Finding:
    return Finding(fid, "error", fid, "", Evidence(1), fixes)


HEAP = Fix(("-Xmx96m",), "bigger", "heap")
RESERVE = Fix(("-XX:G1ReservePercent=20",), "reserve", "reserve")
DISABLE = Fix(("-XX:+DisableExplicitGC",), "off", "explicit")
CONCURRENT = Fix(("-XX:+ExplicitGCInvokesConcurrent",), "concurrent", "explicit")


def test_levels_dedupe_fixes_and_combine_one_per_group() -> None:
    levels = derive.fix_levels([_finding("evacuation-failure", HEAP, RESERVE), _finding("full-gc", HEAP, RESERVE),
                                _finding("explicit-gc", DISABLE, CONCURRENT)])
    names = [lv.name for lv in levels]
    assert names == ["current", "Xmx96m", "G1ReservePercent-20", "DisableExplicitGC", "ExplicitGCInvokesConcurrent",
                     "combined"]
    assert all(FACTOR_NAME.match(n) for n in names)
    assert levels[1].finding_ids == ("evacuation-failure", "full-gc")  # one level answers both
    combined = levels[-1]
    assert combined.flags == ("-Xmx96m", "-XX:G1ReservePercent=20", "-XX:+DisableExplicitGC")  # not both explicit ones


def test_level_names_are_factor_level_names() -> None:
    names = [derive.level_name(f) for f in (["-XX:MaxMetaspaceSize=256m", "-XX:MetaspaceSize=256m"],
                                            ["-XX:-UseBiasedLocking"], ["-Xmn64m", "-Xss1m", "-Xms1g"])]
    assert names == ["MaxMetaspaceSize-256m_MetaspaceSize-256m", "NoUseBiasedLocking", "Xmn64m-and-2-more"]
    assert all(FACTOR_NAME.match(n) for n in names)


def test_no_combination_of_alternatives_and_current_flags_left_out() -> None:
    levels = derive.fix_levels([_finding("explicit-gc", DISABLE, CONCURRENT)], ["-XX:+DisableExplicitGC"])
    assert [lv.name for lv in levels] == ["current", "ExplicitGCInvokesConcurrent"]
    same_option = derive.fix_levels([_finding("a", Fix(("-Xmx96m",), "", "g1")),
                                     _finding("b", Fix(("-Xmx2g",), "", "g2"))])
    assert "combined" not in [lv.name for lv in same_option]  # two groups, but both set -Xmx


def test_one_cell_folds_the_baseline_cell_and_advise_spec_adds_gcfix() -> None:
    spec = parse_spec(SPEC)
    base = find_baseline(spec, expand(spec))
    cell = derive.one_cell(spec, base.jvm, dict(base.levels))
    assert cell.workload.jvm_args == ["-XX:+UseG1GC", "-Xmx64m"]
    assert cell.workload.args == ["--mode", "fill", "--count", "3"] and cell.workload.env == {"X": "1"}
    assert list(cell.jvms) == ["a"] and cell.factors == {}
    derived = derive.advise_spec(cell, derive.fix_levels([_finding("evacuation-failure", HEAP, RESERVE)]), 4)
    cells = expand(derived)
    assert [c.name for c in cells] == ["a gcfix=current", "a gcfix=Xmx96m", "a gcfix=G1ReservePercent-20",
                                       "a gcfix=combined"]
    assert find_baseline(derived, cells).name == "a gcfix=current"
    assert cells[1].flags == ("-XX:+UseG1GC", "-Xmx64m", "-Xmx96m")  # the fix comes last: the JVM takes it
    assert derived.run.invocations == 4


def test_nothing_to_try_is_one_clear_line() -> None:
    cell = derive.one_cell(parse_spec(SPEC), "a", {"heap": "large"})
    with pytest.raises(UserError, match="no candidate fix"):
        derive.advise_spec(cell, derive.fix_levels([_finding("gc-locker")]))
    with pytest.raises(UserError, match="no level"):
        derive.one_cell(parse_spec(SPEC), "a", {"heap": "huge"})


def test_tune_space_is_one_categorical_per_group() -> None:
    cell = derive.one_cell(parse_spec(SPEC), "a", {"heap": "large"})
    spec = derive.tune_spec(cell, derive.fix_levels([_finding("explicit-gc", DISABLE, CONCURRENT),
                                                    _finding("evacuation-failure", HEAP)]))
    assert spec.tune is not None and spec.factors == {}
    explicit = {"off": "", "DisableExplicitGC": "-XX:+DisableExplicitGC",
                "ExplicitGCInvokesConcurrent": "-XX:+ExplicitGCInvokesConcurrent"}
    assert spec.tune["params"] == {
        "explicit": {"type": "categorical", "values": explicit},
        "heap": {"type": "categorical", "values": {"off": "", "Xmx96m": "-Xmx96m"}}}


def test_provenance_text_is_the_original_spec_plus_one_comment() -> None:
    levels = derive.fix_levels([_finding("explicit-gc", DISABLE)])
    text = derive.provenance_text(SPEC, "gc.log", [_finding("explicit-gc", DISABLE)], levels)
    assert tomllib.loads(text) == tomllib.loads(SPEC)
    assert text.splitlines()[-1].startswith("#gc-advise ") and "DisableExplicitGC" in text
