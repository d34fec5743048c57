"""``jvmlab import jmh RESULTS.json...``: JMH JSON results as an experiment.

Cells are the JVM configurations the files ran (JDK and fork jvmArgs); one invocation per
fork, holding the k-th fork's score of every benchmark (x @Param combination) of its cell,
as metrics ``jmh.<benchmark>[params]`` (the same names a jmh workload run by jvmlab gets).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.files import MAX_JSON_BYTES, read_bounded
from jvmlab.importers.model import ImportedCell, ImportedExperiment, ImportedRun
from jvmlab.workloads.jmh import JmhBenchmark, read_results

UNKNOWN = (
    "block order: JMH ran each benchmark's forks one after another, so forks of different cells were "
    "not interleaved in randomized blocks; comparisons are unpaired and drift between cells cannot be told apart",
    "wall time, CPU time and memory of each fork: JMH's JSON keeps only scores",
)


def _config(e: JmhBenchmark) -> tuple[str, str, tuple[str, ...]]:
    return (e.jvm, e.vm_version, e.jvm_args)


def _feature(version: str) -> int | None:
    m = re.match(r"(?:1\.)?(\d+)", version)
    return int(m.group(1)) if m else None


def _label(config: tuple[str, str, tuple[str, ...]]) -> str:
    feature = _feature(config[1])
    return " ".join([f"jdk{feature}" if feature else "jdk", *config[2]])


def import_jmh(paths: list[Path], name: str | None = None) -> ImportedExperiment:
    """Read JMH JSON files; cells named after their JDK and flags (``jdk17 -XX:+UseG1GC``),
    or after their file when two files ran the same configuration (before/after a change)."""
    if not paths:
        raise UserError("give at least one JMH JSON result file")
    per_file = [(p, read_results(p)) for p in paths]
    digest = hashlib.sha256(b"".join(read_bounded(p, "import", MAX_JSON_BYTES) for p in paths)).hexdigest()
    configs: list[tuple[str, tuple[str, str, tuple[str, ...]]]] = []  # (file, config), in order
    for path, entries in per_file:
        if not entries:
            raise UserError(f"{path}: holds no benchmark results")
        for e in entries:
            if e.score is None or not e.fork_scores:
                raise UserError(f"{path}: benchmark {e.benchmark!r} has no finite score (JMH wrote NaN: it failed "
                                f"or measured nothing); nothing was imported")
            if e.score < 0 or min(e.fork_scores) < 0:
                value = e.score if e.score < 0 else min(e.fork_scores)
                raise UserError(f"{path}: benchmark {e.benchmark!r} has a negative score ({value:g} {e.unit}): JMH "
                                f"never writes one; nothing was imported")
        for e in entries:
            key = (str(path), _config(e))
            if key not in configs:
                configs.append(key)
    names = _cell_names(configs)
    cells = tuple(_cell(n, c, f) for n, (f, c) in zip(names, configs, strict=True))
    runs: list[ImportedRun] = []
    document: dict[str, dict[str, object]] = {}
    for k, (f, config) in enumerate(configs):
        entries = [e for p, es in per_file if str(p) == f for e in es if _config(e) == config]
        forks = max((len(e.fork_scores) for e in entries), default=0)
        for i in range(forks):
            scored = [e for e in entries if i < len(e.fork_scores)]
            metrics = {name: value for e in scored for name, value in e.fork_metrics(i).items()}
            runs.append(ImportedRun(cell=k, wall_s=None, metrics=metrics,
                                    units={n: u for e in scored for n, u in e.units().items() if n in metrics}))
        document[names[k]] = {e.metric: e.to_json() for e in entries}
    started = min(p.stat().st_mtime for p in paths)
    # The files hold no wall time: report and compare JMH's own score, the first benchmark's in file
    # order (the JMH table of the report lists every benchmark).
    first = next(e.metric for _, es in per_file for e in es)
    return ImportedExperiment("jmh", name or f"jmh import: {', '.join(p.name for p in paths)}",
                              tuple(str(p.resolve()) for p in paths), digest, cells, tuple(runs), UNKNOWN,
                              {"jmh": document}, started, metric=first,
                              metric_reason="import jmh: JMH's score of the first benchmark in the files")


def _cell_names(configs: list[tuple[str, tuple[str, str, tuple[str, ...]]]]) -> list[str]:
    """JDK + flags labels when they tell the cells apart, else the files' names; numbered
    when still equal (a file holding several configurations through ``@Fork(jvmArgs=...)``)."""
    labels = [_label(c) for _, c in configs]
    names = labels if len(set(labels)) == len(labels) else [Path(f).stem for f, _ in configs]
    total, seen = Counter(names), Counter[str]()
    out = []
    for name in names:
        seen[name] += 1
        out.append(name if total[name] == 1 else f"{name}-{seen[name]}")
    return out


def _cell(name: str, config: tuple[str, str, tuple[str, ...]], file: str) -> ImportedCell:
    java, version, args = config
    home = str(Path(java).parent.parent) if java else ""
    feature = _feature(version)
    return ImportedCell(name=name, jvm=f"jdk{feature}" if feature else "unknown",
                        jdk={"home": home, "version": version, "feature": feature, "vendor": "", "java": java},
                        levels={"file": Path(file).stem}, flags=tuple(args))
