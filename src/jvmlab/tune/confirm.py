"""Confirmation: the winner against the baseline and the JDK's defaults in a fresh
randomized-block run, until the CI of the winner/baseline ratio is within the target
(2% by default) or the block limit says stop; the verdict in `run`'s words.
"""

from __future__ import annotations

import math

import numpy as np

from jvmlab import metrics
from jvmlab.report.verdicts import change_phrase
from jvmlab.tune.model import Config, Confirmation
from jvmlab.tune.session import Session
from jvmlab.tune.space import TuneConfig
from jvmlab.tune.stats import bootstrap_ratio, half_width_pct, log_value

MIN_BLOCKS = 10  # fewer: a lucky small spread stops early and the CI undercovers


def confirm(session: Session, label: str, winner: Config, baseline: Config, defaults: Config) -> Confirmation:
    cfg = session.config
    if winner.key == baseline.key:  # the baseline stayed best: nothing else to confirm
        out = Confirmation(label, winner, 0)
        out.verdicts["baseline"] = "no candidate beat the baseline with a CI to show for it: keep the baseline"
        return out
    others = ({"baseline": baseline} if defaults.key in (baseline.key, winner.key)
              else {"baseline": baseline, "defaults": defaults})
    configs = [winner, *others.values()]
    logs: dict[str, dict[str, list[float]]] = {name: {} for name in others}
    blocks = 0
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
        if blocks >= MIN_BLOCKS and _precise(logs["baseline"].get(cfg.objectives[0].metric, []), cfg, session.seed):
            break
    return _summarise(session, label, winner, blocks, logs)


def _precise(diffs: list[float], cfg: TuneConfig, seed: int) -> bool:
    if len(diffs) < MIN_BLOCKS:
        return False
    _, ci = bootstrap_ratio(diffs, seed)
    return half_width_pct(ci) <= cfg.confirm_ci_pct


def _summarise(session: Session, label: str, winner: Config, blocks: int,
               logs: dict[str, dict[str, list[float]]]) -> Confirmation:
    out = Confirmation(label, winner, blocks)
    for name, per_metric in logs.items():
        for i, obj in enumerate(session.config.objectives):
            diffs = per_metric.get(obj.metric, [])
            if len(diffs) < 2:
                key = name if i == 0 else f"{name}:{obj.metric}"
                out.verdicts[key] = f"{obj.metric}: not measured (too few blocks)"
                continue
            ratio, ci = bootstrap_ratio(diffs, session.seed + i)
            significant = not (ci[0] <= 1.0 <= ci[1])
            key = name if i == 0 else f"{name}:{obj.metric}"
            out.against[key] = (ratio, ci)
            out.verdicts[key] = change_phrase(ratio, ci, significant, metrics.get(obj.metric))
        if name == "baseline":
            for metric, diffs in per_metric.items():
                if metric not in {o.metric for o in session.config.objectives} and diffs:
                    out.side_effects[metric] = float(math.exp(np.mean(diffs)))
    return out


def side_effect_words(side: dict[str, float]) -> str:
    """", peak RSS +3%" style tails for the verdict line."""
    names = {"max_rss_bytes": "peak RSS", "user_s": "CPU user time", "gc.pause_total_ms": "GC pauses"}
    parts = [f"{names[m]} {(r - 1) * 100:+.0f}%" for m, r in side.items() if m in names]
    return (", " + ", ".join(parts)) if parts else ""
