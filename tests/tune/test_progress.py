"""Tune progress on a non-TTY stderr: a line at least every 10 s in every phase (search, racing,
confirmation) saying what it does and an ETA (issue 32 item 6)."""

import dataclasses
import itertools
import re
import time

from jvmlab.tune.engine import tune
from jvmlab.tune.progress import Heartbeat, TuneProgress
from jvmlab.tune.sim import SimMeasurer, sim_config
from jvmlab.tune.space import Budget


class _Slow(SimMeasurer):
    """The simulated JVM, taking a little real time per invocation."""

    def measure(self, jvm, flags, block, position):
        time.sleep(0.03)
        return super().measure(jvm, flags, block, position)


def test_every_phase_writes_lines_with_what_it_does_and_an_eta():
    lines: list[tuple[float, str]] = []
    # Stamped with this process's CPU time: the promise is a line every 10 s of the tuner's own
    # running; on a machine loaded by others a wall-clock gap also counts the time it waited for
    # a core (13 s was seen at load 17), which no heartbeat can help.
    progress = TuneProgress(lambda line: lines.append((time.process_time(), line)))
    cfg = dataclasses.replace(sim_config(), guardrails=(), seed=3, budget=Budget(8, None, None))
    with Heartbeat(progress, interval_s=0.05, tick_s=0.01):
        result = tune(cfg, _Slow(3), "default", progress=progress)
    text = [line for _, line in lines]
    assert any(t.startswith("measuring the baseline (JDK defaults): block") for t in text)
    assert any(t.startswith("racing trial ") for t in text)
    assert sum(t.startswith("racing trial 1 ") for t in text) >= 2  # the heartbeat during a race
    if result.winner != result.baseline:
        assert any(t.startswith("confirming the winner (") for t in text)
    assert all(re.search(r"; \d+ invocations, \d+\S*s; ETA (\?|\d)", t) for t in text), text
    gaps = [b - a for (a, _), (b, _) in itertools.pairwise(lines)]
    assert max(gaps) < 10.0


def test_the_confirmation_eta_counts_the_blocks_left_at_the_run_s_pace():
    from jvmlab.tune.tuning import Tuning

    class _Session:
        invocations = 0
        spent_wall_s = 0.0
        config = sim_config()
        spent_share = Tuning.spent_share  # the real budget arithmetic on this stand-in's counts

    session = _Session()
    progress = TuneProgress(session=session, started=100.0)
    progress.set("confirming the winner", "-XX:+UseParallelGC", blocks_max=20, width=2, say=False)
    session.invocations = 10  # 5 blocks of 2 in 10 s: 1 s per invocation
    line = progress.line(now=110.0)
    assert line.startswith("confirming the winner (-XX:+UseParallelGC): block 6 of at most 20;")
    assert line.endswith("ETA 30s")  # 15 blocks x 2 invocations x 1 s
    progress.limit(8)  # Stein's first stage says 8 blocks are enough
    assert progress.line(now=110.0).endswith("ETA 6s")


def test_the_heartbeat_is_quiet_while_others_write():
    lines: list[str] = []
    progress = TuneProgress(lines.append)
    with Heartbeat(progress, interval_s=1.0, tick_s=0.01):
        for _ in range(20):
            progress.note_written()
            time.sleep(0.01)
    assert lines == []
