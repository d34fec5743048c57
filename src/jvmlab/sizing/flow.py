"""The steps of a sizing study as library calls the CLI and the `size` demo share: search the
minimum heap, then plan a sweep from it (or from absolute sizes) and run it through the
caller's hand-over (``run(plan, resume) -> experiment id``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jvmlab.errors import UserError
from jvmlab.model.documents import HeapLevel, HeapSweepDocument
from jvmlab.plan.prepare import Plan, prepare
from jvmlab.sizing.minheap import Status
from jvmlab.sizing.results import SweepResult, load_sweep
from jvmlab.sizing.study import MinHeapStudy
from jvmlab.sizing.sweep import levels_from_multiples, sweep_toml
from jvmlab.spec.load import parse_spec
from jvmlab.store.protocol import Store


@dataclass(frozen=True)
class SweepSetup:
    plan: Plan
    levels: tuple[HeapLevel, ...]
    reference_bytes: int | None
    minheap_experiment: int | None

    def document(self) -> HeapSweepDocument:
        return HeapSweepDocument(self.levels, self.reference_bytes, self.minheap_experiment)


def reference_minimum(study: MinHeapStudy) -> int:
    """The largest confirmed minimum over the cells, so every cell can run at 1x."""
    found = [c.result.upper_bytes for c in study.cells
             if c.result.status in (Status.FOUND, Status.BELOW_LOWER) and c.result.upper_bytes is not None]
    if not found:
        raise UserError("no cell has a minimum heap, so there is nothing to take multiples of: "
                        "widen --lower/--upper, or sweep absolute sizes with --sizes")
    return max(found)


def plan_sweep(base: Plan, levels: Sequence[HeapLevel], *, reference_bytes: int | None = None,
               minheap_experiment: int | None = None, invocations: int | None = None) -> SweepSetup:
    """The base spec with a heap factor, prepared (flags checked) like any spec."""
    text = sweep_toml(base.spec, base.spec_text, levels, invocations)
    spec = parse_spec(text, "heap sweep")
    spec = spec.model_copy(update={"name": f"{base.spec.name or 'experiment'}: heap sweep"})
    return SweepSetup(prepare(spec, text, base.spec_path), tuple(levels), reference_bytes, minheap_experiment)


def sweep_from_study(base: Plan, study: MinHeapStudy, multiples: Sequence[float],
                     invocations: int | None = None) -> SweepSetup:
    ref = reference_minimum(study)
    return plan_sweep(base, levels_from_multiples(ref, multiples), reference_bytes=ref,
                      minheap_experiment=study.experiment_id, invocations=invocations)


def run_sweep(setup: SweepSetup, store: Store, metric: str, within: float, run: Callable[[Plan, bool], int],
              resume: bool = False) -> SweepResult:
    """Run the sweep as a normal experiment (``run``: the caller's hand-over of a plan), store its
    levels and load its curves and knees. With ``resume``, a stored sweep of the same spec and
    sizes continues where it stopped."""
    resume = resume and store.find_resumable(setup.plan.spec_hash) is not None
    experiment_id = run(setup.plan, resume)
    store.put_record(experiment_id, setup.document())
    return load_sweep(store, experiment_id, metric, within)

