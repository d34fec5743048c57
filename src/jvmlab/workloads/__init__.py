"""Built-in Java workloads (sources in ``java/``) and the ``jvmlab-metric`` line format.

``prepare_builtin`` compiles (once, cached) and returns what the runner needs to start one;
``parse_metric_line`` reads the metrics that workloads print about themselves.
"""

from jvmlab.workloads.builtin import (
    BuiltinSpec,
    BuiltinWorkload,
    list_builtins,
    prepare_builtin,
)
from jvmlab.workloads.metric_line import WorkloadMetric, parse_metric_line

__all__ = [
    "BuiltinSpec", "BuiltinWorkload", "WorkloadMetric", "list_builtins", "parse_metric_line", "prepare_builtin",
]
