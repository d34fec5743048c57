"""One experiment a scenario runs: a spec's TOML text and the metric its verdict compares."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScenarioRun:
    scenario: str  # the scenario whose verdict reads this run's summary ("cds", "gc", ...)
    title: str
    toml: str
    metric: str = "wall_s"



class ScenarioSkipped(Exception):
    """The scenario cannot run on this machine (no Maven, no suitable JDK); the message says why."""
