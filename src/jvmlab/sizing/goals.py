"""A rightsizing goal: a metric, a comparison and a bound (``load.latency_p99_ms < 50``).

Parsed strictly: the metric must be one the registry knows (``jvmlab metrics``; dynamic
``workload.*``/``load.*`` names are accepted), the comparison one of ``< <= > >=``, the bound
a finite number, and the comparison must ask for the better side of the metric (``wall_s >
4`` asks for a slower run: more CPU or memory would then not help, and the search's
monotonicity would not hold). Anything else is one line and exit code 2.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from jvmlab import metrics as registry
from jvmlab.errors import UserError

_GOAL = re.compile(r"\s*([A-Za-z_][\w.]*)\s*(<=|>=|<|>)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*")


@dataclass(frozen=True)
class Goal:
    metric: str
    comparison: str  # "<", "<=", ">", ">="
    bound: float

    @property
    def text(self) -> str:
        return f"{self.metric} {self.comparison} {self.bound:g}"

    @property
    def lower_is_better(self) -> bool:
        return self.comparison.startswith("<")


def parse_goal(text: str) -> Goal:
    """``"wall_s < 4"`` -> Goal("wall_s", "<", 4.0); a UserError naming what is wrong."""
    m = _GOAL.fullmatch(text)
    if m is None:
        raise UserError(f"--slo {text!r}: write METRIC COMPARISON NUMBER, e.g. 'wall_s < 4' or "
                        f"'load.latency_p99_ms < 50' (comparisons: < <= > >=)")
    name, comparison, number = m.group(1), m.group(2), float(m.group(3))
    metric = registry.get(name)  # unknown: one line with a suggestion
    if not math.isfinite(number):
        raise UserError(f"--slo {text!r}: the bound must be a finite number")
    if metric.neutral:
        raise UserError(f"--slo {text!r}: {name} has no better direction, so no size can be said to meet it")
    if comparison.startswith("<") != metric.lower_is_better:
        better = "lower" if metric.lower_is_better else "higher"
        want = "<" if metric.lower_is_better else ">"
        raise UserError(f"--slo {text!r}: {better} {name} is better, so a goal asks for '{name} {want} ...'; "
                        f"more CPU or memory would not move it toward this one")
    if metric.never_negative and number < 0:
        raise UserError(f"--slo {text!r}: {name} is never negative; give a bound >= 0")
    return Goal(name, comparison, number)
