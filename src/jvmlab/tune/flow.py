"""`jvmlab tune SPEC`: read `[tune]`, check everything that can be checked before a JVM
runs, open (or resume) the experiment, run the engine, store the result document.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from jvmlab.collect.registry import CollectSettings
from jvmlab.errors import UserError
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import SilentObserver
from jvmlab.execute.session import Session
from jvmlab.model.documents import TunedConfig, TunedConfirmation, TunedObjective, TuneDocument, TunedTrial
from jvmlab.plan.prepare import Plan
from jvmlab.store.protocol import Store
from jvmlab.tune.engine import TuneResult, tune
from jvmlab.tune.jvm import JvmMeasurer
from jvmlab.tune.model import Config, FlagJudge, Trial
from jvmlab.tune.progress import TuneProgress
from jvmlab.tune.sources import check_measured
from jvmlab.tune.space import TuneConfig, parse_tune
from jvmlab.tune.tuning import Tuning


def read_config(plan: Plan) -> TuneConfig:
    config = parse_tune(plan.spec.tune, tuple(plan.spec.jvms))
    if plan.spec.factors:
        raise UserError("[tune] and [factors] do not mix: the tuner makes its own cells from [tune.params]")
    on = dict(CollectSettings.from_spec(plan.shape.collect).values)
    ready = bool(plan.spec.workload.ready)
    for o in config.objectives:
        check_measured(o.metric, "objective", on, ready)
    for g in config.guardrails:
        check_measured(g.metric, "guardrail on", on, ready)
    return config


def check_space(config: TuneConfig, measurer: FlagJudge, default_jvm: str) -> None:  # before any trial
    """A parameter none of whose values a JDK accepts is a spec mistake: say so before running."""
    for p in config.params:
        if p.kind == "jdk":
            continue
        values = p.grid(2) if p.kind in ("int", "size") else p.grid()
        reasons = [measurer.rejected(default_jvm, p.flags(v)) for v in values]
        if all(r is not None for r in reasons):
            raise UserError(f"[tune.params.{p.name}]: every value fails on {default_jvm}: {reasons[0]}")


def result_document(config: TuneConfig, result: TuneResult,
                    run_flags: Mapping[str, tuple[str, ...]] | None = None) -> TuneDocument:
    """The record the store keeps (`apply`, `report`): trials, winner, Pareto points, confirmations.
    ``run_flags``: what each configuration really ran with (unlocks and archive flags added)."""
    def cfg(c: Config) -> TunedConfig:
        ran = run_flags.get(c.key) if run_flags else None
        return TunedConfig(dict(c.values), c.jvm, tuple(c.flags), tuple(ran) if ran is not None else None)
    return TuneDocument(
        objectives=tuple(TunedObjective(o.metric, o.minimize) for o in config.objectives),
        guardrails=tuple(g.text for g in config.guardrails),
        trials=tuple(TunedTrial(t.number, cfg(t.config), t.state, t.blocks, t.ratio, t.ci, t.estimate, t.reason,
                                t.best_after, t.best_ci, t.block_range, t.origin) for t in result.trials),
        winner=cfg(result.winner), baseline=cfg(result.baseline), pareto=tuple(cfg(c) for c in result.pareto),
        confirmations=tuple(TunedConfirmation(c.label, cfg(c.config), c.blocks, dict(c.against), dict(c.verdicts),
                                              dict(c.side_effects)) for c in result.confirmations),
        importances=dict(result.importances), invocations=result.invocations, hazards=tuple(result.hazards),
        stopped_because=result.stopped_because, winner_why=result.winner_why)


def open_experiment(plan: Plan, store: Store, artifacts: Path, resume: bool, command_line: str) -> int:
    """The tuning run's experiment, made (or, ``resume``, found) by the session; its cells come
    one per configuration as the trials run."""
    options = RunOptions(artifacts_root=artifacts, resume=resume, command_line=command_line)
    session = Session(store, plan, options, SilentObserver(), grows=False, own_cells=False)
    return session.open().experiment_id


def run_tune(plan: Plan, store: Store, experiment_id: int, artifacts: Path, executor: Any,
             on_trial: Callable[[Trial, Tuning], None] | None = None,
             measurer: JvmMeasurer | None = None, progress: TuneProgress | None = None,
             optuna_storage: str | None = None) -> tuple[TuneConfig, TuneResult, JvmMeasurer]:
    """``measurer``: another way to run the invocations (tune --cluster); default: this machine.
    ``optuna_storage``: an Optuna RDB URL keeping the study as ``jvmlab-<experiment>``."""
    config = read_config(plan)
    default_jvm = next(iter(plan.spec.jvms))
    measurer = measurer or JvmMeasurer(plan, store, experiment_id, artifacts, executor)
    check_space(config, measurer, default_jvm)
    with measurer:  # the spec's [environment] around the session, torn down on any exit
        result = tune(config, measurer, default_jvm, on_trial=on_trial, progress=progress,
                      storage=optuna_storage, study_name=f"jvmlab-{experiment_id}")
    result.hazards.extend(measurer.block_hazards())  # the teardown's: the hooks' cleanups run there
    store.put_record(experiment_id, result_document(config, result, measurer.run_flags()))
    measurer.finish()  # the session stores the status (done)
    return config, result, measurer
