"""One-liner cells are named by what differs (issue 45): an option with its value, a scan's
parameter with its value, the command without anything of its own as the JVM's defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from jvmlab.errors import UserError
from jvmlab.plan.matrix import expand
from jvmlab.spec.load import parse_spec
from jvmlab.spec.oneliner import OneLiner, oneliner_toml

BASE = Path("/work/app")


def _names(one: OneLiner) -> list[str]:
    return [c.name for c in expand(parse_spec(oneliner_toml(one, BASE)))]


def test_an_option_with_a_value_keeps_its_equals_sign_and_a_bare_command_is_the_defaults() -> None:
    assert _names(OneLiner(("java -XX:TieredStopAtLevel=1 -jar app.jar", "java -jar app.jar"))) == [
        "default cmd=TieredStopAtLevel=1", "default cmd=defaults"]  # before: cmd1, cmd2
    assert _names(OneLiner(("java -XX:TieredStopAtLevel=1 -jar app.jar", "java -XX:TieredStopAtLevel=4 -jar app.jar"))
                  ) == ["default cmd=TieredStopAtLevel=1", "default cmd=TieredStopAtLevel=4"]


def test_one_scanned_parameter_names_the_factor_and_its_values_the_cells() -> None:
    assert _names(OneLiner(("java -XX:+Use{gc}GC -jar app.jar",), lists=(("gc", ("G1", "Parallel")),))) == [
        "default gc=G1", "default gc=Parallel"]
    assert _names(OneLiner(("java -Xmx{mb}m -jar app.jar",), ranges=(("mb", 256, 512, 256),))) == [
        "default mb=256", "default mb=512"]  # a level may start with a digit
    # two commands, or two parameters: the commands' factor, named by what differs
    two = _names(OneLiner(("java -Xmx{m}m -jar app.jar {n}",), ranges=(("m", 64, 128, 64), ("n", 1, 2, 1))))
    assert all(name.startswith("default cmd=") for name in two) and len(set(two)) == 4


def test_a_spec_level_may_hold_an_equals_sign_or_start_with_a_digit_but_not_a_space() -> None:
    spec = '[workload]\nbuiltin = "hello"\n[jvms]\nj = "17"\n[factors.tier]\n"1" = "-XX:TieredStopAtLevel=1"\n' \
           '"c2=on" = []\n'
    assert [c.name for c in expand(parse_spec(spec))] == ["j tier=1", "j tier=c2=on"]
    with pytest.raises(UserError, match="level name 'a b'"):
        parse_spec(spec.replace('"c2=on"', '"a b"'))


def _cell(i: int, name: str, levels: dict[str, str]):  # type: ignore[no-untyped-def]
    from jvmlab.model.stored import StoredCell

    return StoredCell(i, i, name, "default", {}, levels, [], [], {}, ["java", "-jar", "app.jar"])


def _run(i: int):  # type: ignore[no-untyped-def]
    from jvmlab.model.stored import StoredInvocation

    return StoredInvocation(i, i, 0, 0, False, 0.0, "ok", None, 0, None, 1.0, 0.5, 0.1, None, None, None, None,
                            None, None, [], None, None, None)


def test_the_hyperfine_export_s_parameters_are_what_hyperfine_writes() -> None:
    """A scan's parameter and value (hyperfine's `parameters`), none for plain commands (hyperfine
    leaves the key out); jvmlab's own cell name and JVM under `jvmlab`, never in `parameters`."""
    from jvmlab.report.export import hyperfine

    scan = hyperfine({0: _cell(0, "default gc=G1", {"gc": "G1"})}, [_run(0)])["results"][0]
    assert scan["parameters"] == {"gc": "G1"}
    assert scan["jvmlab"] == {"cell": "default gc=G1", "jvm": "default", "levels": {"gc": "G1"}}
    plain = hyperfine({0: _cell(0, "default cmd=UseG1GC", {"cmd": "UseG1GC"})}, [_run(0)])["results"][0]
    assert "parameters" not in plain and plain["jvmlab"]["cell"] == "default cmd=UseG1GC"
