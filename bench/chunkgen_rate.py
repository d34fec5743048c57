"""The chunk generator's reported throughput, shared by the observer-effect benches."""

from __future__ import annotations

import sys

from jvmlab.model.process import ProcessResult
from jvmlab.workloads.metric_line import parse_metric_line


def chunks_per_s(result: ProcessResult) -> float:
    """The last ``chunks_per_s`` metric line chunkgen printed; exits the bench when there is none."""
    rate = None
    for line in (result.stdout_path.read_text() if result.stdout_path else "").splitlines():
        metric = parse_metric_line(line)
        if metric is not None and metric.name == "chunks_per_s":
            rate = metric.value
    if rate is None:
        sys.exit("chunkgen printed no chunks_per_s metric")
    return rate
