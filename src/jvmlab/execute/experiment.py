"""Opening the experiment a run writes to: a new one with its cells, or (``--resume``) the stored
one, grown by the cells the spec now adds. Split from the loop so the local runner and the
cluster runner open experiments the same way.

Growth (docs/architecture.md): the stored experiment is found by the spec's hash, else as the
newest experiment of the same spec file; :func:`jvmlab.plan.grow.align` keeps the stored cells'
indices and refuses a changed cell; the new cells are stored, the spec text is replaced by the
grown one (its earlier versions are kept in the ``spec_history`` document).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jvmlab import __version__
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.errors import UserError, hide_passwords
from jvmlab.execute.budget import Budget
from jvmlab.execute.options import RunOptions
from jvmlab.execute.slots import logs_class_loads
from jvmlab.machine.fingerprint import fingerprint
from jvmlab.model import hazards
from jvmlab.model.documents import CellIdentityDocument, SpecChange, SpecHistoryDocument
from jvmlab.model.hazards import Hazard
from jvmlab.model.probe import ProbeContext
from jvmlab.model.stored import StoredExperiment
from jvmlab.plan.grow import Growth, align, cell_identity
from jvmlab.plan.prepare import Plan, PreparedCell
from jvmlab.store.protocol import Store


@dataclass
class RunState:
    """What one session of a run keeps while it runs (counts, budget, the machine's fingerprint)."""

    experiment_id: int
    cell_ids: dict[int, int]  # plan cell index -> stored cell id
    fingerprint: dict[str, Any]
    budget: Budget
    measured: int = 0
    busy_shares: list[float] = field(default_factory=list)  # one per busy block, told once at the end


@dataclass(frozen=True)
class Resumed:
    """The stored experiment a ``--resume`` continues, and the plan renumbered to it."""

    experiment: StoredExperiment
    growth: Growth


def find_resumed(plan: Plan, store: Store, by_file: bool = True) -> Resumed:
    """The experiment to continue and the plan aligned to its cells; reads only (nothing stored).

    Runs before the environment's setup so the tmpfs copies and archives are keyed by the
    stored cell indices."""
    found = find_experiment(plan, store, by_file)
    identities = store.record(found.id, CellIdentityDocument)
    return Resumed(found, align(plan, store.cells(found.id), identities, found.id))


def find_experiment(plan: Plan, store: Store, by_file: bool = True) -> StoredExperiment:
    """The newest experiment of this spec (by its hash, else, ``by_file``, of its spec file)."""
    found = store.find_resumable(plan.spec_hash)
    if found is None and by_file and plan.spec_path is not None:  # the spec file changed: maybe it grew cells
        same_file = [e for e in store.experiments() if e.spec_path == str(plan.spec_path)]
        found = same_file[-1] if same_file else None
    if found is None:
        changed = _what_changed(plan, store.experiments())
        raise UserError("nothing to resume: no experiment of this spec in the store "
                        f"{hide_passwords(store.url)}{changed}; run it without --resume")
    return found


def _what_changed(plan: Plan, experiments: list[StoredExperiment]) -> str:
    """The experiment a changed spec most likely meant (the newest unfinished one of the same
    name, else of any name, else the newest of the same name), and what its spec had otherwise."""
    from jvmlab.spec.diff import spec_changes

    name = plan.spec.name or (plan.spec_path.stem if plan.spec_path else "experiment")
    unfinished = [e for e in experiments if e.status in ("running", "interrupted")]
    candidates = ([e for e in unfinished if e.name == name] or unfinished
                  or [e for e in experiments if e.name == name])
    if not candidates:
        return ""
    near = max(candidates, key=lambda e: e.id)
    return (f"; experiment {near.id} ({near.status}, {near.name[:60]!r}) was run from a spec that differs: "
            f"{'; '.join(spec_changes(near.spec_text, plan.spec_text))}")


def budget_of(plan: Plan, options: RunOptions) -> Budget:
    """The session's one budget: the spec's failure limits and the command line's limits."""
    return Budget(plan.shape.max_consecutive_failures, plan.shape.max_failures,
                  invocations=options.max_invocations, wall_s=options.budget_s)


def create_experiment(plan: Plan, store: Store, collect: CollectSettings, options: RunOptions,
                      cells: bool = True) -> RunState:
    """A new experiment with every cell of the plan (``cells``), its hazards and its baseline."""
    print_fp = fingerprint(plan.jdk_homes)
    shape, artifacts_root = plan.shape, options.artifacts_root
    exp_id = store.create_experiment(
        name=plan.spec.name or (plan.spec_path.stem if plan.spec_path else "experiment"),
        spec_text=plan.spec_text, spec_hash=plan.spec_hash,
        spec_path=str(plan.spec_path) if plan.spec_path else None, fingerprint=print_fp,
        seed=shape.seed, command_line=options.command_line, jvmlab_version=__version__,
        artifacts_dir=str(artifacts_root))
    if not cells:  # the driver adds its own (the tuner)
        return RunState(exp_id, {}, print_fp, budget_of(plan, options))
    cell_ids = {pc.cell.index: add_cell(store, exp_id, plan, pc, collect, artifacts_root) for pc in plan.cells}
    store.set_baseline(exp_id, plan.baseline_index)
    return RunState(exp_id, cell_ids, print_fp, budget_of(plan, options))


def resume_experiment(plan: Plan, store: Store, resumed: Resumed, collect: CollectSettings,
                      identities: CellIdentityDocument, options: RunOptions) -> RunState:
    """Continue the stored experiment; store the cells it gained (``plan`` is the aligned one)."""
    exp = resumed.experiment
    cells = {c.idx: c.id for c in store.cells(exp.id)}
    new = [pc for pc in plan.cells if pc.cell.index in resumed.growth.new_cells]
    for pc in new:
        cells[pc.cell.index] = add_cell(store, exp.id, plan, pc, collect, options.artifacts_root)
    if plan.spec_hash != exp.spec_hash:  # the spec file changed (grew cells, or more blocks): keep both texts
        history = store.record(exp.id, SpecHistoryDocument) or SpecHistoryDocument(())
        store.put_record(exp.id, history.added(SpecChange(exp.spec_hash, exp.spec_text, time.time(),
                                                          tuple(pc.cell.name for pc in new))))
        store.set_spec(exp.id, plan.spec_text, plan.spec_hash)
    if new:
        store.add_hazard(exp.id, Hazard(hazards.CELLS_ADDED, f"{len(new)} cell(s) added on resume: "
                                        f"{', '.join(pc.cell.name for pc in new)}",
                                        hint="the new cells' blocks ran later than the first cells' blocks; "
                                        "a drift of the machine in between shows only in their comparisons"))
    store.put_record(exp.id, identities)
    store.set_status(exp.id, "running")
    return RunState(exp.id, cells, exp.fingerprint, budget_of(plan, options))


def add_cell(store: Store, exp_id: int, plan: Plan, pc: PreparedCell, collect: CollectSettings,
             artifacts_root: Path) -> int:
    """Store one cell with its example argv and the hazards its flag check found."""
    # its command line as its first measured invocation runs it, with the flags the collectors add
    # (GC log, class-load log): what the provenance section shows
    added = collector_flags(pc, collect, artifacts_root / f"exp-{exp_id}", logs_class_loads(plan.cells))
    example = pc.argv([arg for _, args in added for arg in args])
    cell_id = store.add_cell(
        exp_id, idx=pc.cell.index, name=pc.cell.name, jvm=pc.cell.jvm, jdk=pc.jdk.to_json(),
        levels=dict(pc.cell.levels), requested_flags=list(pc.cell.flags), flags=list(pc.flags),
        final_flags=pc.final_flags, argv=example)
    for warning in pc.check_warnings:
        store.add_hazard(exp_id, Hazard(hazards.FLAG_NOT_IN_EFFECT, f"{warning} (the JVM said so when the "
                                        f"flags were checked)", hint="the flag is accepted but does not "
                                        "apply; fix the machine setting or drop the flag", cell=pc.cell.name))
    for warning in pc.heap_warnings:
        store.add_hazard(exp_id, Hazard(hazards.HEAP_EXCEEDS_MEMORY, warning, cell=pc.cell.name,
                                        hint="lower -Xmx, or run on a machine with more memory"))
    if pc.added_unlocks:
        store.add_hazard(exp_id, Hazard(hazards.UNLOCK_ADDED, f"added {' '.join(pc.added_unlocks)} for "
                                        f"diagnostic/experimental flags", cell=pc.cell.name))
    return cell_id


def identities_of(plan: Plan) -> CellIdentityDocument:
    """Each cell's identity by index, taken before the environment's setup changes the plan."""
    return CellIdentityDocument({pc.cell.index: cell_identity(pc) for pc in plan.cells})


def collector_flags(pc: PreparedCell, settings: CollectSettings, exp_dir: Path,
                    class_log: bool = False) -> list[tuple[str, list[str]]]:
    """Each collector's JVM flags for the cell's first measured invocation (name, flags): what
    jvmlab adds to the cell's own command line (`check` shows them marked)."""
    progress_mode = pc.template.progress_mode if pc.template is not None else "auto"
    collectors = build_collectors(settings, pc.launch.progress_regex, progress_mode, jmh=pc.launch.kind == "jmh")
    ctx = ProbeContext(jdk=pc.jdk, cell_name=pc.cell.name, flags=pc.flags,
                       artifacts_dir=exp_dir / f"cell-{pc.cell.index}" / "b0", final_flags=pc.final_flags,
                       workload_kind=pc.launch.kind, class_log=class_log)
    return [(c.name, args) for c in collectors if (args := c.probe(ctx).jvm_args())]


ARTIFACTS_SHOWN = Path("/ARTIFACTS")  # `check` has no store: the run's artifacts folder, by name


def check_commands(plan: Plan) -> list[list[str]]:
    """Each cell's command line as `run` starts its first measured invocation (the collectors'
    flags in it, their paths under ARTIFACTS), then what jvmlab added to the cell's own, marked."""
    import shlex

    settings = CollectSettings.from_spec(plan.shape.collect, {})
    class_log = logs_class_loads(plan.cells)
    out = []
    for pc in plan.cells:
        added = collector_flags(pc, settings, ARTIFACTS_SHOWN / "exp-N", class_log)
        lines = [shlex.join(pc.argv([arg for _, args in added for arg in args]))]
        lines += [f"+ added by jvmlab ({name}): {shlex.join(args)}" for name, args in added]
        if pc.template is not None and pc.template.prepare is not None:
            lines.append(f"+ added by jvmlab ({pc.template.prepare.kind}): the archive's flag, once a training "
                         f"run has made it, before the first measured invocation")
        out.append(lines)
    if any(len(lines) > 1 for lines in out):
        out[0].append(f"(+: not in the spec; {ARTIFACTS_SHOWN}: the run's artifacts folder, --artifacts; "
                      f"`run --no-collect NAME` drops a collector's flags)")
    return out
