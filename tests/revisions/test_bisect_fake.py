"""`bisect` and `[revisions]` on a real git repository (worktrees, javac builds, a commit that does
not compile) with a fake executor whose mean is set by the revision it runs: the statistics are
deterministic, so what the driver decides is tested exactly (the real-JVM path is in
test_commits_jvm.py)."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from jvmlab.commits.bisect import BisectRequest, StepRun, bisect
from jvmlab.commits.records import BisectOutcome
from jvmlab.commits.steps import StepVerdict
from jvmlab.errors import Interrupted, UserError
from jvmlab.execute.fake import FakeExecutor
from jvmlab.execute.options import RunOptions
from jvmlab.execute.protocols import SilentObserver
from jvmlab.execute.session import run_experiment
from jvmlab.machine.gitrev import checked_out, worktree_home
from jvmlab.model import hazards
from jvmlab.model.documents import RevisionsDocument
from jvmlab.model.probe import Probe
from jvmlab.model.process import InvocationPlan, ProcessResult
from jvmlab.plan.prepare import Plan, prepare
from jvmlab.spec.load import load_spec
from jvmlab.store import open_store
from revisions.gitrepo import Repo, checkout_state, git, make_repo


class ByRevision(FakeExecutor):
    """The fake's mean wall time by the revision the invocation runs in (its worktree's name)."""

    def __init__(self, slow_shas: set[str], interrupt_after: int | None = None) -> None:
        super().__init__(seed=11)
        self.slow = {sha[:12] for sha in slow_shas}
        self.interrupt_after = interrupt_after
        self.revisions: set[str] = set()

    def run(self, plan: InvocationPlan, probes: tuple[Probe, ...] | list[Probe] = ()) -> ProcessResult:
        if self.interrupt_after is not None and self.calls >= self.interrupt_after:
            raise KeyboardInterrupt
        parts = plan.cwd.parts
        sha12 = next(parts[i + 1] for i, part in enumerate(parts) if part.startswith("jvmlab-worktrees-"))
        self.revisions.add(sha12)
        mean = 3.0 if sha12 in self.slow else 1.0
        return super().run(replace(plan, argv=(*plan.argv, f"-Dfake.mean_s={mean}", "-Dfake.cv=0.03")), probes)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, jdk17_home: Path) -> Repo:
    return make_repo(tmp_path_factory.mktemp("git"), jdk17_home)


def _measure(store, root: Path, executor: ByRevision):
    def measure(plan: Plan, step: StepRun) -> int:
        options = RunOptions(artifacts_root=root, resume=step.resume, until_rel=0.01, metric="wall_s",
                             max_invocations=step.max_invocations, series=step.series, resume_hint=step.resume_hint)
        return run_experiment(plan, store, options, SilentObserver(), executor=executor, precision_check=step.decided)
    return measure


def _request(repo: Repo, good: str, bad: str) -> BisectRequest:
    spec, text = load_spec(repo.path / "bench.toml")
    return BisectRequest(spec, text, repo.path / "bench.toml", good, bad, max_blocks=12)


@pytest.mark.slow
def test_bisect_interrupted_then_resumed_names_the_slow_commit_and_skips_the_broken_one(repo: Repo,
                                                                                      tmp_path: Path) -> None:
    """Ctrl-C in the first midpoint's step, then the same bisect again: it goes on where it
    stopped (the confirmation reused, the interrupted step continued) and names the commit."""
    before = checkout_state(repo.path)
    store = open_store(str(tmp_path / "lab.db"))
    stopping = ByRevision(set(repo.shas[repo.slow:]), interrupt_after=30)  # in the first midpoint's step
    with pytest.raises(Interrupted):
        bisect(_request(repo, repo.shas[0], "HEAD"), store, _measure(store, tmp_path / "art", stopping),
               tmp_path / "art")
    assert checkout_state(repo.path) == before  # worktrees removed on Ctrl-C too
    assert git(repo.path, "worktree", "list", "--porcelain").count("worktree ") == 1
    first = {e.id: e.status for e in store.experiments()}
    assert sorted(first.values()) == ["done", "interrupted"]

    executor = ByRevision(set(repo.shas[repo.slow:]))
    result = bisect(_request(repo, repo.shas[0], "HEAD"), store, _measure(store, tmp_path / "art", executor),
                    tmp_path / "art")
    done = {e.id: e.status for e in store.experiments()}
    interrupted = next(i for i, status in first.items() if status == "interrupted")
    assert done[interrupted] == "done"  # continued, not started again
    assert result.steps[0].experiment_id in first  # the confirmation was reused
    assert result.outcome is BisectOutcome.FOUND
    assert result.first_bad is not None and result.first_bad.sha == repo.shas[repo.slow]
    assert result.first_bad.subject == "more rounds (slow)"
    assert result.first_bad_ci95 is not None and 1.0 < result.first_bad_ci95[0] <= 3.0 <= result.first_bad_ci95[1]
    n = len(repo.shas) - 1
    assert len(result.measured) <= math.ceil(math.log2(n)) + 2
    assert executor.revisions <= {sha[:12] for sha in result.measured}  # a skipped commit never ran
    skipped = [s for s in result.steps if s.verdict is StepVerdict.SKIPPED]
    assert [s.commit.sha for s in skipped] == [repo.shas[repo.broken]]
    assert "error" in skipped[0].reason and skipped[0].invocations == 0
    assert all(s.invocations > 0 for s in result.steps if s.verdict is not StepVerdict.SKIPPED)
    assert checkout_state(repo.path) == before
    assert git(repo.path, "worktree", "list", "--porcelain").count("worktree ") == 1
    # every measured step is a labelled run of the series: history shows the revisions
    labels = {e.label for e in store.series_experiments(result.series)}
    assert labels == {s.commit.sha[:12] for s in result.steps if s.experiment_id is not None}
    doc = store.record(result.steps[-1].experiment_id, RevisionsDocument)
    assert doc is not None and {r.level for r in doc.revisions} == {"good", "mid", "bad"}
    as_json = result.to_json()
    assert as_json["first_bad"]["commit"] == repo.shas[repo.slow] and len(as_json["first_bad"]["ci95"]) == 2
    assert {"commit", "verdict", "ratio", "ci95", "invocations"} <= set(as_json["steps"][0])


def test_a_range_without_a_change_has_nothing_to_find(repo: Repo, tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "lab.db"))
    executor = ByRevision(set(repo.shas[repo.slow:]))  # the range below has no slow commit
    result = bisect(_request(repo, repo.shas[0], repo.shas[2]), store, _measure(store, tmp_path / "art", executor),
                    tmp_path / "art")
    assert result.outcome is BisectOutcome.NOTHING and result.first_bad is None
    assert [s.verdict for s in result.steps] == [StepVerdict.NO_DIFFERENCE]
    assert result.exit_code == 3


def test_revisions_factor_keeps_a_failed_build_as_its_reason(repo: Repo, tmp_path: Path) -> None:
    spec, text = load_spec(repo.path / "bench.toml")
    spec = spec.model_copy(update={"revisions": spec.revisions.model_copy(
        update={"levels": {"fixed": repo.shas[repo.broken + 1], "broken": repo.shas[repo.broken], "slow": "HEAD"}})})
    store = open_store(str(tmp_path / "lab.db"))
    root = tmp_path / "art"
    with checked_out(spec.revisions, repo.path, root) as revisions:
        plan = prepare(spec, text, repo.path / "bench.toml", revisions=revisions)
        assert [pc.cell.name for pc in plan.cells] == ["j revision=fixed", "j revision=slow"]
        home = worktree_home(root.absolute() / "revisions")  # a temp folder, outside the checkout
        assert all(pc.template is not None and pc.template.cwd.parent == home for pc in plan.cells)
        exp = run_experiment(plan, store, RunOptions(artifacts_root=root), SilentObserver(),
                             executor=ByRevision({repo.shas[-1]}))
    assert git(repo.path, "worktree", "list", "--porcelain").count("worktree ") == 1
    assert not home.exists()
    kinds = [h for h in store.hazards(exp) if h.kind == hazards.REVISION_NOT_BUILT]
    assert len(kinds) == 1 and "broken" in kinds[0].detail and "error" in kinds[0].detail
    doc = store.record(exp, RevisionsDocument)
    assert doc is not None
    assert {r.level: r.built for r in doc.revisions} == {"fixed": True, "broken": False, "slow": True}
    assert {r.level: r.sha for r in doc.revisions}["slow"] == repo.shas[-1]


def test_unknown_revision_and_a_reversed_range_are_one_line(repo: Repo, tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "lab.db"))
    measure = _measure(store, tmp_path / "art", ByRevision(set()))
    with pytest.raises(UserError, match="not a commit"):
        bisect(_request(repo, "no-such-branch", "HEAD"), store, measure, tmp_path / "art")
    with pytest.raises(UserError, match="not an ancestor"):
        bisect(_request(repo, "HEAD", repo.shas[0]), store, measure, tmp_path / "art")


@pytest.mark.slow
def test_a_revisions_run_resumes_and_refuses_a_branch_that_moved(repo: Repo, tmp_path: Path) -> None:
    """Resume finds the same worktree paths (named by sha); a branch that now names another
    commit changes its cell, and the resume is refused in one line."""
    git(repo.path, "branch", "-f", "feature", repo.shas[1])
    spec, text = load_spec(repo.path / "bench.toml")
    spec = spec.model_copy(update={"revisions": spec.revisions.model_copy(
        update={"levels": {"old": repo.shas[0], "feature": "feature"}})})
    store = open_store(str(tmp_path / "lab.db"))
    root = tmp_path / "art"

    def run(resume: bool, executor: ByRevision) -> int:
        with checked_out(spec.revisions, repo.path, root) as revisions:
            plan = prepare(spec, text, repo.path / "bench.toml", revisions=revisions)
            return run_experiment(plan, store, RunOptions(artifacts_root=root, resume=resume), SilentObserver(),
                                  executor=executor)

    with pytest.raises(Interrupted):
        run(False, ByRevision(set(), interrupt_after=5))
    [stopped] = store.experiments()
    exp = run(True, ByRevision(set()))
    assert exp == stopped.id and store.experiment(exp).status == "done"
    assert len(store.done_slots(exp)) == 2 * (1 + spec.run.invocations)  # every slot once
    git(repo.path, "branch", "-f", "feature", repo.shas[2])
    with pytest.raises(UserError, match="changes its cell 'j revision=feature'"):
        run(True, ByRevision(set()))
    assert git(repo.path, "worktree", "list", "--porcelain").count("worktree ") == 1


@pytest.mark.slow
def test_a_larger_cap_continues_the_finished_steps(repo: Repo, tmp_path: Path) -> None:
    """Run again with a larger --max-blocks: a step that ended at the smaller cap is continued
    (the same experiment, more blocks), not measured anew."""
    store = open_store(str(tmp_path / "lab.db"))
    small = replace(_request(repo, repo.shas[0], repo.shas[2]), max_blocks=8)
    first = bisect(small, store, _measure(store, tmp_path / "art", ByRevision(set())), tmp_path / "art")
    assert first.outcome is BisectOutcome.NOTHING and first.steps[0].invocations == 16
    again = bisect(replace(small, max_blocks=12), store, _measure(store, tmp_path / "art", ByRevision(set())),
                   tmp_path / "art")
    assert again.steps[0].experiment_id == first.steps[0].experiment_id
    assert again.steps[0].invocations == 24 and len(store.experiments()) == 1
