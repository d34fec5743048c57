"""Reading the JVM's refusal messages (texts captured from OpenJDK 17 and Temurin 25)."""

from __future__ import annotations

import pytest

from jvmlab.jdk.flagerrors import (
    UNLOCK_DIAGNOSTIC,
    UNLOCK_EXPERIMENTAL,
    culprit,
    jvm_warnings,
    needed_unlock,
    read_rejection,
    rename_flag,
    xx_name,
)
from jvmlab.jdk.proc import JavaRun

TAIL = "Error: Could not create the Java Virtual Machine.\nError: A fatal exception has occurred. Program will exit.\n"


def _failed(stderr: str, stdout: str = "") -> JavaRun:
    return JavaRun(("java",), 1, stdout, stderr)


def _no_names() -> list[str]:
    raise AssertionError("the flag table must not be needed here")


def test_jdk17_did_you_mean_on_the_same_line() -> None:
    run = _failed("Unrecognized VM option 'AlwaysPreTuch'\nDid you mean '(+/-)AlwaysPreTouch'? " + TAIL)
    rejection = read_rejection(run, ["-Xmx1g", "-XX:+AlwaysPreTuch"], _no_names)
    assert rejection.flag == "-XX:+AlwaysPreTuch"
    assert rejection.suggestion == "-XX:+AlwaysPreTouch"
    assert rejection.message == "Unrecognized VM option 'AlwaysPreTuch'"


def test_did_you_mean_for_a_valued_flag_keeps_the_value() -> None:
    run = _failed("Unrecognized VM option 'MaxHeapSiz=1g'\nDid you mean 'MaxHeapSize=<value>'?\n" + TAIL)
    rejection = read_rejection(run, ["-XX:MaxHeapSiz=1g"], _no_names)
    assert rejection.suggestion == "-XX:MaxHeapSize=1g"


def test_unknown_flag_without_jvm_hint_uses_the_flag_table() -> None:
    run = _failed("Unrecognized VM option 'UseParalelGC'\n" + TAIL)
    rejection = read_rejection(run, ["-XX:-UseParalelGC"], lambda: ["UseParallelGC", "UseSerialGC", "AlwaysPreTouch"])
    assert rejection.suggestion == "-XX:-UseParallelGC"


def test_diagnostic_and_experimental_need_unlocks() -> None:
    diagnostic = _failed(
        "Error: VM option 'PrintInlining' is diagnostic and must be enabled via -XX:+UnlockDiagnosticVMOptions.\n"
        "Error: The unlock option must precede 'PrintInlining'.\nImproperly specified VM option 'PrintInlining'\n" + TAIL
    )
    experimental = _failed(
        "Error: VM option 'UseEpsilonGC' is experimental and must be enabled via -XX:+UnlockExperimentalVMOptions.\n" + TAIL
    )
    assert needed_unlock(diagnostic) == UNLOCK_DIAGNOSTIC
    assert needed_unlock(experimental) == UNLOCK_EXPERIMENTAL
    assert needed_unlock(_failed("Unrecognized VM option 'Foo'\n" + TAIL)) is None


def test_conflict_reported_on_stdout_names_no_single_flag() -> None:
    run = _failed("", "Error occurred during initialization of VM\nInitial heap size set to a larger value than the maximum heap size\n")
    rejection = read_rejection(run, ["-Xmx1g", "-Xms2g"], _no_names)
    assert rejection.flag is None
    assert rejection.message == "Initial heap size set to a larger value than the maximum heap size"


def test_jdk8_conflicting_collectors() -> None:
    run = _failed("Conflicting collector combinations in option list; please refer to the release notes for the combinations allowed\n" + TAIL)
    rejection = read_rejection(run, ["-XX:+UseG1GC", "-XX:+UseParallelGC"], _no_names)
    assert rejection.flag is None and rejection.message.startswith("Conflicting collector combinations")


@pytest.mark.parametrize(
    ("stderr", "flags", "flag"),
    [
        ("Unrecognized option: --foo\n" + TAIL, ["-Xmx1g", "--foo"], "--foo"),
        ("Invalid maximum heap size: -Xmxabc\n" + TAIL, ["-Xmxabc"], "-Xmxabc"),
        ("Missing +/- setting for VM option 'AlwaysPreTouch'\n" + TAIL, ["-XX:AlwaysPreTouch"], "-XX:AlwaysPreTouch"),
        ("Invalid -Xlog option '-Xlog:bogus', see error log for details.\n" + TAIL, ["-Xlog:gc", "-Xlog:bogus"], "-Xlog:bogus"),
    ],
)
def test_culprit(stderr: str, flags: list[str], flag: str) -> None:
    assert culprit(stderr, flags) == flag


def test_launcher_option_typo_is_suggested() -> None:
    run = _failed("Unrecognized option: -Xsharee:off\n" + TAIL)
    assert read_rejection(run, ["-Xsharee:off"], _no_names).suggestion == "-Xshare:off"


def test_log_prefix_is_stripped_from_the_message() -> None:
    run = _failed(
        "Invalid -Xlog option '-Xlog:bogus', see error log for details.\n" + TAIL,
        "[0.000s][error][logging] Invalid tag 'bogus' in log selection.\n",
    )
    message = read_rejection(run, ["-Xlog:bogus"], _no_names).message
    assert message == "Invalid -Xlog option '-Xlog:bogus', see error log for details; Invalid tag 'bogus' in log selection"


def test_flag_names_and_renames() -> None:
    assert xx_name("-XX:+UseG1GC") == "UseG1GC"
    assert xx_name("-XX:MaxHeapSize=1g") == "MaxHeapSize"
    assert xx_name("-Xmx1g") is None
    assert rename_flag("-XX:-Foo", "Bar") == "-XX:-Bar"
    assert rename_flag("-XX:Foo=3", "Bar") == "-XX:Bar=3"
    assert rename_flag("-XX:Foo", "Bar") == "-XX:+Bar"


def test_warnings_of_a_jvm_that_started() -> None:
    run = JavaRun(
        ("java",),
        0,
        "[0.000s][warning][pagesize] UseLargePages disabled, no large pages configured and available on the system.\n"
        "     bool UseLargePages                            = false                                {pd product} {command line}\n",
        "OpenJDK 64-Bit Server VM warning: Option UseBiasedLocking was deprecated in version 15.0 and will likely be "
        "removed in a future release.\nopenjdk version \"17.0.15\" 2025-04-15\n",
    )
    assert jvm_warnings(run) == (
        "Option UseBiasedLocking was deprecated in version 15.0 and will likely be removed in a future release.",
        "UseLargePages disabled, no large pages configured and available on the system.",
    )
