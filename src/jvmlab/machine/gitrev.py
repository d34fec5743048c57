"""Revisions of a git repository checked out and built beside the user's checkout.

Each commit gets a worktree of its own (``git worktree add --detach``, in a temp folder named
after the artifacts folder, the worktree after its sha, so a resumed run finds the same paths),
is built there once with the spec's build command (an argv list; a string is split as a shell
would, and run by one only with ``shell = true``), and the build's output is kept as a file in
the artifacts folder (``revisions/logs/``). Every
worktree is removed on the way out (the end, an error, Ctrl-C, SIGTERM). Only ``git worktree``
and read-only commands touch the repository: the user's checkout, branch, index and files
stay as they were. Every git call and every build has a bounded wait.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from jvmlab.errors import UserError
from jvmlab.machine.fingerprint import read_text
from jvmlab.model.documents import RevisionRecord
from jvmlab.plan.revisions import RevisionSet, RevisionTree

GIT_TIMEOUT_S = 120.0  # a checkout of a large repository can take a while
LOG_TAIL_CHARS = 400


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    date: str  # committer date, ISO 8601


@dataclass(frozen=True)
class BuildCommand:
    """How each revision is built: ``argv`` run without a shell (``shell``: ``/bin/sh -c``)."""

    argv: tuple[str, ...]
    timeout_s: float = 1800.0

    @classmethod
    def of(cls, build: Sequence[str] | str | None, shell: bool = False, timeout_s: float = 1800.0
           ) -> BuildCommand | None:
        if build is None:
            return None
        text = build if isinstance(build, str) else None
        argv = list(build) if text is None else ["/bin/sh", "-c", text] if shell else _split(text)
        if not argv:
            raise UserError("the build command is empty: give its argv, or none")
        return cls(tuple(argv), timeout_s)


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as err:
        raise UserError(f"build command {text!r}: {err}") from None


def git(repo: Path, args: Sequence[str], timeout_s: float = GIT_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    """``git -C repo ARGS`` with a bounded wait; git missing or silent: one line."""
    try:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=timeout_s,
                              check=False, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise UserError("git is not installed here; revisions need it") from None
    except subprocess.TimeoutExpired:
        raise UserError(f"git {' '.join(args[:2])} did not answer within {timeout_s:.0f} s in {repo}") from None


def _first_line(proc: subprocess.CompletedProcess[str]) -> str:
    return (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or [f"exit {proc.returncode}"])[0]


def given_folder(given: Path | str | None, spec_dir: Path) -> Path:
    """The folder ``repo =`` names (relative: to the spec's folder), else the spec's folder."""
    if given is None:
        return spec_dir
    folder = Path(os.path.expanduser(str(given)))
    return folder if folder.is_absolute() else spec_dir / folder


def find_repo(given: Path | str | None, spec_dir: Path) -> Path:
    """The top of the git work tree holding ``given`` (relative: to the spec's folder), else
    the spec folder's own."""
    folder = given_folder(given, spec_dir)
    proc = git(folder, ["rev-parse", "--show-toplevel"])
    if proc.returncode != 0:
        raise UserError(f"{folder} is not in a git repository ({_first_line(proc)}); give the repository "
                        f"with repo = \"DIR\" in [revisions] (or --repo DIR)")
    return Path(proc.stdout.strip()).resolve()


def paths_base(given: Path | str | None, spec_dir: Path, repo: Path, paths_from: str | None = None) -> Path:
    """The folder whose place in the repository the spec's relative paths mean in each worktree:
    ``paths_from`` when given (a one-liner's spec lives among jvmlab's files; its paths mean the
    folder it was typed in), else the spec's folder when it lies in the repository, else the
    folder ``repo =`` names."""
    if paths_from is not None:
        return given_folder(paths_from, spec_dir)
    return spec_dir if _relative(spec_dir, repo) is not None else given_folder(given, spec_dir)


def resolve(repo: Path, rev: str) -> Commit:
    """A revision (branch, tag, sha, ``HEAD~2``) to its commit; unknown: one line."""
    proc = git(repo, ["log", "-1", "--no-walk", "--format=%H%x00%s%x00%cI", f"{rev}^{{commit}}", "--"])
    if proc.returncode != 0 or "\0" not in proc.stdout:
        raise UserError(f"revision {rev!r} is not a commit of {repo} ({_first_line(proc)})")
    sha, subject, date = proc.stdout.strip("\n").split("\0", 2)
    return Commit(sha, subject, date)


def commits_between(repo: Path, good: str, bad: str) -> list[Commit]:
    """The commits after ``good`` up to ``bad``, oldest first, on the ancestry path (what
    ``git bisect`` searches); ``good`` must be an ancestor of ``bad``."""
    check = git(repo, ["merge-base", "--is-ancestor", good, bad])
    if check.returncode != 0:
        raise UserError(f"--good {good[:12]} is not an ancestor of --bad {bad[:12]}: bisect searches the commits "
                        f"between them; swap them or pick an older good revision")
    proc = git(repo, ["log", "--reverse", "--ancestry-path", "--format=%H%x00%s%x00%cI", f"{good}..{bad}", "--"])
    if proc.returncode != 0:
        raise UserError(f"git log {good[:12]}..{bad[:12]} failed: {_first_line(proc)}")
    return [Commit(*line.split("\0", 2)) for line in proc.stdout.splitlines() if line.count("\0") == 2]


class Worktrees:
    """The worktrees of one command, each made once (by sha) and all removed by :func:`worktrees`."""

    def __init__(self, repo: Path, root: Path, build: BuildCommand | None, spec_dir: Path | None) -> None:
        self.repo = repo
        self.root = root  # <artifacts>/revisions: the build logs, kept (logs/)
        self.home = worktree_home(root)  # the worktrees, by sha: a temp folder of this artifacts folder
        self.build = build
        # the spec's folder within the repository (outside it: the repository's top)
        self.rel = (_relative(spec_dir, repo) if spec_dir is not None else None) or Path(".")
        self.made: dict[str, Path] = {}
        self.builds: dict[str, tuple[float | None, str | None, str | None]] = {}

    def checkout(self, level: str, rev: str, commit: Commit | None = None) -> RevisionTree:
        """``rev`` checked out (once per commit) and built there; a failed build is its record's reason."""
        commit = commit or resolve(self.repo, rev)
        path = self.made.get(commit.sha) or self._add(commit.sha)
        spec_dir = path / self.rel
        if commit.sha not in self.builds:
            self.builds[commit.sha] = (self._build(commit.sha, spec_dir) if spec_dir.is_dir() else
                                       (None, f"the spec's folder {self.rel} does not exist at {commit.sha[:12]}",
                                        None))
        build_s, error, log = self.builds[commit.sha]
        record = RevisionRecord(level, rev, commit.sha, commit.subject, commit.date, build_s, error, log)
        return RevisionTree(record, path, spec_dir if error is None else None)

    def _add(self, sha: str) -> Path:
        path = self.home / sha[:12]
        if path.exists():  # left by a run that was killed (SIGKILL): made again from scratch
            _remove(self.repo, path)
        path.parent.mkdir(parents=True, exist_ok=True)
        proc = git(self.repo, ["worktree", "add", "--detach", "--quiet", str(path), sha])
        if proc.returncode != 0:
            raise UserError(f"cannot check {sha[:12]} out in {path}: {_first_line(proc)}")
        self.made[sha] = path
        return path

    def _build(self, sha: str, cwd: Path) -> tuple[float | None, str | None, str | None]:
        """(wall s, why it failed or None, the log file); nothing to build: (None, None, None)."""
        if self.build is None:
            return None, None, None
        log = self.root / "logs" / f"{sha[:12]}.build.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        try:
            with open(log, "wb") as out:
                proc = subprocess.run(list(self.build.argv), cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, timeout=self.build.timeout_s, check=False,
                                      env={**os.environ, "JVMLAB_REVISION": sha})
        except FileNotFoundError as err:
            return None, f"the build command cannot start: {err.strerror}: {self.build.argv[0]}", str(log)
        except subprocess.TimeoutExpired:
            return (time.monotonic() - start, f"the build did not finish within {self.build.timeout_s:g} s",
                    str(log))
        wall_s = time.monotonic() - start
        if proc.returncode != 0:
            return wall_s, f"the build exited {proc.returncode}: {_tail(log)}", str(log)
        return wall_s, None, str(log)

    def remove(self, sha: str) -> None:
        path = self.made.pop(sha, None)
        if path is not None:
            _remove(self.repo, path)

    def close(self) -> None:
        for sha in list(self.made):
            self.remove(sha)
        git(self.repo, ["worktree", "prune"])
        try:
            self.home.rmdir()  # empty now (another run's worktrees would keep it)
        except OSError:
            pass


def worktree_home(root: Path) -> Path:
    """Where the worktrees of an artifacts folder go: in the temp folder, outside every
    checkout, under a name fixed by the artifacts folder (a resumed run's cells, whose
    identity holds their paths, find the same ones)."""
    digest = hashlib.sha256(str(root.absolute()).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"jvmlab-worktrees-{digest}"


def _tail(log: Path) -> str:
    """The build output's first line that says "error" (a compiler's first error), else its last
    non-empty line, shortened."""
    lines = [line.strip() for line in (read_text(log) or "").splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return (errors or lines or ["(no output)"])[0 if errors else -1][:LOG_TAIL_CHARS]


def _relative(folder: Path, repo: Path) -> Path | None:
    """``folder`` relative to the repository (None: outside it)."""
    try:
        return folder.resolve().relative_to(repo)
    except ValueError:
        return None


def _remove(repo: Path, path: Path) -> None:
    """``git worktree remove --force``; whatever stays is deleted and pruned."""
    git(repo, ["worktree", "remove", "--force", str(path)])
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)
    git(repo, ["worktree", "prune"])


@contextmanager
def worktrees(repo: Path, root: Path, build: BuildCommand | None, spec_dir: Path | None) -> Iterator[Worktrees]:
    """A :class:`Worktrees`; every worktree it made is removed on any exit (Ctrl-C included)."""
    trees = Worktrees(repo, root, build, spec_dir)
    try:
        yield trees
    finally:
        trees.close()


@contextmanager
def checked_out(spec_revisions: object, spec_dir: Path, artifacts_root: Path,
                repo_override: Path | None = None, say: Callable[[str], None] | None = None) -> Iterator[RevisionSet]:
    """Every revision of a spec's ``[revisions]`` checked out and built (spec/revisions.py);
    the worktrees are removed on the way out. ``say``: one progress line, once every revision
    is known to be a commit (before the builds)."""
    from jvmlab.spec.revisions import Revisions

    assert isinstance(spec_revisions, Revisions)
    given = repo_override or spec_revisions.repo
    repo = find_repo(given, spec_dir)
    build = BuildCommand.of(spec_revisions.build, spec_revisions.shell, spec_revisions.build_timeout)
    commits = {level: resolve(repo, rev) for level, rev in spec_revisions.levels.items()}  # all known before any build
    if say is not None:
        say(f"checking out and building {len(commits)} revision(s) of {repo} ...")
    with worktrees(repo, artifacts_root.absolute() / "revisions", build, paths_base(given, spec_dir, repo,
                                                                                   spec_revisions.paths_from)) as trees:
        made = tuple(trees.checkout(level, spec_revisions.levels[level], commit) for level, commit in commits.items())
        yield RevisionSet(repo, build.argv if build is not None else (), made)
