"""Confirmation: the winner against the baseline and the JDK's defaults in a fresh
randomized-block run whose length is fixed by Stein's two-stage rule: a first stage of
MIN_BLOCKS blocks measures the spread of the winner/baseline log ratio, which fixes how many
blocks give a CI within the target (2% by default, relative), capped by the block limit; the
verdict in `run`'s words.

Stopping at the first block where the running CI looks narrow would stop on a lucky small
spread, and such an interval undercovers (94.4% in 2,000 seeded confirmations against
95.8% for this rule: `tests/tune/test_confirm_coverage.py`).
"""

from __future__ import annotations

import math

import numpy as np

from jvmlab import metrics
from jvmlab.analyze.interference import contention_moves, paired_blocks_adjusted
from jvmlab.metrics import RUN_DELAY
from jvmlab.report.notation import pct_change_ci
from jvmlab.report.verdicts import change_phrase, verb
from jvmlab.tune.model import Config, Confirmation
from jvmlab.tune.progress import TuneProgress
from jvmlab.tune.stats import bootstrap_ratio, log_value, stein_blocks, stein_interval
from jvmlab.tune.tuning import Tuning

MIN_BLOCKS = 10  # Stein's first stage: the spread measured here fixes the blocks needed


def confirm(session: Tuning, label: str, winner: Config, baseline: Config, defaults: Config,
            progress: TuneProgress | None = None) -> Confirmation:
    cfg = session.config
    if winner.key == baseline.key:  # the baseline stayed best: nothing else to confirm
        out = Confirmation(label, winner, 0)
        out.verdicts["baseline"] = "no candidate beat the baseline with a CI to show for it: keep the baseline"
        return out
    others = ({"baseline": baseline} if defaults.key in (baseline.key, winner.key)
              else {"baseline": baseline, "defaults": defaults})
    configs = [winner, *others.values()]
    progress = progress or TuneProgress()
    progress.set(f"confirming the {label}", " ".join(winner.flags) or "JDK defaults",
                 blocks_max=cfg.confirm_max_blocks, width=len(configs))
    logs: dict[str, dict[str, list[float]]] = {name: {} for name in others}
    contended: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in others}
    blocks, needed, primary = 0, 0, cfg.objectives[0].metric
    target_log = math.log1p(cfg.confirm_ci_pct / 100.0)
    for block_results in session.blocks(configs, cfg.confirm_max_blocks):
        results = [r for r in block_results if not isinstance(r, str)]
        if len(results) < len(configs):  # a failure is its reason string
            session.hazards.append(f"block {session.block}: a confirmation invocation failed")
            continue
        blocks += 1
        for name, got in zip(others, results[1:], strict=True):
            for metric, value in results[0].items():
                if metric in got:
                    logs[name].setdefault(metric, []).append(log_value(value) - log_value(got[metric]))
            if all(m in r for r in (results[0], got) for m in (primary, RUN_DELAY)):
                contended[name].append((results[0][primary], got[primary], results[0][RUN_DELAY], got[RUN_DELAY]))
        main = logs["baseline"].get(primary, [])
        if not needed and len(main) >= MIN_BLOCKS:
            needed = stein_blocks(main[:MIN_BLOCKS], target_log)
            progress.limit(min(needed, cfg.confirm_max_blocks))
            if needed > cfg.confirm_max_blocks:
                session.hazards.append(
                    f"confirmation: {needed} blocks were needed for a CI within {cfg.confirm_ci_pct:g}%; "
                    f"confirm_max_blocks stops it at {cfg.confirm_max_blocks}, so the CI is wider")
        if needed and len(main) >= needed:
            break
    return _summarise(session, label, winner, blocks, logs, contended)


def _summarise(session: Tuning, label: str, winner: Config, blocks: int,
               logs: dict[str, dict[str, list[float]]],
               contended: dict[str, list[tuple[float, float, float, float]]] | None = None) -> Confirmation:
    out = Confirmation(label, winner, blocks)
    for name, per_metric in logs.items():
        for i, obj in enumerate(session.config.objectives):
            diffs = per_metric.get(obj.metric, [])
            if len(diffs) < 2:
                key = name if i == 0 else f"{name}:{obj.metric}"
                out.verdicts[key] = f"{obj.metric}: not measured (too few blocks)"
                continue
            ratio, ci = bootstrap_ratio(diffs, session.seed + i)
            if name == "baseline" and i == 0 and len(diffs) >= MIN_BLOCKS:
                ci = _with_stein(ci, diffs)
            significant = not (ci[0] <= 1.0 <= ci[1])
            key = name if i == 0 else f"{name}:{obj.metric}"
            out.against[key] = (ratio, ci)
            measured = metrics.get(obj.metric)
            phrase = change_phrase(ratio, ci, significant, measured)  # "is 12% faster", "uses 37% less CPU time"
            out.verdicts[key] = f"{verb(measured)} {phrase}" if significant else phrase
            if i == 0 and significant and contention_moves(obj.metric):  # the one model, as `run` judges
                adjusted = paired_blocks_adjusted((contended or {}).get(name, []))
                if adjusted is not None and not adjusted.confirms(ci):
                    out.verdicts[key] += (f"; but disturbed: at equal run-queue delay "
                                          f"({adjusted.delay_s:.2g} s per run) the change is "
                                          f"{(adjusted.ratio - 1) * 100:+.1f}% ({pct_change_ci(adjusted.ci95)}), "
                                          f"so the machine's load could explain it; confirm on a quieter machine")
        if name == "baseline":
            for metric, diffs in per_metric.items():
                if metric not in {o.metric for o in session.config.objectives} and diffs:
                    out.side_effects[metric] = float(math.exp(np.mean(diffs)))
    return out


def _with_stein(ci: tuple[float, float], diffs: list[float]) -> tuple[float, float]:
    """The bootstrap/t interval widened to hold Stein's interval, whose coverage does not
    depend on the data-chosen number of blocks."""
    lo, hi = stein_interval(diffs, MIN_BLOCKS)
    return (min(ci[0], math.exp(lo)), max(ci[1], math.exp(hi)))


def side_effect_words(side: dict[str, float]) -> str:
    """", peak RSS +3%" style tails for the verdict line."""
    names = {"max_rss_bytes": "peak RSS", "user_s": "CPU user time", "gc.pause_total_ms": "GC pauses"}
    parts = [f"{names[m]} {(r - 1) * 100:+.0f}%" for m, r in side.items() if m in names]
    return (", " + ", ".join(parts)) if parts else ""
