"""Truncated, mutated and concatenated logs never raise (except UserError) and never hang.

300 seeded cases here; ``bench/gclog_fuzz.py --cases 10000`` is the full run.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.gclog import analyze_paths

from .fuzzing import mutate, source_logs

CASES = 300


@pytest.mark.timeout(300)
def test_mutated_logs_never_crash(tmp_path: Path) -> None:
    rng = random.Random(20240601)
    sources = source_logs()
    path = tmp_path / "case.log"
    analysed = 0
    for _ in range(CASES):
        path.write_bytes(mutate(rng, sources))
        try:
            for summary in analyze_paths([path]):
                summary.to_json()
            analysed += 1
        except UserError:
            pass  # "not a GC log" is the one allowed outcome besides a summary
    assert analysed > CASES // 2
