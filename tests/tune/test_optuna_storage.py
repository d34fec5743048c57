"""`tune --optuna-storage URL`: the study kept in an Optuna RDB storage (a real SQLite file)
holds the same trials and values as the run, so optuna-dashboard can open it (issue 32 item 8)."""

import dataclasses

import optuna
import pytest

from cli_runner import run_jvmlab
from jvmlab.errors import UserError
from jvmlab.tune.engine import tune
from jvmlab.tune.sampler import open_storage
from jvmlab.tune.sim import SimMeasurer, sim_config
from jvmlab.tune.space import Budget


def _cfg():
    return dataclasses.replace(sim_config(), guardrails=(), seed=7, budget=Budget(10, None, None))


def test_the_stored_study_holds_the_same_trials_and_values_as_an_in_memory_run(tmp_path):
    url = f"sqlite:///{tmp_path / 'optuna.db'}"
    in_memory = tune(_cfg(), SimMeasurer(7), "default", do_confirm=False)
    stored = tune(_cfg(), SimMeasurer(7), "default", do_confirm=False, storage=url, study_name="jvmlab-1")
    assert [(t.config.key, t.state, t.estimate) for t in stored.trials] == [
        (t.config.key, t.state, t.estimate) for t in in_memory.trials]
    study = optuna.load_study(study_name="jvmlab-1", storage=url)
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert [t.value for t in done] == [t.estimate[0] for t in stored.trials if t.estimate is not None]
    assert study.metric_names == ["wall_s"]
    assert {t.user_attrs["jvmlab_state"] for t in done} <= {t.state for t in stored.trials}
    # a rerun of the same experiment (tune --resume replays) replaces the study, never doubles it
    tune(_cfg(), SimMeasurer(7), "default", do_confirm=False, storage=url, study_name="jvmlab-1")
    again = optuna.load_study(study_name="jvmlab-1", storage=url)
    assert len(again.trials) == len(study.trials)


def test_a_bad_storage_url_is_one_line():
    with pytest.raises(UserError) as err:
        open_storage("nosuchdialect://x", None)
    assert "--optuna-storage" in str(err.value) and "\n" not in str(err.value)


def test_tune_refuses_a_bad_storage_url_before_anything_runs(tmp_path):
    spec = tmp_path / "tune.toml"
    spec.write_text('[workload]\nbuiltin = "hello"\n[tune]\nbudget = { trials = 2 }\n'
                    '[tune.params.gc]\ntype = "categorical"\nvalues = { serial = "-XX:+UseSerialGC", g1 = "" }\n')
    proc = run_jvmlab("tune", str(spec), "--store", "lab.db", "--optuna-storage", "nosuchdialect://x", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "--optuna-storage" in proc.stderr, proc.stderr
    assert not (tmp_path / "lab.db").exists()
