"""Verdict sentences: the one place where statistics become words.

Rules (documented in docs/statistics.md):

* not significant after correction -> "no clear difference (95% CI -1.2% ... +0.8%)";
* a ratio at or beyond 2x either way -> "4.6x slower (95% CI 4.3-4.9x)"; below 1 the
  factor is inverted ("2.5x faster" is a ratio of 0.4) and so is its interval;
* otherwise the percent change of the metric -> "12.3% faster (95% CI 10.1% ... 14.2%)".
  For time, "12.3% faster" means 12.3% less time, not a 12.3% higher speed.

Direction words come from the metric registry (``unit`` and ``lower_is_better``): time
is slower/faster, memory more/less memory, throughput higher/lower throughput, counts
more/fewer.
"""

from __future__ import annotations

from jvmlab.analyze.interference import (
    BETWEEN_RUN_PRIOR,
    BETWEEN_RUN_SD_OPTION,
    CPU_CONTENTION,
    CPU_TIMES,
    DelayAdjusted,
    factor,
)
from jvmlab.analyze.model import Comparison, Effect, Interval
from jvmlab.analyze.smallsample import PERCENTILE_SMALL_N as EFFECT_SMALL_N_KIND
from jvmlab.analyze.smallsample import T_SMALL_N as SMALL_N_KIND
from jvmlab.metrics import Metric
from jvmlab.report.notation import pct as _pct
from jvmlab.report.notation import pct_change_ci as _signed_ci
from jvmlab.report.notation import sentence_ci, times_ci
from jvmlab.report.notation import times as _times
from jvmlab.results.compare import (
    QUIET_BLOCKS,
    RUN_DELAY_COVARIATE,
    UNMOVED,
    Disturbance,
    VerdictKind,
    ci_excludes_one,
    verdict_kind,
)
from jvmlab.results.node_verdicts import HIERARCHICAL

LARGE_RATIO = 2.0
_TIME_UNITS = {"s", "ms", "us", "ns"}
_MEMORY_UNITS = {"bytes", "MB", "KB", "GB", "MiB", "KiB", "GiB"}
_EVENT_TIME_PREFIXES = ("gc.", "load.latency", "jfr.gc")
# CPU time spent is an amount used, not a speed: "uses 37% less CPU time", never "37% faster".
_CPU_TIME = {"cpu_s": "CPU time", "user_s": "user CPU time", "sys_s": "system CPU time",
             "client.cpu_s": "client CPU time"}


def _event_time(metric: Metric) -> bool:
    """A time of something inside the run (a GC pause, a request's latency), not the run's own
    time: "ZGC has 1095x shorter pause p99", never "is 1095x faster"."""
    return metric.unit in _TIME_UNITS and metric.name.startswith(_EVENT_TIME_PREFIXES)


def direction_words(metric: Metric) -> tuple[str, str]:
    """Words for (ratio > 1, ratio < 1) on this metric."""
    if _event_time(metric):
        label = metric.label or metric.name
        return f"longer {label}", f"shorter {label}"
    if metric.name in _CPU_TIME:
        return f"more {_CPU_TIME[metric.name]}", f"less {_CPU_TIME[metric.name]}"
    if metric.unit in _TIME_UNITS:
        return ("slower", "faster") if metric.lower_is_better else ("longer", "shorter")
    if metric.unit in _MEMORY_UNITS:
        return "more memory", "less memory"
    if metric.unit == "units/s":
        return "higher throughput", "lower throughput"
    if metric.unit == "count":
        return f"more {metric.description}", f"fewer {metric.description}"
    return f"higher {metric.name}", f"lower {metric.name}"


def verb(metric: Metric) -> str:
    """The verb that fits the direction words: "is" slower, "uses" more memory, "has" ..."""
    if metric.name in _CPU_TIME or metric.unit in _MEMORY_UNITS:
        return "uses"
    return "is" if metric.unit in _TIME_UNITS and not _event_time(metric) else "has"


def ci_only_note(compared_metric: str, metric: str) -> str:
    """What "clear" means on a secondary metric (no test; the CI alone): one wording, here."""
    return (f"Here \"clearly\" means the 95% bootstrap CI excludes 1, not corrected together with "
            f"{compared_metric}; `jvmlab report --metric {metric}` gives this metric's tested verdicts.")


def _what_disturbed(d: Disturbance) -> str:
    parts = []
    if d.busy_blocks:
        worst = f", up to {d.worst_share_pct}% of the CPU" if d.worst_share_pct is not None else ""
        parts.append(f"other processes were busy during {d.busy_blocks} of {d.n_blocks} blocks{worst}")
    if d.drift is not None:
        parts.append(f"{d.drift.cell} drifted across blocks ({d.drift.slope_rel_per_block:+.2%} per block, "
                     f"Spearman p={d.drift.p_value:.2g})")
    return " and ".join(parts)


def _margin_factor(d: Disturbance) -> str:
    """A margin as the factor it is: "up to 6.6x", never "±560%" (a factor of 10 is +900% / -90%)."""
    return f"up to {factor(d.margin):.3g}x"


def _delay(d: Disturbance) -> str:
    return f"run-queue delay {d.delay_s:.2g} s per run" if d.delay_s is not None else "run-queue delay not measured"


def machine_changed_text(delays_s: tuple[float, float], where: str | None = None, metric: str = "wall_s") -> str:
    """"inconclusive: the machine changed at v8 (run-queue delay 0.9 -> 0.1 s per run)"; on CPU
    time, the little a busy machine moves it (shared caches) is said instead of the CPU hint."""
    at = f" at {where}" if where else ""
    hint = (f"a busy machine moves CPU time by up to {CPU_CONTENTION:.0%} (shared caches and cores); rerun both "
            f"sides under the same load" if metric in CPU_TIMES
            else "rerun both sides under the same load, or compare --metric cpu_s")
    return (f"inconclusive: the machine changed{at} (run-queue delay {delays_s[0]:.2g} -> {delays_s[1]:.2g} s "
            f"per run); {hint}")


def between_run_text(sd_log: float) -> str:
    """Why a change within the runs is not called across them: "not called across runs: the
    between-run spread (2.0% per run, the stated prior; set it with --between-run-sd) could
    explain it"."""
    whose = "the stated prior" if sd_log == BETWEEN_RUN_PRIOR else "as given"
    return (f"not called across runs: the between-run spread ({sd_log:.1%} per run, {whose}; set it with "
            f"{BETWEEN_RUN_SD_OPTION}) could explain it")


def _at_equal_delay(a: DelayAdjusted) -> str:
    return f"{(a.ratio - 1.0) * 100.0:+.1f}% ({_signed_ci(a.ci95)})"


def disturbance_text(d: Disturbance | None) -> str | None:
    """Why a significant comparison is withheld, in words (None when it is not): what disturbed
    the run and how much it could have moved the ratio (the one model:
    :mod:`jvmlab.analyze.interference`)."""
    if d is None or d.called:
        return None
    if d.method == RUN_DELAY_COVARIATE and d.adjusted is not None:
        a = d.adjusted
        return (f"disturbed ({_delay(d)}; other processes were busy during {d.busy_blocks} of {d.n_blocks} "
                f"blocks): at equal run-queue delay the change is {_at_equal_delay(a)}, which does not "
                f"exclude none, so the delay could explain the difference")
    where = f" (comparisons on the {d.quiet_blocks} quiet blocks alone)" if d.method == QUIET_BLOCKS else ""
    return (f"{_what_disturbed(d)}{where}, which could change the ratio by a factor {_margin_factor(d)}, "
            f"and the 95% CI does not clear that")


def withheld_short(d: Disturbance) -> str:
    """A withheld comparison in a table's answer column (a scenario verdict): "not called:
    disturbed (run-queue delay 0.9 s per run)"; the whole sentence is :func:`disturbance_text`."""
    if d.method == RUN_DELAY_COVARIATE:
        return f"not called: disturbed ({_delay(d)})"
    return f"not called: {_what_disturbed(d)} could change it by a factor {_margin_factor(d)}"


def disturbance_note(d: Disturbance | None, significant: bool = True) -> str | None:
    """How a comparison was made or called although the run was disturbed: on the quiet blocks
    alone (said whatever the result), at equal run-queue delay, by its own interval (a metric
    contention barely moves), or because its interval clears the margin (said only of a
    ``significant`` comparison); None otherwise."""
    if d is None or not d.called or (not significant and d.method != QUIET_BLOCKS):
        return None
    if d.method == QUIET_BLOCKS:
        drift = f"; {d.drift.cell} drifted ({d.drift.slope_rel_per_block:+.2%} per block), within the CI's reach" \
            if d.drift is not None else ""
        return (f"on the {d.quiet_blocks} quiet blocks alone: other processes were busy during "
                f"{d.busy_blocks} of {d.n_blocks} blocks, left out{drift}")
    if d.method == UNMOVED:
        return (f"by its own interval: other processes were busy during {d.busy_blocks} of {d.n_blocks} blocks, "
                f"which barely moves this metric")
    if d.method == RUN_DELAY_COVARIATE:
        at = f": at equal delay {_at_equal_delay(d.adjusted)}" if d.adjusted else ""
        return f"called although other processes were busy ({_delay(d)}){at}"
    return (f"called although {_what_disturbed(d)}: the 95% CI clears the factor {_margin_factor(d)} "
            f"that could produce")


def beside_called(other: Comparison) -> bool:
    """CPU time beside a disturbed time is called by the rule of every verdict
    (:func:`verdict_kind`: the corrected test decides; an interval that disagrees is shown signed)."""
    return verdict_kind(other, lower_is_better=True) in (VerdictKind.BETTER, VerdictKind.WORSE)


def beside_text(metric: Metric, other: Comparison, other_metric: Metric) -> str:
    """The verdict on CPU time said beside a time that contention left undecided: "CPU time
    +42.9% (95% CI +40.6% ... +45.1%): called; `--metric cpu_s` decides on a busy machine"."""
    ci = _signed_ci(other.ci95) if other.ci95 is not None else "no CI"
    pct = f"{(other.ratio - 1.0) * 100.0:+.1f}%" if other.ratio is not None else "-"
    called = "called" if beside_called(other) else "not called either"
    return (f"{metric.name}: disturbed; {other_metric.name} {pct} ({ci}): {called}; "
            f"hint: `--metric {other_metric.name}` decides on a busy machine")


def change_phrase(ratio: float, ci: Interval, significant: bool, metric: Metric) -> str:
    """The core words for a ratio and its interval, e.g. "12.3% faster (95% CI ...)"."""
    if not significant:
        return f"no clear difference ({_signed_ci(ci)})"
    up, down = direction_words(metric)
    lo, hi = ci
    if ratio >= LARGE_RATIO:
        return f"{_times(ratio)} {up} ({times_ci(lo, hi)})"
    if ratio <= 1.0 / LARGE_RATIO:
        return f"{_times(1 / ratio)} {down} ({times_ci(1 / hi, 1 / lo)})"
    if not ci_excludes_one(ci):  # the permutation test and the interval disagree: show signs
        word = up if ratio > 1 else down
        return f"{_pct(abs(ratio - 1.0) * 100.0)} {word} ({_signed_ci(ci)})"
    if ratio > 1.0:
        return f"{_pct((ratio - 1) * 100)} {up} ({sentence_ci(_pct((lo - 1) * 100), _pct((hi - 1) * 100))})"
    return f"{_pct((1 - ratio) * 100)} {down} ({sentence_ci(_pct((1 - hi) * 100), _pct((1 - lo) * 100))})"


def verdict(comparison: Comparison, metric: Metric, label: str | None = None,
            baseline_label: str | None = None, interference: str | None = None, note: str | None = None) -> str:
    """One sentence for a comparison, e.g. "AlwaysPreTouch=on is 4.6x slower than
    baseline (95% CI 4.3-4.9x)". ``label``/``baseline_label`` default to the cell names;
    pass ``baseline_label=""`` to leave out the "than ..." part.

    ``interference`` (what disturbed the run: drift, a busy machine; see
    :mod:`jvmlab.report.trust`) turns a significant result into "not called a
    difference": its interval does not clear what the disturbance could produce
    (:func:`disturbance_text`). ``note`` (:func:`disturbance_note`) says how a disturbed run's
    comparison was called anyway. A small-sample (t-based) interval is marked as such.
    """
    text = _sentence(comparison, metric, label, baseline_label)
    if comparison.ci_kind == SMALL_N_KIND:
        text += f" [small sample, n={min(comparison.n_cell, comparison.n_baseline)}: t-based interval]"
    if comparison.ci_kind == HIERARCHICAL:  # a cluster run's verdict: paired within node, nodes then blocks resampled
        text += f" [within node, {comparison.n_cell} blocks paired: hierarchical bootstrap over nodes, then blocks]"
    if interference and comparison.significant:
        text += f"; but not called a difference: {interference}; rerun on a quiet machine"
    elif note:
        text += f" [{note}]"
    return text


def _sentence(comparison: Comparison, metric: Metric, label: str | None, baseline_label: str | None) -> str:
    subject = label if label is not None else comparison.cell
    base = comparison.baseline if baseline_label is None else baseline_label
    kind = verdict_kind(comparison, metric.lower_is_better)
    if kind is VerdictKind.NOT_ENOUGH_DATA or comparison.ratio is None or comparison.ci95 is None:
        return (f"{subject}: not enough data to compare {metric.name} "
                f"(n={comparison.n_cell} vs n={comparison.n_baseline})")
    phrase = change_phrase(comparison.ratio, comparison.ci95, comparison.significant, metric)
    if kind is VerdictKind.INCONCLUSIVE and comparison.machine_changed_s is not None:
        return f"{subject}: {machine_changed_text(comparison.machine_changed_s, base, comparison.metric)}"
    if kind is VerdictKind.INCONCLUSIVE:
        # Too few invocations for the test to reach significance, although the interval
        # already excludes "no difference" (typical below ~6 invocations per cell): say both.
        likely = change_phrase(comparison.ratio, comparison.ci95, True, metric)
        p = comparison.p_adjusted if comparison.p_adjusted is not None else comparison.p_value
        p_text = f"p={p:.2g} after correction" if p is not None else "no p-value"
        than = f" than {base}" if base else ""
        head, _, tail = likely.partition(" (")
        return (f"{subject}: inconclusive: perhaps {head}{than} ({tail[:-1]}), but not significant "
                f"({p_text}, n={comparison.n_cell} vs {comparison.n_baseline}); add invocations")
    if kind is VerdictKind.NO_CLEAR_DIFFERENCE:
        against = f" from {base}" if base else ""
        return f"{subject}: {phrase.replace('difference', 'difference' + against, 1)}"
    if base:
        head, _, tail = phrase.partition(" (")
        return f"{subject} {verb(metric)} {head} than {base} ({tail}"
    return f"{subject} {verb(metric)} {phrase}"


def short_verdict(comparison: Comparison, metric: Metric) -> str:
    """Table-cell form without the interval: "4.6x slower", "12.3% faster", "~" (no clear
    difference), "inconclusive" (the interval excludes 1 but the test is not significant): the
    same rule, :func:`verdict_kind`, as the sentence, so a mark never contradicts its interval."""
    kind = verdict_kind(comparison, metric.lower_is_better)
    if kind is VerdictKind.NOT_ENOUGH_DATA or comparison.ratio is None or comparison.ci95 is None:
        return "n/a"
    if kind is VerdictKind.INCONCLUSIVE:
        return "inconclusive"
    if not comparison.significant:
        return "~"
    return change_phrase(comparison.ratio, comparison.ci95, True, metric).partition(" (")[0]


def is_improvement(comparison: Comparison, metric: Metric) -> bool | None:
    """True/False for a significant change for the better/worse; None when no clear change."""
    if comparison.ratio == 1.0:
        return None
    kind = verdict_kind(comparison, metric.lower_is_better)
    return {VerdictKind.BETTER: True, VerdictKind.WORSE: False}.get(kind)


def effect_verdict(effect: Effect, metric: Metric) -> str:
    """A sentence for a factorial effect; "significant" here means the CI excludes 1. An
    interval from too few invocations per cell is marked."""
    text = _effect_sentence(effect, metric)
    if effect.ci_kind == EFFECT_SMALL_N_KIND:
        text += " [small sample: bootstrap interval, coverage not verified below 6 per cell]"
    return text


def _effect_sentence(effect: Effect, metric: Metric) -> str:
    if effect.ratio is None or effect.ci95 is None:
        return f"{effect.factor}={effect.level}: not enough data for this effect"
    clear = ci_excludes_one(effect.ci95)  # "significant" for an effect: the CI excludes 1
    phrase = change_phrase(effect.ratio, effect.ci95, clear, metric)
    if effect.kind == "main":
        return (f"{effect.factor}={effect.level} (vs {effect.reference}, averaged over the "
                f"other factors): {phrase}")
    pair = f"{effect.factor}={effect.level} with {effect.factor2}={effect.level2}"
    if not clear:
        return f"{pair}: {phrase.replace('difference', 'interaction', 1)}; the effects add up"
    predicted = phrase.replace(" (", " than the two effects alone predict (", 1)
    return f"{pair} {verb(metric)} {predicted}"
