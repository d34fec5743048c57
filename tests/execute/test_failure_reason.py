"""A failure's reason quotes why the program failed, not where: the error line over stack frames."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jvmlab.execute.local import LocalExecutor
from jvmlab.execute.reason import failure_reason
from jvmlab.model.process import InvocationPlan, Status


def test_a_real_process_that_prints_an_error_then_a_frame_is_reported_by_its_error(tmp_path: Path) -> None:
    script = 'echo "ERROR: the real reason" >&2; echo "  at x.y(Z.java:1)" >&2; exit 1'
    plan = InvocationPlan(argv=("/bin/sh", "-c", script), env=dict(os.environ), cwd=tmp_path, timeout_s=30,
                          artifacts_dir=tmp_path / "art")
    result = LocalExecutor().run(plan)
    assert result.status == Status.FAILED
    assert result.reason == "exit code 1: ERROR: the real reason"


JAVA_TRACE = """\
Exception in thread "main" java.lang.IllegalStateException: wrapper
\tat app.Main.run(Main.java:10)
\tat app.Main.main(Main.java:3)
Caused by: java.lang.RuntimeException: middle
\tat app.Db.open(Db.java:5)
Caused by: java.io.FileNotFoundException: /data/db.lock (Permission denied)
\tat java.base/java.io.FileInputStream.open0(Native Method)
\t... 4 more
"""


@pytest.mark.parametrize(("stderr", "stdout", "expected"), [
    ("ERROR: the real reason\n  at x.y(Z.java:1)\n", "", "ERROR: the real reason"),
    ("Error: Could not find or load main class Nope\nCaused by: java.lang.ClassNotFoundException: Nope\n", "",
     "Error: Could not find or load main class Nope"),
    ("[main] FATAL broker: log dir /tmp/x is not formatted\n\tat k.Log.check(Log.java:9)\n", "",
     "[main] FATAL broker: log dir /tmp/x is not formatted"),
    (JAVA_TRACE, "", "Caused by: java.io.FileNotFoundException: /data/db.lock (Permission denied)"),
    ("java.lang.IllegalArgumentException: bad port\n\tat a.B.c(B.java:1)\n", "",
     "java.lang.IllegalArgumentException: bad port"),
    ("Error occurred during initialization of VM\nToo small maximum heap\n", "",
     "Error occurred during initialization of VM"),
    ("", "starting\nsomething went wrong\n\tat a.B.c(B.java:1)\n", "something went wrong"),
    ("\tat a.B.c(B.java:1)\n", "", "at a.B.c(B.java:1)"),  # nothing else to quote
    ("", "", None),
])
def test_the_reason_prefers_errors_and_causes_over_stack_frames(stderr: str, stdout: str,
                                                                 expected: str | None) -> None:
    assert failure_reason(stderr, stdout) == expected


def test_a_reason_is_at_most_300_characters() -> None:
    reason = failure_reason("ERROR: " + "x" * 1000)
    assert reason is not None and len(reason) == 300
