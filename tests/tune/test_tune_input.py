"""Bad `[tune]` sections: `check` and `tune` both refuse each with one line and exit 2,
before anything runs (issue 33 item 2, issue 32 item 5)."""

from __future__ import annotations

import pytest

from cli_runner import run_jvmlab
from jvmlab.cli.main import main

HEAD = """
name = "bad-tune"
[workload]
builtin = "hello"
"""
GOOD = {
    "top": 'objective = "wall_s"\n',
    "budget": "[tune.budget]\ntrials = 3\n",
    "params": '[tune.params.gc]\ntype = "categorical"\nvalues = { serial = "-XX:+UseSerialGC", g1 = "-XX:+UseG1GC" }\n',
}
INT_PARAM = '[tune.params.n]\ntype = "int"\nflag = "-XX:ParallelGCThreads={}"\nlow = %s\nhigh = 4\n'
SIZE_PARAM = '[tune.params.heap]\ntype = "size"\nflag = "-Xmx{}"\nlow = %s\nhigh = "1g"\n'


def _section(top: str = "", budget: str | None = None, params: str = "") -> str:
    budget_part = GOOD["budget"] if budget is None else budget
    return f"[tune]\n{GOOD['top']}{top}{budget_part}{GOOD['params']}{params}"


# (name, [tune] text, words the one line must hold)
BAD = [
    ("trials-0", _section(budget="[tune.budget]\ntrials = 0\n"), "[tune.budget] trials"),
    ("trials-negative", _section(budget="[tune.budget]\ntrials = -1\n"), "greater than or equal to 1"),
    ("trials-text", _section(budget='[tune.budget]\ntrials = "many"\n'), "[tune.budget] trials"),
    ("invocations-0", _section(budget="[tune.budget]\ninvocations = 0\n"), "[tune.budget] invocations"),
    ("invocations-negative", _section(budget="[tune.budget]\ninvocations = -5\n"), "[tune.budget] invocations"),
    ("wall-0s", _section(budget='[tune.budget]\nwall = "0s"\n'), "[tune.budget] wall"),
    ("wall-negative", _section(budget="[tune.budget]\nwall = -3\n"), "[tune.budget] wall"),
    ("wall-inf", _section(budget="[tune.budget]\nwall = inf\n"), "[tune.budget] wall"),
    ("budget-empty", _section(budget="[tune.budget]\n"), "[tune.budget]: is empty"),
    ("budget-number", _section(top="budget = 5\n", budget=""), "[tune.budget]: must be a table"),
    ("budget-missing", _section(budget=""), "missing required key 'budget'"),
    ("params-string", f"[tune]\n{GOOD['top']}params = \"x\"\n{GOOD['budget']}", "[tune.params]: must be a table"),
    ("params-empty", f"[tune]\n{GOOD['top']}params = {{}}\n{GOOD['budget']}", "[tune.params]: is empty"),
    ("baseline-number", _section(top="baseline = 5\n"), "[tune] baseline"),
    ("seed-text", _section(top='seed = "abc"\n'), "[tune] seed"),
    ("seed-negative", _section(top="seed = -1\n"), "[tune] seed"),
    ("min-blocks-text", _section(top='min_blocks = "x"\n'), "[tune] min_blocks"),
    ("min-blocks-1", _section(top="min_blocks = 1\n"), "[tune] min_blocks"),
    ("min-above-max", _section(top="min_blocks = 9\nmax_blocks = 4\n"), "above max_blocks"),
    ("confirm-ci-text", _section(top='confirm_ci_pct = "x"\n'), "[tune] confirm_ci_pct"),
    ("confirm-ci-negative", _section(top="confirm_ci_pct = -1\n"), "[tune] confirm_ci_pct"),
    ("confirm-ci-nan", _section(top="confirm_ci_pct = nan\n"), "[tune] confirm_ci_pct"),
    ("int-low-text", _section(params=INT_PARAM % '"a"'), "[tune.params.n] low"),
    ("int-low-fraction", _section(params=INT_PARAM % "1.5"), "[tune.params.n] low"),
    ("int-empty-range", _section(params=INT_PARAM % "9"), "[tune.params.n]: range 9..4 is empty"),
    ("size-low-lots", _section(params=SIZE_PARAM % '"lots"'), "[tune.params.heap] low"),
    ("size-low-bool", _section(params=SIZE_PARAM % "true"), "[tune.params.heap] low"),
    ("range-flag-without-slot", _section(params=INT_PARAM.replace("={}", "=2") % "1"), "needs {}"),
    ("param-no-type", _section(params='[tune.params.x]\nflag = "-XX:+AlwaysPreTouch"\n'),
     "[tune.params.x]: needs type"),
    ("param-bad-type", _section(params='[tune.params.x]\ntype = "float"\nflag = "-X{}"\n'), "needs type"),
    ("param-unknown-key", _section(params='[tune.params.x]\ntype = "bool"\nflag = "-XX:+A"\nlo = 1\n'),
     "unknown key 'lo'"),
    ("bool-no-flag", _section(params='[tune.params.x]\ntype = "bool"\n'), "missing required key 'flag'"),
    ("categorical-no-values", _section(params='[tune.params.x]\ntype = "categorical"\nvalues = []\n'),
     "[tune.params.x] values"),
    ("when-unknown-param", _section(params=INT_PARAM % "1" + 'when = { collector = "g1" }\n'),
     "unknown parameter 'collector'"),
    ("when-itself", _section(params=INT_PARAM % "1" + 'when = { n = "2" }\n'), "unknown parameter 'n'"),
    ("guardrail-unknown-metric", _section(top='guardrails = ["rss_peak <= 1.1x baseline"]\n'),
     "unknown metric 'rss_peak'"),
    ("guardrail-unreadable", _section(top='guardrails = ["wall_s is small"]\n'), "guardrail 'wall_s is small'"),
    ("objective-unknown", "[tune]\nobjective = \"speed\"\n" + GOOD["budget"] + GOOD["params"],
     "unknown metric 'speed'"),
    ("direction-bad", _section(top='direction = "down"\n'), "[tune] direction"),
    ("unknown-key", _section(top="trails = 3\n"), "unknown key 'trails'"),
]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def _one_line_exit_2(code: int, err: str, words: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("jvmlab: error: "), err
    assert words in err, err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("name, section, words", BAD, ids=[b[0] for b in BAD])
def test_check_refuses_a_bad_tune_section_in_one_line(tmp_path, capsys, name, section, words):
    spec = tmp_path / "spec.toml"
    spec.write_text(HEAD + section)
    code, out, err = _run(capsys, "check", str(spec))
    _one_line_exit_2(code, err, words)
    assert out == ""


@pytest.mark.parametrize("name, section, words", BAD, ids=[b[0] for b in BAD])
def test_tune_refuses_the_same_section_before_anything_runs(tmp_path, capsys, name, section, words):
    spec = tmp_path / "spec.toml"
    spec.write_text(HEAD + section)
    code, _out, err = _run(capsys, "tune", str(spec), "--store", str(tmp_path / "lab.db"))
    _one_line_exit_2(code, err, words)
    assert not (tmp_path / "lab.db").exists()


def test_a_good_section_passes_the_same_checks(tmp_path, capsys):
    """The refusals above are about their one change: the section they start from is accepted."""
    spec = tmp_path / "spec.toml"
    spec.write_text(HEAD + _section(params=INT_PARAM % "1"))
    code, out, err = _run(capsys, "check", str(spec))
    assert code == 0, err
    assert "[tune]" in out


def test_the_real_command_line_says_one_line_and_exits_2(tmp_path):
    """Through a real process: the error boundary, not only the parser."""
    spec = tmp_path / "spec.toml"
    spec.write_text(HEAD + _section(budget="[tune.budget]\ntrials = 0\n"))
    for command in (["check", str(spec)], ["tune", str(spec), "--store", "lab.db"]):
        proc = run_jvmlab(*command, cwd=tmp_path)
        _one_line_exit_2(proc.returncode, proc.stderr, "[tune.budget] trials")
