"""``jvmlab bisect``: the first commit between a good and a bad revision where a metric changed.

A driver of the session, nothing more: each step is one experiment whose cells are revisions
(``revision=good``, ``revision=mid``, ``revision=bad``) measured interleaved in randomized
blocks, handed to the session by the caller's ``measure`` (the CLI's ``run_plan``) with a
stopping rule (``--until``'s seam) that stops adding blocks once the step is decided
(:mod:`.steps`), or at the step's cap. Worktrees and builds are ``machine/gitrev.py``'s.

Every step is a labelled run of a series (label: the measured commit's short sha, placed by its
position in the range), so ``jvmlab history`` shows the measured revisions. A step already
stored in the store (the same revisions, spec and metric rule: its spec hash) is reused when
finished and resumed when interrupted, so running the same command again after Ctrl-C goes on
where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jvmlab.commits.judge import PairVerdict, compare_pair, measured_invocations, revision_cells
from jvmlab.commits.records import BisectOutcome, BisectResult, BisectStep, CommitInfo
from jvmlab.commits.steps import Looks, Range, StepVerdict, classify, confirmed
from jvmlab.errors import UserError
from jvmlab.execute.protocols import PrecisionCheck
from jvmlab.machine.gitrev import (
    BuildCommand,
    Commit,
    Worktrees,
    commits_between,
    find_repo,
    paths_base,
    resolve,
    worktrees,
)
from jvmlab.model.stored import SeriesTag
from jvmlab.plan.prepare import Plan, prepare
from jvmlab.plan.revisions import RevisionSet, RevisionTree
from jvmlab.results import ExperimentResults, load_experiment
from jvmlab.results.compare import VerdictKind
from jvmlab.spec.model import Spec
from jvmlab.spec.revisions import Revisions
from jvmlab.store.protocol import Store

GOOD, MID, BAD = "good", "mid", "bad"


@dataclass(frozen=True)
class StepRun:
    """How the caller runs one step's plan: resume it or start it, its point in the series,
    the rule that stops it, and its cap (measured invocations, all its revisions)."""

    resume: bool
    series: SeriesTag
    decided: PrecisionCheck
    max_invocations: int
    resume_hint: str


Measure = Callable[[Plan, StepRun], int]  # runs the plan through the session; returns the experiment id


@dataclass(frozen=True)
class BisectRequest:
    spec: Spec
    spec_text: str
    spec_path: Path
    good: str
    bad: str
    metric: str = "wall_s"
    repo: Path | None = None  # default: [revisions] repo, else the spec folder's repository
    build: BuildCommand | None = None  # default: [revisions] build
    max_blocks: int = 30  # blocks per step at most (its cap)
    series: str | None = None  # default: "<spec name> bisect"
    resume_hint: str = "run the same `jvmlab bisect` command again"


class Bisection:
    """The search: the range, the worktrees it made, the steps so far."""

    def __init__(self, request: BisectRequest, store: Store, measure: Measure, trees: Worktrees,
                 commits: list[Commit], say: Callable[[str], None]) -> None:
        self.request, self.store, self.measure, self.trees, self.say = request, store, measure, trees, say
        self.commits = commits
        self.infos = [CommitInfo(c.sha, c.subject, c.date, i) for i, c in enumerate(commits)]
        self.steps: list[BisectStep] = []
        self.series = request.series or f"{request.spec.name or request.spec_path.stem} bisect"

    # -- one experiment ----------------------------------------------------------------
    def tree(self, role: str, index: int) -> RevisionTree:
        commit = self.commits[index]
        return self.trees.checkout(role, commit.sha, commit)

    def run(self, roles: dict[str, int], label: int, decided: Callable[[dict[str, PairVerdict]], bool]
            ) -> tuple[int, dict[str, PairVerdict], int]:
        """Measure the revisions ``roles`` (role -> commit index) interleaved until ``decided``
        or the cap; return the experiment, the comparisons (``mid_good``, ``mid_bad``,
        ``bad_good``) and its measured invocations."""
        trees = tuple(self.tree(role, index) for role, index in roles.items())
        revisions = RevisionSet(self.trees.repo, self.trees.build.argv if self.trees.build else (), trees)
        spec, text = self._step_spec(roles)
        plan = prepare(spec, text, self.request.spec_path, revisions=revisions)
        cells = revision_cells(plan)
        metric = self.request.metric
        looks = Looks(plan.shape.invocations, max(self.request.max_blocks, plan.shape.invocations))

        def judged(results: ExperimentResults) -> dict[str, PairVerdict]:
            pairs = {"bad_good": (BAD, GOOD), "mid_good": (MID, GOOD), "mid_bad": (MID, BAD)}
            return {key: compare_pair(results, cells[a], cells[b], metric, looks.alpha)
                    for key, (a, b) in pairs.items() if a in cells and b in cells}

        def stop(store: Store, experiment_id: int, _metric: str, _target: float) -> bool:
            results = load_experiment(store, experiment_id, documents=False)
            return looks.at(results.measured_blocks()) and decided(judged(results))

        def settled(experiment_id: int) -> bool:  # a finished step is decided, or reached this cap
            results = load_experiment(self.store, experiment_id, documents=False)
            return results.measured_blocks() >= looks.cap or decided(judged(results))

        found = self.store.find_resumable(plan.spec_hash)
        if found is not None and found.status == "done" and settled(found.id):
            experiment_id = found.id  # measured before (an earlier, interrupted bisect): reused
        else:  # new, interrupted, or finished undecided under a smaller cap: continued up to this cap
            sha = self.commits[label].sha
            experiment_id = self.measure(plan, StepRun(
                resume=found is not None, series=SeriesTag(sha[:12], self.series, float(label)),
                decided=stop, max_invocations=looks.cap * len(cells), resume_hint=self.request.resume_hint))
        results = load_experiment(self.store, experiment_id, documents=False)
        return experiment_id, judged(results), measured_invocations(results)

    def _step_spec(self, roles: dict[str, int]) -> tuple[Spec, str]:
        """The user's spec with this step's revisions; its text says them, so each step has a
        hash of its own (how a rerun finds it)."""
        given = self.request.spec.revisions
        levels = {role: self.commits[index].sha for role, index in roles.items()}
        revisions = Revisions(repo=str(self.trees.repo), build=list(self.trees.build.argv) if self.trees.build
                              else None, levels=levels, build_timeout=given.build_timeout if given else 1800.0)
        spec = self.request.spec.model_copy(update={"revisions": revisions})
        lines = [f"#   {role} = {sha}" for role, sha in levels.items()]
        build = " ".join(self.trees.build.argv) if self.trees.build else "(none)"
        text = (f"{self.request.spec_text.rstrip()}\n\n# jvmlab bisect step (metric {self.request.metric}, "
                f"build: {build}):\n" + "\n".join(lines) + "\n")
        return spec, text

    # -- the search --------------------------------------------------------------------
    def confirm(self) -> tuple[BisectStep, VerdictKind | None]:
        """Measure bad against good; the change to look for (None: they do not differ)."""
        n = len(self.commits) - 1
        self.say(f"confirming that {_short(self.commits[n])} (bad) differs from {_short(self.commits[0])} (good) ...")
        experiment_id, pairs, invocations = self.run(
            {GOOD: 0, BAD: n}, n, lambda p: confirmed(_kind(p, "bad_good")) is not None)
        change = confirmed(_kind(pairs, "bad_good"))
        bad_good = pairs.get("bad_good", PairVerdict(None, None))
        step = BisectStep(self.infos[n], StepVerdict.DIFFER if change else StepVerdict.NO_DIFFERENCE, bad_good.ratio,
                          bad_good.ci95, invocations, experiment_id, self.infos[0], self.infos[n],
                          margin=bad_good.margin, delay_s=bad_good.delay_s)
        self.steps.append(step)
        return step, change

    def step(self, r: Range, index: int, change: VerdictKind) -> BisectStep:
        commit = self.commits[index]
        tree = self.tree(MID, index)
        good, bad = self.infos[r.good], self.infos[r.bad]
        if not tree.usable:
            self.say(f"skipping {_short(commit)}: {tree.record.build_error}")
            step = BisectStep(self.infos[index], StepVerdict.SKIPPED, None, None, 0, None, good, bad,
                              reason=tree.record.build_error or "")
            self.steps.append(step)
            return step
        self.say(f"measuring {_short(commit)} ({index} of {len(self.commits) - 1}) between good "
                 f"{good.sha[:12]} and bad {bad.sha[:12]} ...")
        experiment_id, pairs, invocations = self.run(
            {GOOD: r.good, MID: index, BAD: r.bad}, index,
            lambda p: classify(_kind(p, "mid_good"), _kind(p, "mid_bad"), change) is not None)
        verdict = classify(_kind(pairs, "mid_good"), _kind(pairs, "mid_bad"), change) or StepVerdict.INCONCLUSIVE
        mid_good = pairs.get("mid_good", PairVerdict(None, None))
        step = BisectStep(self.infos[index], verdict, mid_good.ratio, mid_good.ci95, invocations, experiment_id,
                          good, bad, margin=mid_good.margin, delay_s=mid_good.delay_s)
        self.steps.append(step)
        self.say(f"  {commit.sha[:12]}: {verdict.value}")
        return step

    def search(self) -> BisectResult:
        n = len(self.commits) - 1
        first, change = self.confirm()
        if change is None:
            return self._result(BisectOutcome.NOTHING)
        r = Range(0, n)
        while not r.found:
            index = r.next()
            if index is None:  # only commits that do not build stand between the ends
                left = tuple(self.infos[i] for i in r.candidates())
                return self._result(BisectOutcome.UNTESTABLE, left=left)
            step = self.step(r, index, change)
            if step.verdict is StepVerdict.INCONCLUSIVE:
                return self._result(BisectOutcome.INCONCLUSIVE, left=tuple(self.infos[i] for i in r.candidates()))
            r = r.after(index, step.verdict)
        deciding = next((s for s in reversed(self.steps) if s.commit.index == r.bad
                         and s.verdict in (StepVerdict.LIKE_BAD, StepVerdict.DIFFER)), first)
        return self._result(BisectOutcome.FOUND, first_bad=self.infos[r.bad], deciding=deciding)

    def _result(self, outcome: BisectOutcome, left: tuple[CommitInfo, ...] = (),
                first_bad: CommitInfo | None = None, deciding: BisectStep | None = None) -> BisectResult:
        return BisectResult(self.request.metric, self.infos[0], self.infos[-1], len(self.commits) - 1, outcome,
                            tuple(self.steps), first_bad, deciding.ratio if deciding else None,
                            deciding.ci95 if deciding else None, left, self.series)


def bisect(request: BisectRequest, store: Store, measure: Measure, artifacts_root: Path,
           say: Callable[[str], None] = lambda _line: None) -> BisectResult:
    """Check the range out commit by commit (worktrees removed on any exit) and search it."""
    spec_dir = request.spec_path.absolute().parent
    given = request.spec.revisions
    repo_given = request.repo or (given.repo if given is not None else None)
    repo = find_repo(repo_given, spec_dir)
    good, bad = resolve(repo, request.good), resolve(repo, request.bad)
    if good.sha == bad.sha:
        raise UserError(f"--good and --bad are the same commit ({good.sha[:12]}): nothing to search")
    commits = [good, *commits_between(repo, good.sha, bad.sha)]
    build = request.build or (BuildCommand.of(given.build, given.shell, given.build_timeout) if given else None)
    root = artifacts_root.absolute() / "revisions"
    paths_from = given.paths_from if given is not None else None
    with worktrees(repo, root, build, paths_base(repo_given, spec_dir, repo, paths_from)) as trees:
        search = Bisection(request, store, measure, trees, commits, say)
        for role, index in ((GOOD, 0), (BAD, len(commits) - 1)):
            tree = search.tree(role, index)
            if not tree.usable:
                raise UserError(f"the {role} revision {commits[index].sha[:12]} does not build: "
                                f"{tree.record.build_error}")
        return search.search()


def _kind(pairs: dict[str, PairVerdict], key: str) -> VerdictKind | None:
    pair = pairs.get(key)
    return pair.kind if pair is not None else None


def _short(commit: Commit) -> str:
    return f"{commit.sha[:12]} {commit.subject[:60]!r}"
