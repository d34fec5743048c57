"""A git repository made by a test: a small Java program built with javac, whose history has
an unchanged stretch, a commit that does not compile (fixed by the next), and a commit whose
work is four times the CPU of the others (the regression bisect must name)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

FAST_ROUNDS = 40  # millions of loop rounds: a few tens of ms of CPU
SLOW_FACTOR = 4  # the slow commit's work: 4x the CPU, so a loaded machine cannot hide it

_MAIN = """public class Main {{
    public static void main(String[] args) {{
        long n = {rounds}L * 1_000_000L;
        long x = 1;
        for (long i = 0; i < n; i++) {{
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= (x >>> 29);
        }}
        System.out.println(x == 42 ? "unlikely" : "done");
    }}
}}
"""
SPEC = """name = "revdemo"

[jvms]
j = "{home}"

[workload]
main = "Main"
classpath = ["out"]

[revisions]
build = ["{javac}", "-d", "out", "src/Main.java"]
levels = ["HEAD"]

[run]
invocations = 8
warmup = 1
"""


@dataclass(frozen=True)
class Repo:
    path: Path
    shas: tuple[str, ...]  # oldest first: shas[0] is good, shas[-1] bad
    slow: int  # index of the first slow commit
    broken: int  # index of the commit that does not compile


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env,
                          timeout=60).stdout.strip()


def _commit(repo: Path, message: str, rounds: int | None = None, broken: bool = False,
            readme: str | None = None) -> str:
    if rounds is not None:
        text = _MAIN.format(rounds=rounds)
        (repo / "src" / "Main.java").write_text(text.replace("long x = 1;", "long x = 1") if broken else text)
    if readme is not None:
        (repo / "README").write_text(readme)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def make_repo(root: Path, jdk_home: Path) -> Repo:
    """Eight commits: 0 good; 1, 2 docs; 3 does not compile; 4 fixes it; 5 is slow; 6, 7 docs."""
    repo = root / "app"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text("out/\n")
    (repo / "bench.toml").write_text(SPEC.format(javac=jdk_home / "bin" / "javac", home=jdk_home))
    shas = [_commit(repo, "first: a loop", rounds=FAST_ROUNDS)]
    shas.append(_commit(repo, "docs: readme", readme="a loop\n"))
    shas.append(_commit(repo, "docs: more readme", readme="a loop\nthat counts\n"))
    shas.append(_commit(repo, "refactor (does not compile)", rounds=FAST_ROUNDS, broken=True))
    shas.append(_commit(repo, "fix the build", rounds=FAST_ROUNDS))
    shas.append(_commit(repo, "more rounds (slow)", rounds=FAST_ROUNDS * SLOW_FACTOR))
    shas.append(_commit(repo, "docs: say so", readme="a slower loop\n"))
    shas.append(_commit(repo, "docs: last", readme="a slower loop.\n"))
    return Repo(repo, tuple(shas), slow=5, broken=3)


def checkout_state(repo: Path) -> tuple[str, str, str, str]:
    """What bisect and gate must leave as it was: HEAD, the branch, the index and the status."""
    return (git(repo, "rev-parse", "HEAD"), git(repo, "symbolic-ref", "-q", "HEAD"),
            git(repo, "ls-files", "-s"), git(repo, "status", "--porcelain", "--ignored"))
