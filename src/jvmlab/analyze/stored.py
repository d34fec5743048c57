"""Stored invocations as numbers: the one bridge from store rows to the statistics' input.

It sits in ``analyze`` (below ``execute`` and ``report``) so that adaptive stopping, the
report and the scenarios read values the same way without importing each other. A value
the store does not hold (``None``) becomes NaN, which ``analyze.model.clean`` drops.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jvmlab.analyze.model import CellData
from jvmlab.model.stored import StoredInvocation


def load_values(invocations: Sequence[StoredInvocation], metric: str) -> CellData:
    """One cell's values of ``metric`` in store order, with the block of each (for paired designs)."""
    values = [inv.value(metric) for inv in invocations]
    return CellData.of([np.nan if v is None else v for v in values], [inv.block for inv in invocations])
