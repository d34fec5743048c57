"""spec/pattern.py: a regex that backtracks catastrophically ends within its bound, and every
reader of output that takes a user's regex says so instead of hanging."""

from __future__ import annotations

import time

import pytest

from jvmlab.errors import UserError
from jvmlab.model.process import ProcessResult, Status
from jvmlab.server.parsers import parse_regex
from jvmlab.sizing.probe import classify
from jvmlab.sizing.study import compile_pattern
from jvmlab.spec.pattern import BoundedPattern, PatternTimeout, check_compiles

EVIL = r"^(?P<n>(a|aa)+)$"  # with `re`: Fibonacci(60) paths over 60 'a' and a '!' (hours)
LINE = "a" * 60 + "!"


def test_a_backtracking_pattern_ends_within_its_bound_and_stays_spent() -> None:
    pattern = BoundedPattern(EVIL, budget_s=0.2, what="[load] regex")
    started = time.monotonic()
    with pytest.raises(PatternTimeout, match=r"\[load\] regex .* ran out of time \(0.2 s of CPU\)"):
        pattern.search(LINE)
    assert time.monotonic() - started < 30  # bounded (the engine checks its clock coarsely)
    assert pattern.spent is not None
    assert pattern.search_quiet("aa") is None  # spent: answers no more lines
    fresh = pattern.fresh()
    assert fresh.spent is None and fresh.search("aaaa") is not None


def test_a_sane_pattern_matches_like_re() -> None:
    m = BoundedPattern(r"rate=(?P<rps>[0-9.]+)").search("x rate=12.5 y")
    assert m is not None and m["rps"] == "12.5" and m.groupdict() == {"rps": "12.5"}


def test_syntax_is_checked_by_both_engines() -> None:
    check_compiles(r"(?P<units>\d+)")
    with pytest.raises(ValueError, match="does not compile"):
        check_compiles("(?P<units>[0-9")


def test_the_load_regex_parser_reports_a_pattern_that_ran_out() -> None:
    report = parse_regex(f"ok\n{LINE}\n", EVIL, {})
    assert report.problem is not None and "ran out of time" in report.problem and LINE[:20] in report.problem


def test_the_minheap_fail_pattern_stops_the_search_with_one_line() -> None:
    pattern = compile_pattern(EVIL.replace("^", "(?m)^"))
    ok = ProcessResult(Status.OK, None, 0, None, None, 1, 0.0)
    assert pattern is not None
    with pytest.raises(UserError, match=r"--fail-pattern .* ran out of time"):
        classify(ok, f"started\n{LINE}\n", pattern)
    with pytest.raises(UserError, match=r"--fail-pattern: regex .\(. does not compile"):
        compile_pattern("(")
