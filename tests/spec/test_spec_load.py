"""Spec parsing: valid specs become typed records; every mistake is one line with a hint."""

from __future__ import annotations

import pytest

from jvmlab.errors import UserError
from jvmlab.spec.load import parse_spec

MINIMAL = '[workload]\nbuiltin = "hello"\n'


def test_minimal_spec_gets_defaults() -> None:
    spec = parse_spec(MINIMAL)
    assert spec.workload.kind == "builtin"
    assert spec.jvms == {"default": "default"}
    assert spec.run.order == "random-blocks"
    assert spec.run.invocations == 10 and spec.run.warmup == 1


def test_full_spec() -> None:
    spec = parse_spec('''
name = "heap"
[workload]
main = "com.example.Main"
classpath = ["app.jar", "lib/*"]
args = ["--size", "10"]
env = { LANG = "C" }
timeout = "2m"
ready = "Started in"
[jvms]
j17 = "17"
j25 = "temurin-25"
[factors.heap]
small = "-Xms1g -Xmx1g"
large = ["-Xms4g", "-Xmx4g"]
[matrix]
exclude = [{ jvm = "j17", heap = "large" }]
baseline = { jvm = "j17", heap = "small" }
[run]
invocations = 20
warmup = 2
order = "round-robin"
seed = 42
timeout = 90
''')
    assert spec.factors["heap"]["small"].flags == ["-Xms1g", "-Xmx1g"]
    assert spec.factors["heap"]["large"].flags == ["-Xms4g", "-Xmx4g"]
    assert spec.workload.timeout == 120.0
    assert spec.run.timeout == 90.0
    assert spec.matrix.exclude == [{"jvm": "j17", "heap": "large"}]


@pytest.mark.parametrize(("text", "expected"), [
    ('[workload]\nbuiltin = "hello"\ntimout = 3\n', "unknown key 'timout' in [workload] (did you mean 'timeout'?)"),
    ('[workload]\nbuiltin = "hello"\n[runn]\nseed = 1\n', "unknown key 'runn' in the top level (did you mean 'run'?)"),
    ('[workload]\nbuiltin = "hello"\n[run]\ninvocatons = 3\n', "did you mean 'invocations'?"),
    ('[workload]\nbuiltin = "a"\njar = "b.jar"\n', "exactly one of builtin, main"),
    ('[workload]\nmain = "A"\n', "main needs a classpath"),
    ('[workload]\nbuiltin = "hello"\n[run]\ninvocations = -1\n', "[run] invocations"),
    ('[workload]\nbuiltin = "hello"\n[run]\ntimeout = 0\n', "[run] timeout"),
    ('[workload]\nbuiltin = "hello"\n[run]\ntimeout = "soon"\n', "is not a duration"),
    ('[workload]\nbuiltin = "hello"\nready = "(unclosed"\n', "does not compile"),
    ('[workload]\nbuiltin = "hello"\nprogress = "\\\\d+ chunks"\n', "named group (?P<units>"),
    ('[workload]\nbuiltin = "hello"\n[run]\norder = "shuffled"\n', "[run] order"),
    ('[workload]\nbuiltin = "hello"\n[jvms]\n', "[jvms] is empty"),
    ('[workload]\nbuiltin = "hello"\n[factors.jvm]\na = ""\n', "not 'jvm'"),
    ('[workload]\nbuiltin = "hello"\n[factors.heap]\n', "has no levels"),
    ('[workload]\nbuiltin = "hello"\n[factors.heap]\nsmall = 3\n', "flags must be a string or a list"),
    ('[workload]\nbuiltin = "hello"\n[factors.heap]\nsmall = "-Xmx1g \'unclosed"\n', "cannot split flags"),
    ('[workload\nbuiltin = "hello"\n', "invalid TOML"),
    ('', "missing required key 'workload'"),
])
def test_bad_specs_give_one_clear_line(text: str, expected: str) -> None:
    with pytest.raises(UserError) as err:
        parse_spec(text, "bad.toml")
    message = str(err.value)
    assert expected in message
    assert message.startswith("bad.toml: ")
    assert "\n" not in message


def test_flags_split_like_a_shell_but_never_run_one() -> None:
    spec = parse_spec(MINIMAL + '[factors.p]\na = "-Dx=\'a b\' -Dy=$(rm -rf /)"\n')
    assert spec.factors["p"]["a"].flags == ["-Dx=a b", "-Dy=$(rm", "-rf", "/)"]


def test_a_level_may_add_program_arguments_and_environment() -> None:
    spec = parse_spec(MINIMAL + '[factors.size]\nsmall = { flags = "-Xmx1g", args = ["--mb", "64"] }\n'
                      'large = { args = ["--mb", "512"], env = { MODE = "big" } }\n')
    assert spec.factors["size"]["small"].args == ["--mb", "64"]
    assert spec.factors["size"]["large"].flags == [] and spec.factors["size"]["large"].env == {"MODE": "big"}
    with pytest.raises(UserError, match="unknown key 'arg'"):
        parse_spec(MINIMAL + '[factors.size]\nsmall = { arg = ["x"] }\n')
