"""Minimum heap by bisection on -Xmx, with repeated probes at the boundary.

Method (after running-ng's ``minheap`` and DaCapo's repeated minimum-heap runs, with an
interval instead of one number): every probe at a heap size either passes or is "too
small" (OutOfMemoryError, a timeout, a failure pattern). Let p(s) be the chance a run at
size s passes, assumed to grow with s. Bisection with one probe per size narrows the
boundary to one step; then the upper end is probed until ``repeats`` runs in a row pass and
the lower end until ``repeats`` runs in a row fail, moving outward whenever a size gives
both answers. The answer is the interval (lower, upper]: if p(lower) >= 1/2, seeing
``repeats`` failures there has chance <= 2^-repeats, and the same holds for the upper end,
so the size where p crosses 1/2 lies in the interval with confidence at least
1 - k * 2^-repeats, k the number of sizes put to the repeated test (k = 2 for a sharp
boundary: about 94% for 5 repeats, 97% for 6). A size that both passed and
failed is a flaky boundary and is reported as such, never averaged away.

The strategy is deterministic given the outcomes, so a run resumes by replaying stored
outcomes (see :class:`ReplayingProbe`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jvmlab.model.documents import MinHeapResult, ProbeOutcome, Status, Verdict

__all__ = ["MinHeapResult", "MinHeapSettings", "Probe", "ProbeOutcome", "ReplayingProbe", "Status", "Verdict",
           "find_min_heap"]


Probe = Callable[[int], ProbeOutcome]


@dataclass(frozen=True)
class MinHeapSettings:
    """Bounds and resolution of the search, all in bytes."""

    lower_bytes: int
    upper_bytes: int
    step_bytes: int
    repeats: int = 5
    max_probes: int = 80

    def check(self) -> None:
        if self.step_bytes <= 0:
            raise ValueError("the step must be positive")
        if not 0 < self.lower_bytes < self.upper_bytes:
            raise ValueError("the lower bound must be positive and below the upper bound")
        if self.repeats < 1 or self.max_probes < 2:
            raise ValueError("repeats must be >= 1 and max_probes >= 2")

    def confidence_after(self, confirmations: int) -> float:
        """Confidence that the 50%-pass size lies in the interval: each size put to the
        repeated test is falsely confirmed with chance <= 2^-repeats (union bound over all of
        them, so a flaky boundary that needed many tries states a lower confidence)."""
        return max(0.0, 1.0 - max(confirmations, 2) * 0.5 ** self.repeats)


class _BudgetSpent(Exception):
    pass


class _Unconfirmed(Exception):
    """An end of the interval cannot be confirmed inside the bounds (a flaky bound)."""


class _Search:
    """The state of one search: outcomes per size and the probe budget."""

    def __init__(self, probe: Probe, settings: MinHeapSettings) -> None:
        self.probe_fn = probe
        self.s = settings
        self.log: list[ProbeOutcome] = []
        self.by_size: dict[int, list[bool]] = {}
        self.confirmations = 0  # sizes at which an end was put to the repeated test

    def probe(self, size: int) -> bool:
        if len(self.log) >= self.s.max_probes:
            raise _BudgetSpent
        outcome = self.probe_fn(size)
        self.log.append(outcome)
        self.by_size.setdefault(size, []).append(outcome.verdict.passed)
        return outcome.verdict.passed

    def runs_until_change(self, size: int, expect_pass: bool) -> bool:
        """Probe ``size`` until it has ``repeats`` results; False at the first unexpected one."""
        self.confirmations += 1
        while len(self.by_size.get(size, [])) < self.s.repeats:
            if self.probe(size) != expect_pass:
                return False
        return all(r == expect_pass for r in self.by_size[size])

    def snap(self, size: int) -> int:
        """Sizes on the grid lower + k * step, so repeated searches probe the same sizes."""
        k = round((size - self.s.lower_bytes) / self.s.step_bytes)
        return self.s.lower_bytes + k * self.s.step_bytes

    def bisect(self, fail: int, ok: int) -> tuple[int, int]:
        """Narrow (fail, ok) to one step with one probe per size (a known size is reused)."""
        while ok - fail > self.s.step_bytes:
            mid = self.snap((fail + ok) // 2)
            if mid <= fail or mid >= ok:
                break
            known = self.by_size.get(mid)
            passed = (all(known) if known else self.probe(mid))
            ok, fail = (mid, fail) if passed else (ok, mid)
        return fail, ok

    def flaky(self) -> tuple[int, ...]:
        return tuple(sorted(s for s, r in self.by_size.items() if any(r) and not all(r)))


def find_min_heap(probe: Probe, settings: MinHeapSettings) -> MinHeapResult:
    """Bisect between the bounds, then confirm both ends with repeated probes (see module doc)."""
    settings.check()
    search = _Search(probe, settings)
    lo, hi = settings.lower_bytes, search.snap(settings.upper_bytes)
    try:
        if not search.probe(hi):
            return _result(search, Status.ABOVE_UPPER, None, None,
                           f"{_mib(hi)} already fails ({search.log[-1].reason or search.log[-1].verdict})")
        if search.probe(lo):
            return _result(search, Status.BELOW_LOWER, None, lo, f"{_mib(lo)} already passes")
        fail, ok = search.bisect(lo, hi)
        fail, ok = _confirm(search, fail, ok, hi)
        return _result(search, Status.FOUND, fail, ok, "")
    except _BudgetSpent:
        return _result(search, Status.BUDGET, None, None,
                       f"stopped after {settings.max_probes} probes before both ends were confirmed")
    except _Unconfirmed as err:
        return _result(search, Status.UNCONFIRMED, None, None, str(err))


def _confirm(search: _Search, fail: int, ok: int, upper: int) -> tuple[int, int]:
    """Repeat at both ends; a size giving both answers pushes that end outward."""
    while not search.runs_until_change(ok, expect_pass=True):
        # ``ok`` failed once: the boundary is higher. Bisect again up to the next size that
        # never failed (or the upper bound, which passed once).
        if ok >= upper:
            raise _Unconfirmed(f"even the upper bound {_mib(upper)} failed in some runs: raise --upper")
        above = [s for s, r in search.by_size.items() if s > ok and all(r)]
        fail, ok = search.bisect(ok, min(above, default=upper))
    distance = search.s.step_bytes
    while not search.runs_until_change(fail, expect_pass=False):
        # ``fail`` passed once: walk down in doubling steps until a size fails every time.
        if fail <= search.s.lower_bytes:
            raise _Unconfirmed(f"even the lower bound {_mib(fail)} passed in some runs: lower --lower")
        fail = max(search.s.lower_bytes, fail - distance)
        distance *= 2
    return fail, ok


def _result(search: _Search, status: Status, lower: int | None, upper: int | None, note: str) -> MinHeapResult:
    confidence = search.s.confidence_after(search.confirmations) if status is Status.FOUND else None
    return MinHeapResult(status, lower, upper, confidence, search.flaky(), tuple(search.log), note)


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


class ReplayingProbe:
    """Resume: answer from stored outcomes (in order, per size) before running new probes.

    Since the search is deterministic given its outcomes, replaying them retraces the same
    path; ``on_new`` is called for each fresh outcome so the caller can store it at once.
    """

    def __init__(self, stored: Sequence[ProbeOutcome], run: Probe,
                 on_new: Callable[[ProbeOutcome], None] = lambda _o: None) -> None:
        self.queue: dict[int, list[ProbeOutcome]] = {}
        for outcome in stored:
            self.queue.setdefault(outcome.heap_bytes, []).append(outcome)
        self.run = run
        self.on_new = on_new
        self.replayed = 0

    def __call__(self, size: int) -> ProbeOutcome:
        pending = self.queue.get(size)
        if pending:
            self.replayed += 1
            return pending.pop(0)
        outcome = self.run(size)
        self.on_new(outcome)
        return outcome
