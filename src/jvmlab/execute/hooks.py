"""Running the spec's hooks around invocations, outside the measured process.

:class:`HookedExecutor` wraps any executor (local, psutil, the server wrapper): for an
invocation whose plan carries hooks it runs the cell's ``setup`` once (before the cell's first
invocation of this session), ``before_each``, the invocation itself through the wrapped
executor, then ``after_each``; :meth:`HookedExecutor.close` runs each set-up cell's ``cleanup``
once at the end. The measured process is the JVM alone: a hook's time is never in ``wall_s``,
which the wrapped executor measures from the JVM's own start.

Each hook runs in the workload's folder with the invocation's environment (the cell's
variables and ``JAVA_HOME``), in its own process group, bounded by its timeout (then its group
is killed); its output goes to ``hook-KIND.txt`` in the invocation's folder (``setup`` and
``cleanup``: the cell's). A failing hook fails that invocation with the hook's reason, and the
matrix continues: ``setup`` or ``before_each`` failing means the JVM is not started
(``start-failed``); ``after_each`` failing turns the invocation ``failed``. A failed ``setup``
is not retried: the cell's every invocation of this session fails with its reason (the
failure budget then stops the cell). A failing ``cleanup`` is a hazard.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from jvmlab.execute.protocols import Executor
from jvmlab.model import hazards
from jvmlab.model.hazards import Hazard
from jvmlab.model.hooks import HookCommand, InvocationHooks
from jvmlab.model.probe import Probe
from jvmlab.model.process import InvocationPlan, ProcessResult, Status
from jvmlab.server.control import kill_group

_KILL_WAIT_S = 10.0
_TAIL_BYTES = 2000


@dataclass(frozen=True)
class HookRun:
    """How one hook ended: ``reason`` is None when it exited 0; ``output``: what it printed."""

    reason: str | None
    output: Path


def run_hook(hook: HookCommand, cwd: Path, env: Mapping[str, str], folder: Path) -> HookRun:
    """Run one hook to its end or its timeout (then its process group is killed); never raises."""
    folder.mkdir(parents=True, exist_ok=True)
    output = folder / f"hook-{hook.kind}.txt"
    with output.open("ab") as out:
        try:
            proc = subprocess.Popen(list(hook.argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT, close_fds=True,
                                    start_new_session=os.name == "posix")  # its own group: killed whole
        except OSError as err:
            return HookRun(f"{hook.kind} hook {hook.shown()!r} could not start: {err.strerror or err}", output)
        try:
            code = proc.wait(hook.timeout_s)
        except subprocess.TimeoutExpired:  # a background process it started on purpose is left alone
            _kill(proc)
            return HookRun(f"{hook.kind} hook {hook.shown()!r} did not finish within {hook.timeout_s:g} s; killed",
                           output)
    if code == 0:
        return HookRun(None, output)
    how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
    last = _last_lines(output)
    return HookRun(f"{hook.kind} hook {hook.shown()!r} {how}" + (f": {last}" if last else ""), output)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    kill_group(proc.pid)
    proc.kill()
    try:
        proc.wait(_KILL_WAIT_S)
    except subprocess.TimeoutExpired:
        pass  # unkillable (D state): given up, bounded


def _last_lines(path: Path, n: int = 3) -> str:
    try:
        data = path.read_bytes()[-_TAIL_BYTES:].decode(errors="replace")
    except OSError:
        return ""
    return " | ".join([line.strip()[:200] for line in data.splitlines() if line.strip()][-n:])


class HookedExecutor:
    """An executor that runs the plan's hooks around the wrapped one (see the module doc).

    :meth:`close` runs the cleanups; the hazards of failed cleanups are kept in :attr:`problems`
    for the caller to store."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "executor")
        self._setup: dict[str, tuple[InvocationHooks, InvocationPlan, str | None]] = {}
        self.problems: list[Hazard] = []

    def run(self, plan: InvocationPlan, probes: Sequence[Probe] = ()) -> ProcessResult:
        hooks = plan.hooks
        if hooks is None:
            return self.inner.run(plan, probes)
        why = self._ensure_setup(hooks, plan)
        if why is None:
            why = next((r.reason for h in hooks.of("before_each")
                        if (r := run_hook(h, hooks.cwd, plan.env, plan.artifacts_dir)).reason), None)
        if why is not None:  # the JVM is not started
            return ProcessResult(Status.START_FAILED, why, None, None, None, None, time.time())
        result = self.inner.run(plan, probes)
        for hook in hooks.of("after_each"):
            done = run_hook(hook, hooks.cwd, plan.env, plan.artifacts_dir)
            if done.reason is not None and result.status == Status.OK:
                result = replace(result, status=Status.FAILED, reason=done.reason)
        return result

    def _ensure_setup(self, hooks: InvocationHooks, plan: InvocationPlan) -> str | None:
        """Run the cell's setup the first time one of its invocations comes; its reason if it failed."""
        if hooks.cell not in self._setup:
            why = next((r.reason for h in hooks.of("setup")
                        if (r := run_hook(h, hooks.cwd, plan.env, plan.artifacts_dir.parent)).reason), None)
            self._setup[hooks.cell] = (hooks, plan, why)
        return self._setup[hooks.cell][2]

    def close(self) -> list[Hazard]:
        """Run each set-up cell's cleanup once (also after a failed setup); the failures as hazards."""
        pending, self._setup = self._setup, {}
        for cell, (hooks, plan, _) in pending.items():
            for hook in hooks.of("cleanup"):
                done = run_hook(hook, hooks.cwd, plan.env, plan.artifacts_dir.parent)
                if done.reason is not None:
                    self.problems.append(Hazard(hazards.HOOK_FAILED, done.reason, cell=cell,
                                                hint=f"see {done.output}"))
        return self.problems
