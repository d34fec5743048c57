"""A spec's regex (``ready``, ``progress``, ``[server] ready_log``/``ready_body``, ``[load] regex``)
matched against a workload's or a client's output with a time bound.

Python's ``re`` has no timeout, and a pattern such as ``(?P<n>(a+)+)$`` over a line of 40 ``a``
and a ``!`` backtracks for hours: the run would hang on one line of output. The ``regex``
engine (a superset of ``re``'s syntax) takes ``timeout=`` per call and raises ``TimeoutError``;
:class:`BoundedPattern` turns that into :class:`PatternTimeout`, which the caller records as a
failure with its reason (an invocation status, a client report's problem), never a hang.
Each call is bounded by ``LINE_BUDGET_S`` of CPU time (the engine's clock is the process's CPU
time, not the wall clock: 1 s of it took 11 s of wall time on a 2-core machine at load 14, longer
than an executor waits for its output readers, so the budget is small), and a pattern that ran
out once is spent: it answers no more lines, so a stream of hostile lines costs one budget, not
one per line. The engine releases the GIL while it matches: other threads go on.
"""

from __future__ import annotations

import re as stdlib_re

import regex

LINE_BUDGET_S = 0.1  # CPU seconds; a sane pattern needs microseconds per line


class PatternTimeout(Exception):
    """The pattern did not finish on one line within its budget."""


class BoundedPattern:
    """``search`` with a per-line time bound; ``spent`` (the reason) once it ran out."""

    def __init__(self, pattern: str, budget_s: float = LINE_BUDGET_S, what: str = "regex") -> None:
        self.pattern = pattern
        self.budget_s = budget_s
        self.what = what
        self._compiled = regex.compile(pattern, flags=regex.VERSION0)
        self.spent: str | None = None

    def fresh(self) -> BoundedPattern:
        """The same pattern, not spent (one per invocation: a spent pattern stays spent)."""
        return BoundedPattern(self.pattern, self.budget_s, self.what)

    @property
    def groupindex(self) -> dict[str, int]:
        return dict(self._compiled.groupindex)

    def search(self, line: str) -> regex.Match[str] | None:
        """The match object (``regex.Match``, same API as ``re.Match``) or None; raises
        :class:`PatternTimeout` when the line takes longer than the budget (and from then on)."""
        if self.spent is not None:
            raise PatternTimeout(self.spent)
        try:
            return self._compiled.search(line, timeout=self.budget_s)
        except TimeoutError:
            shown = line if len(line) <= 80 else line[:77] + "..."
            self.spent = (f"{self.what} {self.pattern!r} ran out of time ({self.budget_s:g} s of CPU) on the line "
                          f"{shown!r}: it backtracks catastrophically; simplify it (e.g. no nested repeats)")
            raise PatternTimeout(self.spent) from None

    def search_quiet(self, line: str) -> regex.Match[str] | None:
        """``search`` for watchers that only look (readiness, progress): a spent pattern answers
        None; the reason stays in ``spent`` for the caller to record."""
        try:
            return self.search(line)
        except PatternTimeout:
            return None


def check_compiles(pattern: str) -> None:
    """ValueError when ``pattern`` is not a regex both engines accept (``re``'s syntax is the
    documented one; ``regex`` runs it)."""
    try:
        stdlib_re.compile(pattern)
        regex.compile(pattern, flags=regex.VERSION0)
    except (stdlib_re.error, regex.error) as err:
        raise ValueError(f"regex {pattern!r} does not compile: {err}") from err
