"""Optuna through ask/tell: the sampler proposes, jvmlab measures and remembers.

The study lives in memory only and is rebuilt from the store's history on every start, so
the tuner keeps no state of its own: with a seeded sampler the same history gives the same
next proposal, which is what makes `tune --resume` continue exactly where a kill stopped.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any, Literal

import optuna

from jvmlab.tune.space import Param, TuneConfig

optuna.logging.set_verbosity(logging.WARNING)


class Sampler:
    """TPE for one objective, NSGA-II for several; ``ask`` -> values, ``tell`` -> result.

    ``storage``: an Optuna RDB URL (``sqlite:///optuna.db``, ``postgresql://...``) where the study
    is kept under ``study_name`` so optuna-dashboard can open it. jvmlab's store stays the
    memory: a study of that name is replaced, and the replay on `--resume` writes it again."""

    def __init__(self, config: TuneConfig, *, storage: str | None = None, study_name: str | None = None) -> None:
        self.config = config
        directions: list[Literal["minimize", "maximize"]] = [
            "minimize" if o.minimize else "maximize" for o in config.objectives]
        if config.multi:
            sampler: optuna.samplers.BaseSampler = optuna.samplers.NSGAIISampler(seed=config.seed, population_size=8)
        else:
            with warnings.catch_warnings():  # multivariate/group are "experimental" in Optuna
                warnings.simplefilter("ignore")
                sampler = optuna.samplers.TPESampler(seed=config.seed, n_startup_trials=8, multivariate=True,
                                                     group=True)
        rdb = open_storage(storage, study_name) if storage else None
        self.study = optuna.create_study(directions=directions, sampler=sampler, storage=rdb,
                                         study_name=study_name if rdb else None)
        with warnings.catch_warnings():  # "experimental" in Optuna
            warnings.simplefilter("ignore")
            self.study.set_metric_names([o.metric for o in config.objectives])
        self._open: optuna.trial.Trial | None = None
        self._queued = 0  # enqueued trials not asked yet (Optuna hands them out first, in order)
        self._open_queued = False

    def ask(self) -> dict[str, Any]:
        """The next configuration: conditional parameters only when their condition holds."""
        self._open_queued = self._queued > 0
        self._queued -= self._open_queued
        trial = self.study.ask()
        values: dict[str, Any] = {}
        for p in self.config.params:
            if p.active(values):
                values[p.name] = _suggest(trial, p)
        self._open = trial
        return values

    def enqueue(self, values: dict[str, Any]) -> None:
        """A configuration the next ``ask`` returns (the combined candidate)."""
        self.study.enqueue_trial(values, skip_if_exists=False)
        self._queued += 1

    def queued(self) -> bool:
        return self._queued > 0

    def was_queued(self) -> bool:
        """The open trial came from ``enqueue``, not from the sampler."""
        return self._open_queued

    def tell(self, objective: tuple[float, ...] | None, state: str | None = None) -> None:
        """The open trial's estimated objective(s); None: infeasible (failed or guardrail).
        ``state``: the race's outcome, kept as a user attribute (shown by optuna-dashboard)."""
        assert self._open is not None
        if state is not None:
            self._open.set_user_attr("jvmlab_state", state)
        if objective is None:
            self.study.tell(self._open, state=optuna.trial.TrialState.FAIL)
        else:
            self.study.tell(self._open, list(objective) if self.config.multi else objective[0])
        self._open = None

    def importances(self) -> dict[str, float]:
        """fANOVA importances (Optuna's own implementation); {} when too few trials."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return dict(optuna.importance.get_param_importances(
                    self.study, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=0),
                    target=(lambda t: t.values[0]) if self.config.multi else None))
        except (ValueError, RuntimeError, ImportError, ZeroDivisionError):
            return {}


def _suggest(trial: optuna.trial.Trial, p: Param) -> Any:
    if p.kind in ("categorical", "jdk"):
        return trial.suggest_categorical(p.name, list(p.choices))
    if p.kind == "bool":
        return trial.suggest_categorical(p.name, [False, True])
    if p.log:
        return trial.suggest_int(p.name, p.low, p.high, log=True)
    return trial.suggest_int(p.name, p.low, p.high, step=p.step)


def open_storage(url: str, study_name: str | None) -> optuna.storages.BaseStorage:
    """An Optuna RDB storage at ``url`` with no study named ``study_name`` left in it (a rerun
    of the same experiment replaces its study rather than adding the same trials twice)."""
    from sqlalchemy.exc import SQLAlchemyError

    from jvmlab.errors import UserError, hide_passwords

    try:
        storage = optuna.storages.RDBStorage(url)
    except (ImportError, ValueError, SQLAlchemyError, optuna.exceptions.OptunaError) as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise UserError(hide_passwords(f"--optuna-storage {url!r}: cannot open: {first}")) from None
    if study_name is not None:
        try:
            optuna.delete_study(study_name=study_name, storage=storage)
        except KeyError:
            pass
    return storage
