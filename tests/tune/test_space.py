"""The [tune] section: typed parameters, conditions, guardrails, budgets, bad input."""

import pytest

from jvmlab.errors import UserError
from jvmlab.tune.sim import SIM_TUNE, sim_config
from jvmlab.tune.space import grid_size, parse_tune, size_text


def test_sim_space_parses_with_types_conditions_and_flags():
    cfg = sim_config()
    params = {p.name: p for p in cfg.params}
    assert params["heap"].kind == "size" and params["heap"].low == 256 << 20 and params["heap"].log
    assert params["pause"].when == {"gc": ("g1",)}
    assert not params["pause"].active({"gc": "serial"}) and params["pause"].active({"gc": "g1"})
    flags = cfg.flags({"gc": "parallel", "heap": 2 << 30, "threads": 3, "pretouch": False})
    assert flags == ("-XX:+UseParallelGC", "-Xmx2g", "-XX:ParallelGCThreads=3", "-XX:-AlwaysPreTouch")
    assert cfg.guardrails[0].relative and cfg.guardrails[0].value == pytest.approx(1.6)
    # the pause goal only exists under G1: 6 heaps x 6 thread counts x 2 booleans x (6 pauses + 1 + 1)
    assert grid_size(cfg) == 6 * 6 * 2 * 8


def test_sizes_and_absolute_guardrails():
    assert size_text(768 << 20) == "768m" and size_text(2 << 30) == "2g"
    cfg = parse_tune({**SIM_TUNE, "guardrails": ["wall_s <= 500ms", "max_rss_bytes <= 512m"]})
    assert cfg.guardrails[0].value == pytest.approx(0.5) and not cfg.guardrails[0].relative
    assert cfg.guardrails[1].value == 512 << 20
    assert cfg.guardrails[1].holds(100 << 20, None) and not cfg.guardrails[1].holds(600 << 20, None)


@pytest.mark.parametrize("change, words", [
    ({"params": {}}, "[tune.params]: is empty"),
    ({"budget": {}}, "[tune.budget]: is empty"),
    ({"objective": "cgroup.peak_bytes"}, "is not measured per invocation"),
    ({"objective": "no_such_metric"}, "unknown metric"),
    ({"guardrails": ["nonsense_metric <= 2x baseline"]}, "unknown metric"),
    ({"guardrails": ["wall_s is small"]}, "guardrail"),
    ({"params": {"a": {"type": "int", "low": 10, "high": 5, "flag": "-XX:X={}"}}}, "is empty"),
    ({"params": {"a": {"type": "int", "low": 1, "high": 5, "flag": "-XX:X={}", "when": {"b": "x"}}}},
     "unknown parameter 'b'"),
    ({"params": {"gc": {"type": "categorical", "values": {"g1": "-XX:+UseG1GC"}},
                 "p": {"type": "int", "low": 1, "high": 5, "flag": "-XX:X={}", "when": {"gc": "zgc"}}}},
     "never takes that value"),
    ({"params": {"j": {"type": "jdk", "values": ["nope"]}}}, "not in [jvms]"),
    ({"params": {"c": {"type": "categorical", "values": {"on": {"prepare": "cds-archiv"}}}}},
     "[tune.params.c] value 'on': cell 'c=on': unknown preparation @cds-archiv"),
    ({"params": {"c": {"type": "categorical", "values": {"on": {"flag": "-Xshare:auto"}}}}},
     "unknown key 'flag' in [tune.params.c] values.on"),
])
def test_bad_spaces_are_one_line_errors(change, words):
    with pytest.raises(UserError) as err:
        parse_tune({**SIM_TUNE, **change})
    assert words in str(err.value) and "\n" not in str(err.value)


def test_the_demo_spec_parses_into_a_conditional_space():
    from jvmlab.scenarios import scenario_specs
    from jvmlab.spec.load import parse_spec

    (_, text), = scenario_specs("tune", quick=True)
    spec = parse_spec(text)
    cfg = parse_tune(spec.tune)
    assert [p.name for p in cfg.params] == ["gc", "heap", "pretouch", "pause"] and cfg.params[3].when == {"gc": ("g1",)}
    # the baseline is the too-small heap the demo is about, and the space reaches well past it
    assert spec.workload.builtin == "hold" and cfg.baseline_flags == ("-Xmx48m",)
    assert cfg.params[1].high >= 8 * cfg.params[1].low


def test_a_categorical_value_can_ask_for_an_archive():
    cfg = parse_tune({**SIM_TUNE, "params": {"cds": {"type": "categorical", "values": {
        "off": "", "on": {"flags": "-Xshare:auto", "prepare": "cds-archive"}, "old": "@aot-cache"}}}})
    assert cfg.flags({"cds": "on"}) == ("-Xshare:auto", "@cds-archive")
    assert cfg.flags({"cds": "old"}) == ("@aot-cache",) and cfg.flags({"cds": "off"}) == ()
