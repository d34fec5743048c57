"""How the jfr and startup collectors are switched on: spec keys and --collect names."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.collect.jfr import JfrCollector, recording_args
from jvmlab.collect.registry import parse_overrides
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
    assert parse_overrides(["jfr"], []) == {"jfr": True}
    assert parse_overrides(["jfr=profile", "startup"], []) == {"jfr_settings": "profile", "jfr": True,
                                                                "startup": True}
    with pytest.raises(UserError, match="default or jdk-default or profile"):
        parse_overrides(["jfr=verbose"], [])
    with pytest.raises(UserError, match="only jfr takes a setting"):
        parse_overrides(["gc=profile"], [])
    settings = CollectSettings.from_spec(Collect(), parse_overrides(["jfr=profile"], []))
    assert settings.jfr and settings.jfr_settings == "profile"


def test_spec_rejects_unknown_settings() -> None:
    # [collect] keys are declared and checked by the collector registry (collect/registry.py)
    with pytest.raises(UserError, match="jfr_settings: choose default or jdk-default or profile"):
        CollectSettings.from_spec(Collect(jfr_settings="verbose"))


def test_recording_path_is_absolute_and_extras_need_jdk17(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
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


def _settings(jfc: Path) -> dict[tuple[str, str], str]:
    import xml.etree.ElementTree as ET

    return {(e.get("name", ""), s.get("name", "")): (s.text or "").strip()
            for e in ET.parse(jfc).getroot().iter("event") for s in e.iter("setting")}


def _fake_home(folder: Path, source: Path) -> Path:
    (folder / "lib" / "jfr").mkdir(parents=True)
    (folder / "lib" / "jfr" / "default.jfc").write_bytes(source.read_bytes())
    return folder


def test_default_is_the_jdks_file_with_slower_samplers_written_once(jdk17_home: Path, tmp_path: Path) -> None:
    from jvmlab.collect.jfr_settings import resolve_settings

    source = jdk17_home / "lib" / "jfr" / "default.jfc"
    if not source.is_file():
        pytest.skip("no JDK 17 default.jfc here")
    home = _fake_home(tmp_path / "jdk", source)
    used = resolve_settings("default", home, tmp_path / "cache")
    assert used.file is not None and used.file.is_absolute() and used.argument == str(used.file)
    assert used.file.parent == (tmp_path / "cache" / "jfr").resolve() and not used.note
    before, after = _settings(source), _settings(used.file)
    assert before[("jdk.ExecutionSample", "period")] == "20 ms"
    changed = {key for key in before if before[key] != after.get(key)}
    assert changed == {("jdk.ExecutionSample", "period"), ("jdk.NativeMethodSample", "period")}
    assert after[("jdk.ExecutionSample", "period")] == after[("jdk.NativeMethodSample", "period")] == "100 ms"
    assert set(after) == set(before)

    # written once: the same file next time, untouched; a changed source gets a file of its own
    stamp = used.file.stat().st_mtime_ns
    assert resolve_settings("default", home, tmp_path / "cache").file == used.file
    assert used.file.stat().st_mtime_ns == stamp
    text = source.read_text().replace('<setting name="period" control="method-sampling-java-interval">20 ms',
                                      '<setting name="period" control="method-sampling-java-interval">30 ms')
    assert text != source.read_text()
    other = tmp_path / "jdk2"
    (other / "lib" / "jfr").mkdir(parents=True)
    (other / "lib" / "jfr" / "default.jfc").write_text(text)
    again = resolve_settings("default", other, tmp_path / "cache")
    assert again.file != used.file and _settings(again.file)[("jdk.ExecutionSample", "period")] == "100 ms"
    assert sorted(p.name.endswith(".jfc") for p in (tmp_path / "cache" / "jfr").iterdir()) == [True, True]


def test_the_jdks_own_settings_by_name_and_when_no_file_can_be_derived(jdk17_home: Path, tmp_path: Path) -> None:
    from jvmlab.collect.jfr_settings import resolve_settings

    assert resolve_settings("profile", jdk17_home, tmp_path).argument == "profile"
    assert resolve_settings("jdk-default", jdk17_home, tmp_path).argument == "default"
    missing = resolve_settings("default", tmp_path / "no-jdk", tmp_path)
    assert missing.argument == "default" and missing.file is None and "missing" in missing.note
    source = jdk17_home / "lib" / "jfr" / "default.jfc"
    if not source.is_file():
        pytest.skip("no JDK 17 default.jfc here")
    blocked = tmp_path / "a-file"
    blocked.write_text("not XML, and not a folder")
    used = resolve_settings("default", _fake_home(tmp_path / "jdk", source), blocked)  # no cache folder
    assert used.argument == "default" and used.file is None and "cannot derive" in used.note
    broken = resolve_settings("default", _fake_home(tmp_path / "broken", blocked), tmp_path / "c2")
    assert broken.argument == "default" and "cannot derive" in broken.note  # the JDK's file is not XML


def test_the_registry_offers_the_collectors_settings() -> None:
    from jvmlab.collect.jfr_settings import SETTINGS
    from jvmlab.collect.registry import entries

    (option,) = [o for e in entries() if e.name == "jfr" for o in e.options if o.key == "jfr_settings"]
    assert option.choices == SETTINGS and option.default == "default"
