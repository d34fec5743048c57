"""OpenJ9 shared classes and Prime ReadyNow as prepare steps, on recorded outputs replayed by a
stub launcher (the training runs, printStats and the flag table come from the stub)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.jdk.recorded_jdk import Rule, calls, identify_rule, make_home, recorded

from jvmlab.errors import UserError
from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.identify import identify
from jvmlab.machine import archives, vendor_prepare
from jvmlab.plan.matrix import Cell
from jvmlab.plan.prepare import PreparedCell
from jvmlab.plan.workload import Launch
from jvmlab.scenarios import cds


def _cell(jdk, level: str) -> PreparedCell:
    cell = Cell(index=3, jvm="vm", levels=(("cds", level),), flags=(f"@{level}",))
    launch = Launch(kind="main", classpath=("/opt/app/app.jar",), main_class="Hello")
    return PreparedCell(cell=cell, jdk=jdk, launch=launch, flags=cell.flags, added_unlocks=(), final_flags={})


def _ctx(tmp_path: Path) -> archives.RunContext:
    return archives.RunContext(cwd=tmp_path, env=dict(os.environ), timeout_s=30)


def _openj9(tmp_path, stats_file: str):
    rules = [identify_rule("openj9-17"),
             Rule(["-Xshareclasses:*,printStats"], stderr=recorded(stats_file)),
             Rule(["-Xshareclasses:name=jvmlab-*"], stdout="hello\n")]
    home = make_home(tmp_path / "vm", rules)
    return home, identify(home, cache=JdkCache(tmp_path / "cache"))


def test_shared_classes_cache_is_trained_and_shown_to_hold_classes(tmp_path):
    home, jdk = _openj9(tmp_path, "openj9-17/printstats.txt")
    pc = _cell(jdk, vendor_prepare.SHARED_CLASSES)
    path = archives.archive_path(tmp_path / "art", pc, vendor_prepare.SHARED_CLASSES, "abcd1234")
    path.parent.mkdir(parents=True)
    archive = archives.make_archive(pc, vendor_prepare.SHARED_CLASSES, path, _ctx(tmp_path))
    (option,) = archive.flags
    assert option == f"-Xshareclasses:name={vendor_prepare.cache_name(path)},cacheDir={path.with_suffix('.scc')}"
    assert archive.size_bytes == 16776608 - 5638158
    training, stats = calls(home)[-2:]
    assert training == [option, "-cp", "/opt/app/app.jar", "Hello"]
    assert stats == [f"{option},printStats"]
    evidence = json.loads(path.with_suffix(".evidence.json").read_text())
    assert evidence["print_stats"]["rom_classes"] == 488 and evidence["print_stats"]["full_percent"] == 66


def test_an_empty_shared_classes_cache_is_an_error_naming_the_cell(tmp_path):
    _, jdk = _openj9(tmp_path, "openj9-17/printstats-empty.txt")
    pc = _cell(jdk, vendor_prepare.SHARED_CLASSES)
    path = tmp_path / "art" / "x.aot"
    path.parent.mkdir(parents=True)
    with pytest.raises(UserError, match=r"cell 'vm cds=shared-classes': .* holds no classes"):
        archives.make_archive(pc, vendor_prepare.SHARED_CLASSES, path, _ctx(tmp_path))


def test_print_stats_parsing():
    stats = vendor_prepare.parse_print_stats(recorded("openj9-17/printstats.txt"))
    assert (stats.rom_classes, stats.aot_methods, stats.full_percent, stats.used_bytes) == (488, 12, 66, 11138450)
    missing = vendor_prepare.parse_print_stats(recorded("openj9-17/printstats-missing.txt"))
    assert missing.rom_classes is None and missing.used_bytes is None


def _prime(tmp_path, table: str):
    rules = [identify_rule("prime-17"),
             Rule(["-XX:ProfileLogIn=*", "-XX:+PrintFlagsFinal"], stdout=table, arg="-XX:ProfileLogIn="),
             Rule(["-XX:ProfileLogOut=*"], arg="-XX:ProfileLogOut=",
                  write="# ReadyNow profile log (recorded stand-in)\n")]
    home = make_home(tmp_path / "vm", rules)
    return home, identify(home, cache=JdkCache(tmp_path / "cache"))


ROW = "    ccstr ProfileLogIn                             = @ARG@                     {product} {command line}\n"


def test_readynow_profile_is_trained_and_read_back(tmp_path):
    home, jdk = _prime(tmp_path, ROW)
    pc = _cell(jdk, vendor_prepare.READYNOW)
    path = tmp_path / "art" / "cell.aot"
    path.parent.mkdir(parents=True)
    archive = archives.make_archive(pc, vendor_prepare.READYNOW, path, _ctx(tmp_path))
    profile = path.with_suffix(".profile")
    assert archive.flags == (f"-XX:ProfileLogIn={profile}",) and archive.size_bytes == profile.stat().st_size
    assert calls(home)[-1][:2] == [f"-XX:ProfileLogIn={profile}", "-XX:+PrintFlagsFinal"]


def test_profile_read_check_on_jdk8_and_jdk11_tables(tmp_path):
    profile = tmp_path / "p.profile"
    jdk8 = f"    ccstr ProfileLogIn                              := {profile}                      {{product}}\n"
    assert vendor_prepare.profile_was_read(jdk8, profile) is None
    assert vendor_prepare.profile_was_read(ROW.replace("@ARG@", str(profile)), profile) is None
    default = f"    ccstr ProfileLogIn                              = {profile}                     {{product}} {{default}}\n"  # noqa: E501 - as -XX:+PrintFlagsFinal prints it
    assert vendor_prepare.profile_was_read(default, profile) is not None
    assert "not" in vendor_prepare.profile_was_read(ROW.replace("@ARG@", "/other"), profile)


@pytest.mark.parametrize("table, why", [
    ("", "no ProfileLogIn set from the command line"),
    (ROW + "Warning: ProfileLogIn: could not parse profile log, ignoring it\n", "the JVM warned"),
])
def test_readynow_profile_not_taken_up_is_an_error(tmp_path, table, why):
    _, jdk = _prime(tmp_path, table)
    path = tmp_path / "art" / "cell.aot"
    path.parent.mkdir(parents=True)
    with pytest.raises(UserError, match=why):
        archives.make_archive(_cell(jdk, vendor_prepare.READYNOW), vendor_prepare.READYNOW, path, _ctx(tmp_path))


def test_preparation_for_another_vm_is_an_error(tmp_path):
    _, jdk = _openj9(tmp_path, "openj9-17/printstats.txt")
    with pytest.raises(UserError, match=r"readynow needs an Azul Prime \(Zing\) JDK.*exclude it"):
        archives.make_archive(_cell(jdk, vendor_prepare.READYNOW), vendor_prepare.READYNOW, tmp_path / "x.aot",
                              _ctx(tmp_path))


def test_requested_kind_knows_the_vendor_preparations(tmp_path):
    _, jdk = _openj9(tmp_path, "openj9-17/printstats.txt")
    assert archives.requested_kind(_cell(jdk, "shared-classes"), None) == "shared-classes"
    with pytest.raises(UserError, match="unknown preparation @sharedclasses"):
        archives.requested_kind(_cell(jdk, "sharedclasses"), None)


def test_cds_scenario_levels_per_vm(tmp_path):
    from dataclasses import replace

    _, j9 = _openj9(tmp_path, "openj9-17/printstats.txt")
    hotspot = replace(j9, vm_kind="HotSpot", feature=25, home=Path("/jdk25"))
    prime = replace(j9, vm_kind="Zing", feature=21, home=Path("/prime"))
    levels, excludes = cds.levels_for([hotspot, j9, prime])
    assert levels["scc"] == {"prepare": "shared-classes"} and levels["quickstart"] == ["-Xquickstart"]
    assert levels["virtualized"] == ["-Xtune:virtualized"] and levels["readynow"] == {"prepare": "readynow"}
    excluded = {(e["jvm"], e["cds"]) for e in excludes}
    assert {("jdk17", "off"), ("jdk17", "appcds"), ("jdk17", "aot"), ("jdk17", "readynow")} <= excluded
    assert {("jdk25", "scc"), ("jdk25", "quickstart"), ("jdk25", "readynow")} <= excluded
    assert not {("jdk17", "scc"), ("jdk25", "aot"), ("jdk21", "readynow")} & set(excluded)
    only_hotspot, none = cds.levels_for([hotspot])
    assert set(only_hotspot) == {"off", "default", "appcds", "aot"} and none == []


def _real(kind: str):
    from jvmlab.jdk.discover import discover

    found = [j for j in discover() if j.vm_kind == kind]
    if not found:
        pytest.skip(f"no {kind} JDK on this machine (set JVMLAB_JDK_PATH to one to run this test)")
    return found[0]


@pytest.mark.jvm
@pytest.mark.parametrize("kind, level", [("OpenJ9", "shared-classes"), ("Zing", "readynow")])
def test_real_preparation(tmp_path, kind, level):
    """Switches on where discovery finds the VM: train, check, and the measured flags."""
    from jvmlab.machine.environment import build_environment
    from jvmlab.plan.prepare import prepare
    from jvmlab.spec.load import parse_spec

    jdk = _real(kind)
    text = (f'[workload]\nbuiltin = "hello"\n\n[jvms]\nvm = "{jdk.home}"\n\n[factors.cds]\n'
            f'default = []\nprepared = ["@{level}"]\n[run]\ninvocations = 1\ntimeout = "120s"\n')
    plan = prepare(parse_spec(text, "test"), text, None)
    env = build_environment(plan, tmp_path)
    cells = {pc.cell.level("cds"): pc for pc in env.setup(plan).cells}
    (archive,) = env.archives.values()
    assert archive.kind == level and cells["prepared"].flags == archive.flags and archive.size_bytes > 0
