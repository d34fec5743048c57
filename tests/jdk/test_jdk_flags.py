"""Flag checks on the real JDKs: values, unlocks, and one-line refusals."""

from __future__ import annotations

import pytest

from jvmlab.errors import UserError
from jvmlab.jdk.cache import JdkCache
from jvmlab.jdk.flags import check_flags, check_many, check_tokens
from jvmlab.jdk.model import JdkInfo


def _rejection(jdk: JdkInfo, flags: list[str], cache: JdkCache) -> str:
    with pytest.raises(UserError) as caught:
        check_flags(jdk, flags, cache=cache)
    message = str(caught.value)
    assert "\n" not in message and str(jdk.home) in message
    return message


@pytest.mark.jvm
def test_good_flags_show_final_values(any_jdk: JdkInfo, shared_cache: JdkCache) -> None:
    flags = ["-Xmx256m", "-XX:+UseSerialGC", "-Xshare:auto", "-Dfoo=bar", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
             "-Xlog:gc:file=gc.log"]
    check = check_flags(any_jdk, flags, cache=shared_cache)
    assert check.flags == tuple(flags) and check.added_unlocks == ()
    assert check.final_values["MaxHeapSize"] == "268435456"
    assert check.origins["MaxHeapSize"] == "command line"
    assert check.final_values["UseSerialGC"] == "true" and check.final_values["UseG1GC"] == "false"
    assert check.kinds["MaxHeapSize"] == "product"
    assert check.origins["MaxHeapSize"] != check.origins["AlwaysPreTouch"]
    assert check.warnings == ()


@pytest.mark.jvm
def test_deprecated_flag_is_accepted_with_its_warning(jdk17: JdkInfo, shared_cache: JdkCache) -> None:
    check = check_flags(jdk17, ["-XX:+UseBiasedLocking"], cache=shared_cache)
    assert any("UseBiasedLocking was deprecated" in warning for warning in check.warnings)


@pytest.mark.jvm
def test_unknown_flag_names_flag_jdk_and_jvm_message(jdk17: JdkInfo, shared_cache: JdkCache) -> None:
    message = _rejection(jdk17, ["-Xmx256m", "-XX:+UseFooGC"], shared_cache)
    assert "rejects -XX:+UseFooGC" in message
    assert "Unrecognized VM option 'UseFooGC'" in message
    assert jdk17.version in message


@pytest.mark.jvm
def test_typo_suggests_the_real_flag(any_jdk: JdkInfo, shared_cache: JdkCache) -> None:
    message = _rejection(any_jdk, ["-XX:+AlwaysPreTuch"], shared_cache)
    assert "did you mean '-XX:+AlwaysPreTouch'?" in message


@pytest.mark.jvm
def test_diagnostic_flag_gets_its_unlock(any_jdk: JdkInfo, shared_cache: JdkCache) -> None:
    check = check_flags(any_jdk, ["-XX:+PrintInlining"], cache=shared_cache)
    assert check.added_unlocks == ("-XX:+UnlockDiagnosticVMOptions",)
    assert check.flags == ("-XX:+UnlockDiagnosticVMOptions", "-XX:+PrintInlining")
    assert check.final_values["PrintInlining"] == "true"
    assert check.kinds["PrintInlining"] == "diagnostic"


@pytest.mark.jvm
def test_unlock_given_too_late_is_moved_to_the_front(jdk17: JdkInfo, shared_cache: JdkCache) -> None:
    check = check_flags(jdk17, ["-XX:+PrintInlining", "-XX:+UnlockDiagnosticVMOptions"], cache=shared_cache)
    assert check.flags[0] == "-XX:+UnlockDiagnosticVMOptions"
    assert check.final_values["PrintInlining"] == "true"


@pytest.mark.jvm
def test_diagnostic_and_experimental_together(jdk25: JdkInfo, shared_cache: JdkCache) -> None:
    check = check_flags(jdk25, ["-XX:+PrintInlining", "-XX:+UseEpsilonGC"], cache=shared_cache)
    assert set(check.added_unlocks) == {"-XX:+UnlockDiagnosticVMOptions", "-XX:+UnlockExperimentalVMOptions"}
    assert check.final_values["UseEpsilonGC"] == "true"


@pytest.mark.jvm
def test_heap_conflict_raises(jdk25: JdkInfo, shared_cache: JdkCache) -> None:
    message = _rejection(jdk25, ["-Xmx1g", "-Xms2g"], shared_cache)
    assert 'rejects the flags "-Xmx1g -Xms2g"' in message
    assert "Initial heap size set to a larger value than the maximum heap size" in message


@pytest.mark.jvm
def test_two_collectors_raise(jdk17: JdkInfo, shared_cache: JdkCache) -> None:
    assert "Multiple garbage collectors selected" in _rejection(jdk17, ["-XX:+UseG1GC", "-XX:+UseParallelGC"], shared_cache)


@pytest.mark.jvm
def test_launcher_options_are_validated_by_the_same_run(jdk17: JdkInfo, shared_cache: JdkCache) -> None:
    assert "Invalid maximum heap size: -Xmxabc" in _rejection(jdk17, ["-Xmxabc"], shared_cache)
    assert "Unrecognized option: --foo" in _rejection(jdk17, ["--foo"], shared_cache)


@pytest.mark.jvm
def test_check_many_keeps_order(jdk17: JdkInfo, jdk25: JdkInfo, shared_cache: JdkCache) -> None:
    checks = check_many([(jdk25, ["-Xmx128m"]), (jdk17, ["-Xmx64m"])], cache=shared_cache)
    assert [c.final_values["MaxHeapSize"] for c in checks] == [str(128 << 20), str(64 << 20)]
    with pytest.raises(UserError, match="UseFooGC"):
        check_many([(jdk25, ["-Xmx128m"]), (jdk17, ["-XX:+UseFooGC"])], cache=shared_cache)


@pytest.mark.parametrize(
    ("flags", "text"),
    [(["-jar", "app.jar"], "-jar is not a JVM flag"), (["-Xmx1g", "Main"], "'Main' is not a JVM flag"),
     (["--add-opens"], "needs a value")],
)
def test_non_flags_are_refused_before_starting_a_jvm(flags: list[str], text: str) -> None:
    with pytest.raises(UserError, match=text):
        check_tokens(flags)
