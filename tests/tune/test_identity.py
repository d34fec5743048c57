"""Configurations are compared by their effective flags on the real JDK: a candidate that is
the baseline (or one already tried) in other words is never raced (issue 32 item 4)."""

import pytest

from jvmlab.tune.engine import tune
from jvmlab.tune.identity import EffectiveFlags, defaults_table, effective_flags
from jvmlab.tune.model import Config
from jvmlab.tune.sim import SimMeasurer
from jvmlab.tune.space import parse_tune
from testing_jdks import JDK17_HOME, JDK25_HOME, make_jdk


def test_effective_flags_drop_defaults_and_spell_one_value_one_way():
    defaults = {"AlwaysPreTouch": "false", "UseSerialGC": "false", "MaxHeapSize": str(512 << 20)}
    assert effective_flags(["-XX:-AlwaysPreTouch"], defaults) == ()
    assert effective_flags(["-XX:+AlwaysPreTouch"], defaults) == ("AlwaysPreTouch=true",)
    assert effective_flags(["-XX:+AlwaysPreTouch", "-XX:-AlwaysPreTouch"], defaults) == ()  # the last wins
    assert (effective_flags(["-Xmx1g"], defaults) == effective_flags(["-Xmx1024m"], defaults)
            == effective_flags(["-XX:MaxHeapSize=1g"], defaults) == (f"MaxHeapSize={1 << 30}",))
    assert effective_flags(["-Xmx512m"], defaults) == ()
    assert effective_flags(["-XX:+UseSerialGC", "-Xlog:gc"], defaults) == ("UseSerialGC=true", "-Xlog:gc")
    assert effective_flags(["-XX:+UnlockDiagnosticVMOptions"], defaults) == ()


@pytest.mark.jvm
@pytest.mark.parametrize("home, feature", [(JDK17_HOME, 17), (JDK25_HOME, 25)])
def test_minus_always_pre_touch_is_the_real_jdk_s_default(home, feature):
    jdk = make_jdk(home, feature)
    same = EffectiveFlags(lambda jvm: jdk)
    calls = []
    counting = EffectiveFlags(lambda jvm: jdk, lambda j: calls.append(j) or defaults_table(j))

    def key(*flags):
        return counting.key(Config({}, "default", tuple(flags)))

    assert key("-XX:-AlwaysPreTouch") == key()
    assert key("-XX:+AlwaysPreTouch") != key()
    assert key("-Xmx1g") == key("-Xmx1024m") == key("-XX:MaxHeapSize=1g") != key("-Xmx2g")
    assert len(calls) == 1  # the JDK's table is read once per run
    table = same.defaults("default")
    assert table["AlwaysPreTouch"] == "false" and table["MaxHeapSize"].isdigit()


SPACE = {"objective": "wall_s", "budget": {"trials": 12}, "min_blocks": 2, "max_blocks": 3, "params": {
    "pretouch": {"type": "bool", "flag": "-XX:+AlwaysPreTouch"},
    "gc": {"type": "categorical", "values": {"default": "", "serial": "-XX:+UseSerialGC"}}}}


@pytest.mark.jvm
def test_the_tuner_never_races_a_candidate_equal_to_the_baseline_or_to_a_tried_one():
    """pretouch=false with the default collector is the baseline in other words: only the 3
    other configurations are raced, and the search ends with the space exhausted."""
    jdk = make_jdk(JDK17_HOME, 17)
    identity = EffectiveFlags(lambda jvm: jdk)
    config = parse_tune(SPACE)
    result = tune(config, SimMeasurer(1), "default", do_confirm=False, identity=identity.key)
    keys = [identity.key(t.config) for t in result.trials]
    assert len(keys) == len(set(keys)) and identity.key(result.baseline) not in keys
    assert len(result.trials) <= 3 and result.stopped_because == "space exhausted"
    assert all(t.config.values != {"pretouch": False, "gc": "default"} for t in result.trials)
