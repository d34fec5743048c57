"""An archive cell's use is verified from its class-load log; every cell of the experiment logs
class loading alike, so the log's cost is on both sides of a comparison (issue 45: only the
archive cells' measured runs logged, an unmeasured extra cost on one side)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from jvmlab.collect.flag_effect import FlagEffectCollector
from jvmlab.execute.slots import logs_class_loads
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.probe import ProbeContext


def _logs(jdk: JdkInfo, flags: tuple[str, ...], tmp_path: Path, class_log: bool) -> bool:
    probe = FlagEffectCollector().probe(ProbeContext(jdk, "c", flags, tmp_path, class_log=class_log))
    return any(a.startswith("-Xlog:class+load") for a in probe.jvm_args())


def test_a_plain_cell_logs_class_loading_when_the_experiment_has_an_archive(jdk17: JdkInfo, tmp_path: Path) -> None:
    assert _logs(jdk17, ("-Xmx64m",), tmp_path, class_log=True)  # alike: the plain side pays the same
    assert not _logs(jdk17, ("-Xmx64m",), tmp_path, class_log=False)  # no archive anywhere: no log
    assert _logs(jdk17, ("-XX:SharedArchiveFile=/tmp/app.jsa",), tmp_path, class_log=False)


def test_which_experiments_log_class_loading() -> None:
    def cell(flags: tuple[str, ...], prepare: str | None = None) -> SimpleNamespace:
        template = SimpleNamespace(prepare=SimpleNamespace(kind=prepare) if prepare else None)
        return SimpleNamespace(flags=flags, template=template)

    assert not logs_class_loads([cell(("-Xmx64m",)), cell(("-XX:+UseSerialGC",))])
    assert logs_class_loads([cell(("-Xmx64m",)), cell((), prepare="cds-archive")])
    assert logs_class_loads([cell(("-Xmx64m",)), cell(("-XX:AOTCache=/tmp/app.aot",))])
