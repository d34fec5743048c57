"""What travels with a slot to a node and back, for both cluster clients (`run --cluster`'s
dispatcher and `tune --cluster`'s measurer): the recipe the node rebuilds the probes from,
the built-in workload's classes, and the artifacts written back on the client."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from jvmlab.cluster.task import NodeResult, ProbeRecipe, pack_folder
from jvmlab.collect.registry import CollectSettings
from jvmlab.execute.slots import SlotWork


def probe_recipe(settings: CollectSettings, work: SlotWork) -> ProbeRecipe:
    """The slot's probes as data: the node builds them again from this (probes hold threads)."""
    launch, template = work.cell.launch, work.cell.template
    if work.ctx is None:  # build_slot always sets it: the node rebuilds the probes from it
        raise ValueError(f"slot of cell {work.cell.cell.name!r} has no probe context (not made by build_slot)")
    return ProbeRecipe(settings, launch.progress_regex, template.progress_mode if template else "auto",
                       launch.kind == "jmh", work.ctx)


@dataclass
class ClassPacks:
    """A built-in workload's classes travel with its slots (a node without jvmlab's cache gets
    them); each folder is read once per client."""

    packed: dict[str, dict[str, bytes]] = field(default_factory=dict)

    def of(self, work: SlotWork) -> dict[str, dict[str, bytes]]:
        if work.cell.launch.kind != "builtin":
            return {}
        folder = work.cell.launch.classpath[0]
        if folder not in self.packed:
            self.packed[folder] = pack_folder(Path(folder))
        return {folder: self.packed[folder]}


def write_back(work: SlotWork, outcome: NodeResult) -> None:
    """Artifacts came back with the result: write those the client does not have (remote node)."""
    for rel, content in outcome.artifacts.items():
        path = work.artifacts / rel
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
