"""How the jfr and startup collectors are switched on: spec keys and --collect names."""

from __future__ import annotations

import pytest

from jvmlab.cli.cmd_run import _collect_overrides
from jvmlab.collect.jfr import JfrCollector, recording_args
from jvmlab.collect.setup import CollectSettings, build_collectors
from jvmlab.collect.startup import StartupCollector, class_source
from jvmlab.errors import UserError
from jvmlab.spec.model import Collect


def test_off_by_default_on_from_the_spec_with_its_settings() -> None:
    assert not any(isinstance(c, JfrCollector | StartupCollector)
                   for c in build_collectors(CollectSettings.from_spec(Collect()), None))
    settings = CollectSettings.from_spec(Collect(jfr=True, jfr_settings="profile", startup=True))
    built = build_collectors(settings, None)
    (jfr,) = [c for c in built if isinstance(c, JfrCollector)]
    assert jfr.settings == "profile" and any(isinstance(c, StartupCollector) for c in built)


def test_command_line_names() -> None:
    assert _collect_overrides(["jfr"], []) == {"jfr": True}
    assert _collect_overrides(["jfr=profile", "startup"], []) == {"jfr_settings": "profile", "jfr": True,
                                                                   "startup": True}
    with pytest.raises(UserError, match="default or profile"):
        _collect_overrides(["jfr=verbose"], [])
    with pytest.raises(UserError, match="only jfr takes a setting"):
        _collect_overrides(["gc=profile"], [])
    settings = CollectSettings.from_spec(Collect(), _collect_overrides(["jfr=profile"], []))
    assert settings.jfr and settings.jfr_settings == "profile"


def test_spec_rejects_unknown_settings() -> None:
    # [collect] keys are declared and checked by the collector registry (collect/registry.py)
    with pytest.raises(UserError, match="jfr_settings: choose default or profile"):
        CollectSettings.from_spec(Collect(jfr_settings="verbose"))


def test_recording_path_is_absolute_and_extras_need_jdk17(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    from pathlib import Path

    (arg,) = recording_args(17, "default", Path("rel/recording.jfr"))
    assert f"filename={tmp_path}/rel/recording.jfr" in arg and "jdk.SafepointBegin#enabled=true" in arg
    (arg11,) = recording_args(11, "profile", Path("x.jfr"))
    assert "#" not in arg11 and "settings=profile" in arg11


@pytest.mark.parametrize("source,kind", [("shared objects file", "archive"), ("shared objects file (top)", "archive"),
                                         ("jrt:/java.base", "jdk"), ("file:/tmp/classes/", "app"),
                                         ("jar:file:/a.jar!/", "app"), ("__JVM_LookupDefineClass__", "other")])
def test_class_sources(source: str, kind: str) -> None:
    assert class_source(source) == kind


AOT_LOG = """[0.058s] java.lang.Object source: shared objects file
[0.059s] sun.launcher.LauncherHelper source: shared objects file
[0.059s] jdk.internal.misc.MethodFinder source: shared objects file
[0.101s] JfrWork source: shared objects file
[0.120s] JfrWork$$Lambda/0x01 source: JfrWork
"""


def test_time_to_main_with_the_main_class_in_an_aot_cache() -> None:
    from jvmlab.collect.startup import StartupDigest, parse_class_load

    digest = StartupDigest()
    parse_class_load(AOT_LOG.splitlines(), digest)  # excerpt of a real JDK 25 -XX:AOTCache log
    assert digest.to_main_s == 0.101
    assert digest.classes == {"archive": 4, "other": 1}
    assert digest.spans_s["archive"] == pytest.approx(0.043)
