"""`apply` as a new user reads it (issue 45): the archive of an AOT + C1 winner, the launcher's
NOTE on JDK_JAVA_OPTIONS, and measurement-only properties kept out of what is deployed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.model.documents import TuneDocument
from jvmlab.spec.load import parse_spec
from jvmlab.tune.apply import apply_text

BASE = {"objectives": [{"metric": "ready_s", "minimize": True}], "trials": [],
        "baseline": {"values": {}, "jvm": "default", "flags": []}, "pareto": [], "confirmations": [],
        "importances": {}, "invocations": 40, "hazards": []}


def _doc(flags, run_flags=None):
    winner = {"values": {}, "jvm": "default", "flags": flags}
    if run_flags is not None:
        winner["run_flags"] = run_flags
    return TuneDocument.from_json({**BASE, "winner": winner})


def test_an_aot_and_c1_winner_prints_the_archive_flag_and_how_to_build_it():
    # as `apply` reads a stored winner: the cell ran with C1 only, the session added the cache
    doc = _doc(["-XX:TieredStopAtLevel=1", "@aot-cache"], run_flags=["-XX:TieredStopAtLevel=1"])
    text = apply_text(doc, "/jdk/bin/java", ["-jar", "/app.jar"], 5)
    assert "/jdk/bin/java -XX:TieredStopAtLevel=1 -XX:AOTCache=app.aot -jar /app.jar" in text
    assert "ENV JAVA_TOOL_OPTIONS=\"-XX:TieredStopAtLevel=1 -XX:AOTCache=app.aot\"" in text
    assert "-XX:AOTCacheOutput=app.aot -jar /app.jar" in text and "build the AOT cache first" in text
    cds = apply_text(_doc(["-XX:+UseSerialGC", "@cds-archive"], ["-XX:+UseSerialGC"]), "java", ["-cp", "/a", "M"], 5)
    assert "java -XX:+UseSerialGC -XX:SharedArchiveFile=app.jsa -cp /a M" in cds
    assert "-XX:ArchiveClassesAtExit=app.jsa -cp /a M" in cds


def test_jdk_java_options_is_said_to_print_its_note():
    text = apply_text(_doc(["-XX:+UseSerialGC"]), "java", [], 5)
    assert "silently" not in text
    assert "'NOTE: Picked up JDK_JAVA_OPTIONS: ...' on stderr" in text


@pytest.mark.jvm
def test_the_note_is_what_the_jdks_print(jdk17_home: Path, jdk25_home: Path) -> None:
    """What `apply` says of JDK_JAVA_OPTIONS, checked on both JDKs."""
    for home in (jdk17_home, jdk25_home):
        proc = subprocess.run([str(home / "bin" / "java"), "-version"], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "JDK_JAVA_OPTIONS": "-Xmx64m"}, check=False)
        assert "NOTE: Picked up JDK_JAVA_OPTIONS: -Xmx64m" in proc.stderr, (home, proc.stderr)


def test_measurement_only_jvm_args_stay_out_of_every_deployed_form():
    flags = ["-Dlab.exitAfterStart=true", "-Dapp.mode=prod", "-XX:TieredStopAtLevel=1"]
    doc = _doc(flags[2:], run_flags=flags)
    workload = (flags[:2], ["-Dlab.exitAfterStart"])
    text = apply_text(doc, "java", ["-jar", "/app.jar"], 5, workload)
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert not any("exitAfterStart" in line for line in body)
    assert "# left out, measurement only ([workload] measurement_only): -Dlab.exitAfterStart=true" in text
    assert 'ENV JAVA_TOOL_OPTIONS="-Dapp.mode=prod -XX:TieredStopAtLevel=1"' in text
    assert 'Environment="JAVA_TOOL_OPTIONS=-Dapp.mode=prod -XX:TieredStopAtLevel=1"' in text
    assert "# from [workload] jvm_args, kept: -Dapp.mode=prod" in text
    unmarked = apply_text(doc, "java", [], 5, (flags[:2], []))
    assert "ENV JAVA_TOOL_OPTIONS=\"-Dlab.exitAfterStart=true" in unmarked  # unmarked: kept, and said so
    assert "kept: -Dlab.exitAfterStart=true -Dapp.mode=prod (mark one needed only to measure" in unmarked


def test_a_spec_marks_measurement_only_args_among_its_jvm_args():
    spec = '[workload]\nbuiltin = "hello"\njvm_args = ["-Dlab.exitAfterStart=true", "-Xmx64m"]\n' \
           'measurement_only = ["-Dlab.exitAfterStart"]\n[jvms]\nj = "17"\n'
    assert parse_spec(spec, "t").workload.measurement_only == ["-Dlab.exitAfterStart"]
    with pytest.raises(UserError, match="measurement_only: '-Dother' is none of jvm_args"):
        parse_spec(spec.replace('["-Dlab.exitAfterStart"]', '["-Dother"]'), "t")
