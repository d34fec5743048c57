"""What a worker runs for one slot: the JVM with its probes, then the probes' results, then the
artifacts read back so they travel with the result (a remote node's files are not the client's).

Kept free of client state so that cloudpickle ships only the slot."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from jvmlab.cluster.node import jdk_map
from jvmlab.cluster.share import copy_to_share
from jvmlab.collect.setup import build_collectors
from jvmlab.execute.load import LoadWatch
from jvmlab.execute.windows import default_executor
from jvmlab.model.collected import Collected
from jvmlab.model.probe import Probe, ProbeContext
from jvmlab.model.process import InvocationPlan, ProcessResult

if TYPE_CHECKING:
    from jvmlab.collect.setup import CollectSettings
    from jvmlab.execute.protocols import Executor

ARTIFACT_CAP_BYTES = 32 << 20  # per invocation; larger artifacts stay on the node and are named


@dataclass(frozen=True)
class ProbeRecipe:
    """How to make a slot's probes on the node: probes hold threads and locks and do not travel,
    so the node builds the same collectors and asks them for the same probes (same JVM args)."""

    settings: CollectSettings
    progress_regex: str | None
    progress_mode: str
    jmh: bool
    ctx: ProbeContext

    def probes(self) -> list[Probe]:
        collectors = build_collectors(self.settings, self.progress_regex, self.progress_mode, jmh=self.jmh)
        return [c.probe(self.ctx) for c in collectors]


@dataclass(frozen=True)
class NodeResult:
    """A slot's outcome as it comes back from the node."""

    node: str
    result: ProcessResult
    collected: Collected
    artifacts: dict[str, bytes]  # path relative to the artifacts folder -> content
    artifacts_left_on_node: tuple[str, ...] = ()  # over the cap: still in the node's artifacts folder
    shared_dir: str | None = None  # the artifacts were copied to this folder on the share
    share_error: str | None = None  # the share could not take them (they came back instead)
    started_at: float | None = None  # epoch s on the node's clock: the task started
    run_s: float | None = None  # the executor's run (JVM and probes)
    finished_at: float | None = None  # epoch s on the node's clock: the result was ready to go back
    other_share: float | None = None  # CPU share other processes took on the node during the slot
    steal_share: float | None = None  # CPU share the node's hypervisor stole during the slot
    host: str | None = None  # the node's host name (socket.gethostname() there)


def _on_node(invocation: InvocationPlan) -> InvocationPlan:
    """Map the client's JDK paths to this node's (``JVMLAB_JDK_MAP``)."""
    mapping = jdk_map()
    if not mapping:
        return invocation

    def swap(arg: str) -> str:
        for src, dst in mapping.items():
            arg = arg.replace(src, dst)
        return arg

    env = {k: swap(v) for k, v in invocation.env.items()}
    return replace(invocation, argv=tuple(swap(a) for a in invocation.argv), env=env)


def read_artifacts(folder: Path) -> tuple[dict[str, bytes], tuple[str, ...]]:
    out: dict[str, bytes] = {}
    left: list[str] = []
    total = 0
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        size = path.stat().st_size
        rel = str(path.relative_to(folder))
        if total + size > ARTIFACT_CAP_BYTES:
            left.append(rel)
            continue
        out[rel] = path.read_bytes()
        total += size
    return out, tuple(left)


def pack_folder(folder: Path) -> dict[str, bytes]:
    """A built-in workload's compiled classes (a few kB), to ship to nodes that lack the cache."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def ensure_shipped(shipped: dict[str, dict[str, bytes]]) -> None:
    """On the node: write each shipped folder where the client's cache has it, if it is missing.
    Written beside, then renamed, so a half-written folder is never used."""
    for folder, files in shipped.items():
        target = Path(folder)
        if target.exists():
            continue
        staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        for rel, content in files.items():
            (staging / rel).parent.mkdir(parents=True, exist_ok=True)
            (staging / rel).write_bytes(content)
        try:
            staging.rename(target)
        except OSError:  # another worker on this machine was first: use its copy
            import shutil

            shutil.rmtree(staging, ignore_errors=True)


def run_slot(invocation: InvocationPlan, recipe: ProbeRecipe, executor: Executor | None = None,
             share_to: str | None = None) -> NodeResult:
    """Run one invocation on this node (inside a Dask task holding the node's one ``jvm`` resource).

    ``share_to``: copy the artifacts folder there (a shared filesystem) instead of sending it back."""
    from distributed import get_worker

    started_at = time.time()
    watch = LoadWatch()
    watch.start()
    node = get_worker().address
    invocation = _on_node(invocation)
    os.makedirs(invocation.artifacts_dir, exist_ok=True)
    probes = recipe.probes()
    run_started = time.perf_counter()
    result = (executor or default_executor()).run(invocation, probes)
    collected = Collected()
    for probe in probes:
        collected.merge(probe.finish(result))
    run_s = time.perf_counter() - run_started
    folder = Path(invocation.artifacts_dir)
    shared = share_error = None
    artifacts: dict[str, bytes] = {}
    left: tuple[str, ...] = ()
    if share_to is not None:
        try:
            shared = str(copy_to_share(folder, Path(share_to)))
        except OSError as err:
            share_error = f"could not copy to {share_to}: {err}"
    if shared is None:  # no share, or it could not take them: they travel back with the result
        artifacts, left = read_artifacts(folder)
    shares = watch.shares()
    return NodeResult(node, result, collected, artifacts, left, shared, share_error, started_at, run_s, time.time(),
                      shares.other, shares.steal, socket.gethostname())
