"""Words for a tuning run: the live progress line and the terminal summary."""

from __future__ import annotations

import shlex

from jvmlab import metrics
from jvmlab.errors import hide_passwords, resume_line
from jvmlab.tune.confirm import side_effect_words
from jvmlab.tune.engine import TuneResult
from jvmlab.tune.model import Trial
from jvmlab.tune.racing import NOT_PROMOTED
from jvmlab.tune.space import TuneConfig, grid_size
from jvmlab.tune.tuning import Tuning


def _fmt(metric: str, value: float | None) -> str:
    if value is None:
        return "-"
    unit = metrics.get(metric).unit
    return f"{value / (1 << 20):.0f} MB" if unit == "bytes" else f"{value:.4g} {unit}"


def space_line(config: TuneConfig) -> str:
    """``check``'s line for `[tune]`: what will be searched, for how long, against what."""
    b = config.budget
    limits = [f"{b.trials} trials" if b.trials else "", f"{b.invocations} invocations" if b.invocations else "",
              f"{b.wall_s:g} s of invocations" if b.wall_s else ""]
    goal = ", ".join(f"{'minimize' if o.minimize else 'maximize'} {o.metric}" for o in config.objectives)
    return (f"[tune]: {goal}; {len(config.params)} parameter(s) ({', '.join(p.name for p in config.params)}), "
            f"grid of {grid_size(config)}; budget {', '.join(x for x in limits if x)}; baseline "
            f"{' '.join(config.baseline_flags) or '(JDK defaults)'}")


def progress_line(trial: Trial, session: Tuning, elapsed_s: float) -> str:
    """``trial 7 promoted  best 1.234 s (95% CI 1.21 ... 1.26)  53 invocations  ETA 3m``."""
    obj = session.config.objectives[0].metric
    best = _fmt(obj, trial.best_after)
    ci = f" (CI {trial.best_ci[0]:.3g}..{trial.best_ci[1]:.3g})" if trial.best_ci else ""
    return (f"trial {trial.number + 1} {trial.state:<10} best {best}{ci} {session.invocations} inv."
            f" ETA {_eta(session, trial.number + 1, elapsed_s)}")


def _eta(session: Tuning, trials: int, elapsed_s: float) -> str:
    done = session.spent_share(trials)
    if done <= 0:
        return "?"
    left = max(0.0, elapsed_s / done - elapsed_s)
    return f"{left / 60:.0f}m" if left >= 90 else f"{left:.0f}s"


def summary_text(config: TuneConfig, result: TuneResult, experiment_id: int, replayed: int = 0) -> str:
    obj = config.objectives[0]
    states: dict[str, int] = {}
    for t in result.trials:
        states[t.state] = states.get(t.state, 0) + 1
    lines = [f"Tuning experiment {experiment_id}: {len(result.trials)} trials "
             f"({', '.join(f'{n} {s}' for s, n in sorted(states.items()))}), {result.invocations} invocations"
             + (f"; {n} combined from improving moves" if (n := sum(t.origin == "combined" for t in result.trials))
                else "")
             + (f" ({replayed} read back from the store)" if replayed else "")
             + f"; stopped: {result.stopped_because}",
             f"Objective: {'minimize' if obj.minimize else 'maximize'} "
             + ", ".join(o.metric for o in config.objectives)
             + (f"; guardrails: {', '.join(g.text for g in config.guardrails)}" if config.guardrails else "")]
    if result.winner_why:
        lines.append(f"Winner: {result.winner_why}")
    for c in result.confirmations:
        lines.append(f"{c.label}: {' '.join(c.config.flags) or '(JDK defaults)'} on {c.config.jvm} "
                     f"({c.blocks} confirmation blocks)")
        for against, words in c.verdicts.items():
            tail = side_effect_words(c.side_effects) if against == "baseline" else ""
            lines.append(f"  vs {against}: {words}{tail}")
    infeasible = [t for t in result.trials if t.state == "infeasible"][:3]
    for t in infeasible:
        lines.append(f"infeasible trial {t.number + 1}: {' '.join(t.config.flags)}: {t.reason}")
    for t in [t for t in result.trials if t.state.startswith("undecided")][:3]:  # stopped while ahead
        ci = f" (95% CI {t.ci[0]:.3f}..{t.ci[1]:.3f})" if t.ci else ""
        ratio = f"{t.ratio:.3f}x the incumbent{ci}" if t.ratio is not None else "no ratio"
        lines.append(f"{t.state} trial {t.number + 1}: {' '.join(t.config.flags)}: {ratio} after {t.blocks} blocks")
    for state in NOT_PROMOTED:  # better, but not promoted: the machine drifted, or others' load explains it
        for t in [t for t in result.trials if t.state == state][:3]:
            lines.append(f"{state} trial {t.number + 1}: {' '.join(t.config.flags)} not promoted, {t.reason}")
    for words in result.untried[:3]:
        lines.append(f"promising, not raced before the search stopped ({result.stopped_because}): {words}")
    if result.importances:
        top = sorted(result.importances.items(), key=lambda kv: -kv[1])
        lines.append("Parameter importance: " + ", ".join(f"{k} {v:.2f}" for k, v in top))
    for h in result.hazards[:5]:
        lines.append(f"warning: {h}")
    if len(result.hazards) > 5:
        lines.append(f"warning: ... and {len(result.hazards) - 5} more")
    lines.append(f"`jvmlab apply {experiment_id}` prints the winner's flags ready to deploy.")
    return "\n".join(lines)


def resume_text(spec: str | None, store_url: str, stored: int, optuna_storage: str | None = None) -> str:
    """What Ctrl-C leaves: what is stored and the command that continues the run exactly."""
    if spec is None:  # the built-in demo spec: nothing to name on a command line
        return f"interrupted; {stored} measured invocations are stored in {hide_passwords(store_url)}"
    argv = ["jvmlab", "tune", spec, "--resume", "--store", store_url]
    if optuna_storage:
        argv += ["--optuna-storage", optuna_storage]
    return (f"interrupted; {stored} measured invocations are stored in {hide_passwords(store_url)}; "
            f"continue with: {resume_line(shlex.join(argv))}")
