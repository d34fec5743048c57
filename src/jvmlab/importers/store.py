"""Write an imported experiment into the store like a run: cells, one invocation per fork or
run, a hazard and run options saying what the files could not tell."""

from __future__ import annotations

import json

from jvmlab import __version__
from jvmlab.errors import UserError
from jvmlab.importers.model import ImportedExperiment, ImportedRun
from jvmlab.model.collected import Collected
from jvmlab.model.documents import ImportDocument, ImportedFrom, RunOptionsRecord
from jvmlab.model.hazards import IMPORTED, Hazard
from jvmlab.model.process import ProcessMeasures, ProcessResult, Status
from jvmlab.model.stored import SeriesTag
from jvmlab.store.protocol import Store


def store_import(store: Store, imported: ImportedExperiment, baseline: str | None = None,
                 command_line: str = "", series: SeriesTag | None = None) -> int:
    """Store ``imported`` as a finished experiment; return its id. With ``series`` (``--label``)
    it joins that series (default: the import's name) like a labelled run."""
    names = [c.name for c in imported.cells]
    if baseline is not None and baseline not in names:
        raise UserError(f"--baseline {baseline!r} is not a cell of the import; cells: {', '.join(names)}")
    spec_text = "# imported, not run by jvmlab\n" + json.dumps(
        {"import": imported.source, "files": list(imported.files)}, indent=2) + "\n"
    exp_id = store.create_experiment(
        name=imported.name, spec_text=spec_text, spec_hash=imported.texts_digest, spec_path=None,
        fingerprint={}, seed=1, command_line=command_line, jvmlab_version=__version__, artifacts_dir="")
    cell_ids = [store.add_cell(exp_id, idx=k, name=c.name, jvm=c.jvm, jdk=c.jdk, levels=dict(c.levels),
                               requested_flags=list(c.flags), flags=list(c.flags), final_flags={}, argv=None)
                for k, c in enumerate(imported.cells)]
    # Blocks are numbered in file order and never shared between cells: nothing is paired
    # across cells, because nothing says two runs were measured side by side.
    for block, run in enumerate(imported.runs):
        store.record_invocation(exp_id, cell_ids[run.cell], block=block, position=0,
                                result=_result(run, imported.started_at),
                                collected=Collected(metrics=dict(run.metrics), metric_units=dict(run.units)),
                                argv=[], artifacts_dir=None)
    store.set_baseline(exp_id, names.index(baseline) if baseline is not None else 0)
    unknown = list(imported.unknown)
    store.add_hazard(exp_id, Hazard(IMPORTED, f"imported from {imported.source} results "
                                    f"({', '.join(imported.files)}); unknown: " + "; ".join(unknown),
                                    "run it with jvmlab (randomized blocks, measured from the child) to know these"))
    # the metric is read back by plan.metric_choice.choose_metric, as a run's choice is
    store.set_run_options(exp_id, RunOptionsRecord(
        metric=imported.metric, metric_reason=imported.metric_reason if imported.metric is not None else None,
        imported=ImportedFrom(imported.source, tuple(imported.files)), block_order="unknown",
        unknown=tuple(unknown)))
    store.put_record(exp_id, ImportDocument(dict(imported.documents)))
    if series is not None:
        store.set_series(exp_id, series, imported.name)
    store.set_status(exp_id, "done", finished=True)
    return exp_id


def _result(run: ImportedRun, started_at: float) -> ProcessResult:
    """A run as the store's record: failed when its exit code was not 0; times not in the
    file stay None."""
    ok = run.exit_code in (0, None)
    measures = None
    if run.wall_s is not None:
        measures = ProcessMeasures(wall_s=run.wall_s, user_s=None, sys_s=None, max_rss_bytes=run.max_rss_bytes,
                                   minor_faults=None, major_faults=None, vol_ctx_switches=None,
                                   invol_ctx_switches=None)
    return ProcessResult(Status.OK if ok else Status.FAILED, None if ok else f"exit code {run.exit_code}",
                         run.exit_code, None, measures, None, started_at)
