"""The CI gate on revisions: in one experiment whose cells are revisions ``base`` and ``head``
(measured interleaved), each head cell against the base cell of the same JVM and factor levels,
on every metric the conditions name, judged by :func:`jvmlab.analyze.gate.judge` (Holm across
all of them): the same pass / fail / inconclusive as ``compare --fail-if``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from jvmlab.analyze.gate import GateCondition, GateResult, judge, metrics_for
from jvmlab.commits.judge import compare_pair
from jvmlab.errors import UserError
from jvmlab.model.stored import PROCESS_METRICS
from jvmlab.plan.matrix import REVISION_FACTOR
from jvmlab.results import load_experiment
from jvmlab.spec.model import Spec
from jvmlab.spec.revisions import Revisions
from jvmlab.store.protocol import Store

BASE, HEAD = "base", "head"


def gate_revisions(store: Store, experiment_id: int, conditions: Sequence[GateCondition]) -> GateResult:
    """Judge head against base in the stored experiment."""
    results = load_experiment(store, experiment_id, documents=False)
    names = metrics_for(conditions, [*PROCESS_METRICS, *results.units])
    by_levels: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
    for cell in results.cells:
        levels = dict(cell.levels)
        revision = levels.pop(REVISION_FACTOR, None)
        if revision in (BASE, HEAD):
            by_levels.setdefault((("jvm", cell.jvm), *sorted(levels.items())), {})[revision] = cell.name
    comparisons = [pair.comparison for metric in names for cells in by_levels.values() if len(cells) == 2
                   for pair in [compare_pair(results, cells[HEAD], cells[BASE], metric)] if pair.comparison]
    return judge(conditions, comparisons, {name: results.metrics.get(name).lower_is_better for name in names})


def with_revisions(parsed: Spec, levels: dict[str, str], repo: Path | None, build: str | None,
                    shell: bool) -> Spec:
    """The spec with these revisions (and the command line's repository and build, if given)."""
    given = parsed.revisions
    fields = given.model_dump() if given is not None else {}
    fields.update(levels=levels)
    if repo is not None:
        fields.update(repo=str(repo.absolute()))
    if build is not None:
        fields.update(build=build, shell=shell)
    try:
        return parsed.model_copy(update={"revisions": Revisions(**fields)})
    except ValueError as err:
        raise UserError(f"revisions: {err}") from None
