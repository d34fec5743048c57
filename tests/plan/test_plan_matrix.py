"""Matrix expansion and run order: pure functions, no process started."""

from __future__ import annotations

from collections import Counter

import pytest

from jvmlab.errors import UserError
from jvmlab.plan.matrix import expand, find_baseline
from jvmlab.plan.schedule import block_order, schedule
from jvmlab.spec.load import parse_spec

BASE = '''
[workload]
builtin = "hello"
[jvms]
a = "17"
b = "25"
[factors.heap]
small = "-Xmx1g"
large = "-Xmx4g"
[factors.pretouch]
off = ""
on = "-XX:+AlwaysPreTouch"
'''


def test_cartesian_product_in_stable_order() -> None:
    cells = expand(parse_spec(BASE))
    assert [c.name for c in cells] == [
        "a heap=small pretouch=off", "a heap=small pretouch=on", "a heap=large pretouch=off",
        "a heap=large pretouch=on", "b heap=small pretouch=off", "b heap=small pretouch=on",
        "b heap=large pretouch=off", "b heap=large pretouch=on"]
    assert cells[3].flags == ("-Xmx4g", "-XX:+AlwaysPreTouch")
    assert cells[0].flags == ("-Xmx1g",)
    assert [c.index for c in cells] == list(range(8))


def test_exclude_and_include() -> None:
    spec = parse_spec(BASE + '''
[matrix]
exclude = [{ jvm = "b" }, { heap = "large", pretouch = "on" }]
include = [{ jvm = "b", heap = "large", pretouch = "on" }]
''')
    names = [c.name for c in expand(spec)]
    assert names == ["a heap=small pretouch=off", "a heap=small pretouch=on", "a heap=large pretouch=off",
                     "b heap=large pretouch=on"]


def test_excluding_everything_is_an_error() -> None:
    spec = parse_spec(BASE + '[matrix]\nexclude = [{ jvm = "a" }, { jvm = "b" }]\n')
    with pytest.raises(UserError, match="matrix is empty"):
        expand(spec)


@pytest.mark.parametrize(("rule", "message"), [
    ('exclude = [{ hep = "small" }]', "unknown factor 'hep' (did you mean 'heap'?)"),
    ('exclude = [{ heap = "smal" }]', "unknown level 'smal' of 'heap' (did you mean 'small'?)"),
    ('include = [{ jvm = "a", heap = "small" }]', "missing: pretouch"),
])
def test_rules_with_typos_are_errors(rule: str, message: str) -> None:
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")):
        expand(parse_spec(BASE + f"[matrix]\n{rule}\n"))


def test_baseline_by_levels_name_or_default() -> None:
    spec = parse_spec(BASE + '[matrix]\nbaseline = { jvm = "b", heap = "large", pretouch = "off" }\n')
    assert find_baseline(spec, expand(spec)).name == "b heap=large pretouch=off"
    spec = parse_spec(BASE + '[matrix]\nbaseline = "a heap=small pretouch=on"\n')
    assert find_baseline(spec, expand(spec)).index == 1
    spec = parse_spec(BASE)
    assert find_baseline(spec, expand(spec)).index == 0
    spec = parse_spec(BASE + '[matrix]\nbaseline = { heap = "large" }\n')
    with pytest.raises(UserError, match="matches 4 cells"):
        find_baseline(spec, expand(spec))


def test_environment_factors_join_the_matrix() -> None:
    spec = parse_spec('[workload]\nbuiltin = "hello"\n[environment]\njdk_location = ["disk", "tmpfs"]\n'
                      'page_cache = ["warm", "cold"]\n')
    cells = expand(spec)
    assert len(cells) == 4
    assert cells[3].levels == (("jdk_location", "tmpfs"), ("page_cache", "cold"))
    assert cells[3].flags == ()


def test_random_blocks_run_every_cell_once_per_block_and_are_reproducible() -> None:
    slots = schedule(5, warmup=2, blocks=range(10), order="random-blocks", seed=3)
    assert len(slots) == 5 * 12
    per_block = Counter((s.block, s.cell_index) for s in slots)
    assert set(per_block.values()) == {1}
    assert [s.block for s in slots[:10]] == [-2] * 5 + [-1] * 5
    assert all(s.warmup for s in slots[:10]) and not any(s.warmup for s in slots[10:])
    assert slots == schedule(5, 2, range(10), "random-blocks", 3)
    orders = {tuple(block_order(5, b, "random-blocks", 3)) for b in range(10)}
    assert len(orders) > 3, "blocks should be shuffled independently"
    assert schedule(5, 2, range(10), "random-blocks", 4) != slots


def test_extending_blocks_keeps_earlier_order() -> None:
    first = schedule(3, 0, range(4), "random-blocks", 9)
    more = schedule(3, 0, range(4, 6), "random-blocks", 9)
    assert first + more == schedule(3, 0, range(6), "random-blocks", 9)


def test_round_robin_and_sequential() -> None:
    rr = schedule(3, 1, range(2), "round-robin", 1)
    assert [s.cell_index for s in rr] == [0, 1, 2] * 3
    seq = schedule(2, 1, range(3), "sequential", 1)
    assert [(s.cell_index, s.block) for s in seq] == [(0, -1), (0, 0), (0, 1), (0, 2),
                                                      (1, -1), (1, 0), (1, 1), (1, 2)]


def test_levels_add_program_arguments_and_environment() -> None:
    spec = parse_spec('[workload]\nbuiltin = "tlbsort"\nargs = ["--seed", "1"]\n'
                      '[factors.size]\nsmall = { args = ["--mb", "64"] }\n'
                      'large = { flags = "-Xmx2g", args = ["--mb", "512"], env = { A = "1" } }\n')
    small, large = expand(spec)
    assert small.args == ("--mb", "64") and small.flags == ()
    assert large.args == ("--mb", "512") and large.flags == ("-Xmx2g",) and large.env == (("A", "1"),)


def test_builtin_default_args_apply_only_when_nothing_else_is_given() -> None:
    from pathlib import Path

    from jvmlab.model.jdk import JdkInfo
    from jvmlab.plan.workload import Launch

    jdk = JdkInfo(home=Path("/jdk"), version="17", feature=17, vendor="x", vm="x", vm_kind="HotSpot", has_javac=True)
    launch = Launch("builtin", classpath=("/cp",), main_class="Main", default_args=("--ms", "100"))
    assert launch.argv(jdk, ["-Xmx1g"]) == ["/jdk/bin/java", "-Xmx1g", "-cp", "/cp", "Main", "--ms", "100"]
    assert launch.argv(jdk, [], ("--ms", "5")) == ["/jdk/bin/java", "-cp", "/cp", "Main", "--ms", "5"]
    given = Launch("builtin", classpath=("/cp",), main_class="Main", args=("--exit", "1"), default_args=("--ms", "1"))
    assert given.argv(jdk, [], ("--x",))[-3:] == ["--exit", "1", "--x"]
    command = Launch("command", command=("{java}", "{jvm_args}", "-jar", "a b.jar"), args=("$(x)",))
    assert command.argv(jdk, ["-Xmx1g", "-Dp=q r"]) == ["/jdk/bin/java", "-Xmx1g", "-Dp=q r", "-jar", "a b.jar", "$(x)"]
    shell = Launch("command", command=("{java} {jvm_args} -version | cat",), shell=True)
    assert shell.argv(jdk, ["-Dp=q r"]) == ["/bin/sh", "-c", "/jdk/bin/java '-Dp=q r' -version | cat"]
