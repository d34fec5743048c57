"""The JMH workload's probe: read the fork's JSON result from the invocation's folder, check
that the fork ran on the cell's JDK with exactly the cell's flags, and turn each benchmark
(x @Param combination) into a metric ``jmh.<benchmark>[params]`` in JMH's score unit.

A fork that ran elsewhere or with other flags is refused: the invocation becomes
``invalid`` with the reason, and none of its scores enter the statistics.
"""

from __future__ import annotations

from jvmlab.collect.base import NullProbe
from jvmlab.errors import UserError
from jvmlab.model.collected import Collected
from jvmlab.model.documents import JmhDocument
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessResult, Status
from jvmlab.workloads.jmh import RESULT_FILE, ForkCheck, check_fork, read_results

DOCUMENT = JmhDocument.KIND


class JmhProbe(NullProbe):
    def __init__(self, ctx: ProbeContext) -> None:
        self.ctx = ctx

    def finish(self, result: ProcessResult) -> Collected:
        path = self.ctx.artifacts_dir / RESULT_FILE
        if result.status != Status.OK:
            return Collected()
        if not path.is_file():
            return Collected(failure=f"jmh wrote no result file ({path}); see the invocation's output")
        try:
            entries = read_results(path)
        except UserError as err:
            return Collected(failure=f"jmh result unreadable: {err}")
        if not entries:
            return Collected(failure="jmh ran no benchmark: check the benchmarks regexes (`java -jar ... -l`)")
        expected = ForkCheck(self.ctx.jdk.java, self.ctx.jdk.version, tuple(self.ctx.flags),
                             own_prefix=str(self.ctx.artifacts_dir))
        problems = [p for e in entries if (p := check_fork(e, expected))]
        document = JmhDocument({e.metric: e.record() for e in entries}).to_json()
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            return Collected(documents={DOCUMENT: document}, failure=f"refused: {problems[0]}{more}")
        # One fork per invocation (-f 1): its scores, and its profilers' metrics (-prof gc ...).
        metrics = {name: value for e in entries for name, value in e.fork_metrics(0).items()}
        units = {name: unit for e in entries for name, unit in e.units().items() if name in metrics}
        return Collected(metrics=metrics, metric_units=units, documents={DOCUMENT: document})


class JmhCollector:
    """Always on for a jmh workload: the scores are the workload's result, not an extra."""

    name = "jmh"

    def probe(self, ctx: ProbeContext) -> JmhProbe:
        return JmhProbe(ctx)
