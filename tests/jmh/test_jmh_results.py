"""JMH's JSON result: names, units, directions, fork scores and the fork check, on real
files written by JMH 1.37 here (tests/importers/data, see its README)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jvmlab import metrics as registry
from jvmlab.errors import UserError
from jvmlab.workloads.jmh import (
    ForkCheck,
    JmhCommand,
    check_fork,
    check_options,
    metric_name,
    parse_results,
    read_results,
    short_name,
)

DATA = Path(__file__).resolve().parents[1] / "importers" / "data"
JDK17 = Path("/usr/lib/jvm/java-17-openjdk-amd64/bin/java")


def test_each_benchmark_and_param_combination_is_a_metric_with_jmhs_unit() -> None:
    entries = read_results(DATA / "jmh-jdk17-serial.json")
    by_name = {e.metric: e for e in entries}
    assert set(by_name) == {"jmh.JMHSample_01_HelloWorld.wellHelloThere",
                            "jmh.JMHSample_27_Params.bench[arg=1,certainty=0]",
                            "jmh.JMHSample_27_Params.bench[arg=1,certainty=16]"}
    hello = by_name["jmh.JMHSample_01_HelloWorld.wellHelloThere"]
    assert hello.unit == "ops/s" and hello.mode == "thrpt" and not hello.lower_is_better
    params = by_name["jmh.JMHSample_27_Params.bench[arg=1,certainty=16]"]
    assert params.unit == "ns/op" and params.mode == "avgt" and params.lower_is_better
    assert params.params == (("arg", "1"), ("certainty", "16"))


def test_fork_scores_are_the_means_of_each_forks_iterations() -> None:
    raw = json.loads((DATA / "jmh-jdk17-serial.json").read_text())
    entry = read_results(DATA / "jmh-jdk17-serial.json")[0]
    forks = raw[0]["primaryMetric"]["rawData"]
    assert len(entry.fork_scores) == len(forks) == 3
    for score, iterations in zip(entry.fork_scores, forks, strict=True):
        assert score == pytest.approx(sum(iterations) / len(iterations))
    # JMH's own score is the mean over all iterations of all forks (equal iteration counts).
    assert sum(entry.fork_scores) / 3 == pytest.approx(raw[0]["primaryMetric"]["score"], rel=1e-9)


def test_sample_mode_forks_come_from_the_histogram() -> None:
    raw = json.loads((DATA / "jmh-jdk17-sample-mode.json").read_text())
    (entry,) = read_results(DATA / "jmh-jdk17-sample-mode.json")
    assert entry.mode == "sample" and entry.lower_is_better and entry.unit == "us/op"
    hist = raw[0]["primaryMetric"]["rawDataHistogram"]
    pairs = [(v, n) for iteration in hist[0] for v, n in iteration]
    assert entry.fork_scores[0] == pytest.approx(sum(v * n for v, n in pairs) / sum(n for _, n in pairs))
    assert len(entry.fork_scores) == 2


def test_the_registry_reads_direction_from_jmhs_unit() -> None:
    assert registry.dynamic_metric("jmh.A.thrpt_like", "ops/ms").lower_is_better is False
    assert registry.dynamic_metric("jmh.A.avgt_like", "us/op").lower_is_better is True
    assert registry.get("jmh.B.x", "ops/s").lower_is_better is False
    assert registry.get("jmh.B.y", "ns/op").lower_is_better is True


def test_short_names_drop_the_package_and_keep_nested_classes() -> None:
    assert short_name("org.openjdk.jmh.samples.JMHSample_35_Profilers.Atomic.test") == \
        "JMHSample_35_Profilers.Atomic.test"
    assert metric_name("A.b", (("n", "1"), ("z", "x"))) == "jmh.A.b[n=1,z=x]"


def _entry(**changes: object) -> dict:
    raw = json.loads((DATA / "jmh-jdk17-serial.json").read_text())[0]
    raw.update(changes)
    return raw


def test_colliding_short_names_fall_back_to_full_names_and_modes_are_told_apart() -> None:
    a = _entry(benchmark="p.one.Bench.run")
    b = _entry(benchmark="p.two.Bench.run")
    c = _entry(benchmark="p.one.Bench.run", mode="avgt")
    names = [e.metric for e in parse_results(json.dumps([a, b, c]), "x.json")]
    assert names == ["jmh.p.one.Bench.run@thrpt", "jmh.p.two.Bench.run", "jmh.p.one.Bench.run@avgt"]


def test_a_file_that_is_not_jmh_json_is_one_clear_error() -> None:
    with pytest.raises(UserError, match="not JSON"):
        parse_results("{nope", "bad.json")
    with pytest.raises(UserError, match="not a JMH JSON result"):
        parse_results('{"results": []}', "hyperfine.json")


def _check(flags: tuple[str, ...], version: str = "17.0.15+6-Debian-1deb12u1", own: str | None = None) -> ForkCheck:
    return ForkCheck(JDK17, version, flags, own)


def test_a_fork_with_the_cells_jdk_and_flags_passes() -> None:
    entry = read_results(DATA / "jmh-jdk17-serial.json")[0]
    assert entry.jvm_args == ("-Xmx256m", "-XX:+UseSerialGC")
    assert check_fork(entry, _check(("-Xmx256m", "-XX:+UseSerialGC"))) is None


def test_a_fork_whose_jvm_args_are_not_the_cells_is_refused() -> None:
    entry = read_results(DATA / "jmh-jdk17-serial.json")[0]
    assert "added -XX:+UseSerialGC" in (check_fork(entry, _check(("-Xmx256m",))) or "")
    assert "missing -XX:+UseParallelGC" in (check_fork(entry, _check(("-Xmx256m", "-XX:+UseSerialGC",
                                                                       "-XX:+UseParallelGC"))) or "")
    assert "another order" in (check_fork(entry, _check(("-XX:+UseSerialGC", "-Xmx256m"))) or "")


def test_a_fork_on_another_jdk_is_refused() -> None:
    entry = read_results(DATA / "jmh-jdk25-serial.json")[0]
    why = check_fork(entry, _check(("-Xmx256m", "-XX:+UseSerialGC")))
    assert why is not None and "temurin-25" in why


def test_flags_naming_the_invocations_folder_are_jvmlabs_own() -> None:
    raw = _entry(jvmArgs=["-Xmx256m", '-Xlog:gc*:file="/art/b0/gc-%p.log"', "-XX:+UseSerialGC"])
    (entry,) = parse_results(json.dumps([raw]), "x.json")
    assert check_fork(entry, _check(("-Xmx256m", "-XX:+UseSerialGC"), own="/art/b0")) is None
    assert check_fork(entry, _check(("-Xmx256m", "-XX:+UseSerialGC"), own="/art/b1")) is not None


def test_the_command_owns_forks_result_file_and_fork_flags() -> None:
    cmd = JmhCommand(("Hello",), (("size", ("1", "10")),), ("-wi", "1"))
    argv = cmd.argv("/art/b0/jmh-result.json", ["-Xmx1g", "-XX:+UseG1GC"])
    assert argv[:4] == ["Hello", "-p", "size=1,10", "-wi"]
    text = " ".join(argv)
    assert "-f 1 -rf json -rff /art/b0/jmh-result.json" in text and "-foe true" in text
    assert argv[-2:] == ["-jvmArgs", "-Xmx1g -XX:+UseG1GC"]
    with pytest.raises(UserError, match="spaces"):
        cmd.argv("/r.json", ["-Dx=a b"])
    with pytest.raises(UserError, match="-jvmArgsAppend is set by jvmlab"):
        check_options(["-wi", "1", "-jvmArgsAppend", "-Xmx2g"])


def test_profiler_metrics_become_metrics_of_their_benchmark() -> None:
    raw = json.loads((DATA / "jmh-jdk17-prof-gc.json").read_text())[0]["secondaryMetrics"]["gc.alloc.rate.norm"]
    (entry,) = read_results(DATA / "jmh-jdk17-prof-gc.json")
    name = "jmh.JMHSample_01_HelloWorld.wellHelloThere:gc.alloc.rate.norm"
    assert entry.units()[name] == "B/op" and registry.dynamic_metric(name, "B/op").lower_is_better
    for fork, iterations in enumerate(raw["rawData"]):
        assert entry.fork_metrics(fork)[name] == pytest.approx(sum(iterations) / len(iterations))
    assert set(entry.fork_metrics(0)) == {entry.metric, name, entry.metric + ":gc.alloc.rate",
                                          entry.metric + ":gc.count"}
