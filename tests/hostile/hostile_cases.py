"""The table of hostile inputs (issue 33): each row is a command line, the files it reads, the
exit code and a fragment of the one line jvmlab must print. ``docs/hostile.md`` lists every
row (tests/hostile/test_hostile_inputs.py checks both ways), so the count can only grow.

Faults (a database stopped mid-run, a hung client, a regex that backtracks forever, Ctrl-C)
need processes and are in ``FAULTS`` below, run by tests/hostile/test_hostile_faults.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Hostile:
    """One bad input. ``argv``'s ``{tmp}`` is the test's folder; ``files`` are written there
    first (str as UTF-8, bytes as they are)."""

    id: str
    argv: tuple[str, ...]
    code: int
    fragment: str
    files: dict[str, str | bytes] = field(default_factory=dict)


def _spec(extra: str, workload: str = 'command = ["true"]') -> dict[str, str | bytes]:
    return {"spec.toml": f"[workload]\n{workload}\n[run]\ninvocations = 1\nwarmup = 0\n{extra}\n"}


_SERVER = '''
[server]
{server}
[load]
{load}
[[load.phases]]
name = "main"
duration = {duration}
command = ["true"]
'''


def _server(server: str = "", load: str = "", duration: str = '"1s"') -> dict[str, str | bytes]:
    return _spec(_SERVER.format(server=server, load=load, duration=duration))


def _check(id: str, fragment: str, files: dict[str, str | bytes]) -> Hostile:
    return Hostile(id, ("check", "{tmp}/spec.toml"), 2, fragment, files)


_HYPERFINE_OK = '{"command": "a", "times": [0.1, 0.2]'


def _hyperfine(id: str, result: str, fragment: str) -> Hostile:
    return Hostile(id, ("import", "hyperfine", "{tmp}/h.json", "--store", "{tmp}/lab.db"), 2, fragment,
                   {"h.json": '{"results": [' + result + "]}"})


def _jmh_entry(primary: str = '"score": 1.5, "scoreUnit": "ns/op", "rawData": [[1.0, 2.0]]', extra: str = "") -> str:
    return ('[{"benchmark": "org.x.Bench.run", "mode": "avgt", "primaryMetric": {' + primary + "}"
            + extra + "}]")


def _jmh(id: str, text: str | bytes, fragment: str) -> Hostile:
    return Hostile(id, ("import", "jmh", "{tmp}/j.json", "--store", "{tmp}/lab.db"), 2, fragment, {"j.json": text})


BINARY = bytes(range(256)) * 4

INPUTS: tuple[Hostile, ...] = (
    # -- every duration is finite and bounded (item 1) -----------------------------------------
    _check("server-ready-timeout-inf", "[server] ready_timeout: inf is not a finite duration",
           _server("ready_timeout = inf")),
    _check("server-stop-grace-1e300", "[server] stop_grace: 1e+300 is 1e+300 s, beyond the bound",
           _server("stop_grace = 1e300")),
    _check("server-ready-timeout-negative", "ready_timeout: -1 is a negative duration", _server("ready_timeout = -1")),
    _check("load-client-timeout-1e300", "[load] client_timeout: 1e+300 is 1e+300 s, beyond the bound",
           _server(load="client_timeout = 1e300")),
    _check("load-phase-duration-inf", "not a finite duration", _server(duration="inf")),
    _check("load-phase-duration-9000h", "'9000h' is 3.24e+07 s, beyond the bound", _server(duration='"9000h"')),
    _check("run-timeout-nan", "[run] timeout: nan is not a finite duration", _spec("timeout = nan")),
    _check("run-timeout-8-days", "[run] timeout: '192h' is 691200 s, beyond the bound", _spec('timeout = "192h"')),
    _check("workload-timeout-negative-inf", "[workload] timeout: -inf is not a finite duration",
           _spec("", 'command = ["true"]\ntimeout = -inf')),
    _check("hook-timeout-inf", "not a finite duration",
           _spec("", 'command = ["true"]\nbefore_each = { command = ["true"], timeout = inf }')),
    Hostile("run-budget-9999h", ("run", "{tmp}/spec.toml", "--budget", "9999h", "--store", "{tmp}/lab.db"), 2,
            "--budget: '9999h' is 3.59964e+07 s, beyond the bound", _spec("")),
    Hostile("run-budget-inf", ("run", "{tmp}/spec.toml", "--budget", "inf", "--store", "{tmp}/lab.db"), 2,
            "--budget: 'inf' is not a duration", _spec("")),
    _check("load-regex-does-not-compile", "does not compile",
           _server(load='parser = "regex"\nregex = "(?P<n>[0-9"')),
    # -- [environment] (item 3) --------------------------------------------------------------
    _check("env-cpus-beyond-machine", "cpus = 4096 is more than the", _spec("[environment]\ncpus = [4096]")),
    _check("env-memory-beyond-machine", "memory = 6.554e+04 GiB is more than the",
           _spec('[environment]\nmemory = ["64t"]')),
    _check("env-cpus-empty", "cpus = [] names no level", _spec("[environment]\ncpus = []")),
    _check("env-memory-empty", "memory = [] names no level", _spec("[environment]\nmemory = []")),
    _check("env-page-cache-empty", "page_cache = [] names no level", _spec("[environment]\npage_cache = []")),
    _check("env-cpuset-fraction", 'cpus = 1.5 with cpu_limit = "cpuset" needs a whole number',
           _spec('[environment]\ncpus = [1.5]\ncpu_limit = "cpuset"')),
    _check("env-cpuset-beyond-machine", "cpus = 4096 is more than the",
           _spec('[environment]\ncpus = [4096]\ncpu_limit = "cpuset"')),
    _check("env-cpus-zero", "[environment] cpus.0: Input should be greater than 0", _spec("[environment]\ncpus = [0]")),
    _check("env-memory-not-a-size", "'lots' is not a size", _spec('[environment]\nmemory = ["lots"]')),
    _check("env-memory-below-16m", "below 16m", _spec('[environment]\nmemory = ["1m"]')),
    # -- imports (item 4) -----------------------------------------------------------------------
    Hostile("hyperfine-binary-file", ("import", "hyperfine", "{tmp}/h.json", "--store", "{tmp}/lab.db"), 2,
            "not UTF-8 text", {"h.json": BINARY}),
    _hyperfine("hyperfine-times-string", '{"command": "a", "times": [0.1, "fast"]}', 'times[1] is "fast"'),
    _hyperfine("hyperfine-times-null", '{"command": "a", "times": [null, 0.1]}', "times[0] is null"),
    _hyperfine("hyperfine-times-negative", '{"command": "a", "times": [0.1, -0.5]}', "times[1] is -0.5"),
    _hyperfine("hyperfine-times-nan", '{"command": "a", "times": [NaN]}', "times[0] is NaN"),
    _hyperfine("hyperfine-times-bool", '{"command": "a", "times": [true]}', "times[0] is true"),
    _hyperfine("hyperfine-times-not-a-list", '{"command": "a", "times": "0.1"}', "has no per-run times"),
    _hyperfine("hyperfine-exit-code-string", _HYPERFINE_OK + ', "exit_codes": ["0", 0]}', 'exit_codes[0] is "0"'),
    _hyperfine("hyperfine-memory-negative", _HYPERFINE_OK + ', "memory_usage_byte": [1, -1]}',
               "memory_usage_byte[1] is -1"),
    _hyperfine("hyperfine-parameters-not-a-table", _HYPERFINE_OK + ', "parameters": "x"}',
               "parameters is 'x', not a table"),
    _hyperfine("hyperfine-no-command", '{"times": [0.1]}', "not a hyperfine --export-json file"),
    _jmh("jmh-binary-file", BINARY, "not UTF-8 text"),
    _jmh("jmh-score-nan", _jmh_entry('"score": "NaN", "scoreUnit": "ns/op", "rawData": [["NaN", "NaN"]]'),
         "has no finite score (JMH wrote NaN"),
    _jmh("jmh-raw-data-nan", _jmh_entry('"score": 1.0, "scoreUnit": "ns/op", "rawData": [["NaN"]]'),
         "has no finite score"),
    _jmh("jmh-params-not-a-table", _jmh_entry(extra=', "params": "x"'), "benchmark entry 0 ('org.x.Bench.run')"),
    _jmh("jmh-raw-data-not-nested", _jmh_entry('"score": 1.0, "rawData": [1.0, 2.0]'),
         "is not JMH's JSON shape"),
    _jmh("jmh-secondary-not-a-table", _jmh_entry(extra=', "secondaryMetrics": [1]'), "is not JMH's JSON shape"),
    # -- messages (item 6) ----------------------------------------------------------------------
    Hostile("minheap-html-without-sweep", ("minheap", "{tmp}/spec.toml", "--html", "{tmp}/out.html",
                                            "--store", "{tmp}/lab.db"), 2, "add --sweep (or --sizes)", _spec("")),
    Hostile("option-below-range", ("run", "{tmp}/spec.toml", "--max-invocations", "0"), 2,
            "Invalid value for '--max-invocations'", _spec("")),
    Hostile("option-above-range", ("minheap", "{tmp}/spec.toml", "--repeats", "51"), 2,
            "Invalid value for '--repeats'", _spec("")),
    Hostile("option-not-a-number", ("minheap", "{tmp}/spec.toml", "--within", "lots"), 2,
            "Invalid value for '--within'", _spec("")),
    Hostile("option-unknown", ("run", "{tmp}/spec.toml", "--invocashuns", "3"), 2,
            "No such option: --invocashuns", _spec("")),
    Hostile("rightsize-goal-not-a-goal", ("rightsize", "{tmp}/spec.toml", "--slo", "wall_s <", "--cpus", "1",
                                          "--memory", "512m", "--store", "{tmp}/lab.db"), 2,
            "write METRIC COMPARISON NUMBER", _spec("")),
    Hostile("rightsize-goal-infinite", ("rightsize", "{tmp}/spec.toml", "--slo", "wall_s < 1e999", "--cpus", "1",
                                        "--memory", "512m", "--store", "{tmp}/lab.db"), 2,
            "the bound must be a finite number", _spec("")),
    Hostile("rightsize-goal-wrong-side", ("rightsize", "{tmp}/spec.toml", "--slo", "load.achieved_share < 0.9",
                                          "--cpus", "1", "--memory", "512m", "--store", "{tmp}/lab.db"), 2,
            "higher load.achieved_share is better", _spec("")),
    Hostile("command-unknown", ("rnu", "{tmp}/spec.toml"), 2, "No such command 'rnu'", _spec("")),
    # -- revisions (issue 43) ---------------------------------------------------------------------
    Hostile("revisions-no-level", ("check", "{tmp}/spec.toml"), 2, "names no revision",
            _spec("[revisions]\nlevels = []")),
    Hostile("revisions-option-as-level", ("check", "{tmp}/spec.toml"), 2, "is not a revision",
            _spec('[revisions]\nlevels = ["--output=/etc/x"]')),
    Hostile("bisect-not-a-repository", ("bisect", "{tmp}/spec.toml", "--good", "a", "--bad", "b", "--store",
                                        "{tmp}/lab.db"), 2, "is not in a git repository", _spec("")),
    Hostile("gate-not-a-repository", ("gate", "{tmp}/spec.toml", "--base", "a", "--store", "{tmp}/lab.db"), 2,
            "is not in a git repository", _spec("")),
)


@dataclass(frozen=True)
class Fault:
    """A fault tried on a real run: what is done, the exit code, the fragment jvmlab must say
    (on stderr, or as the stored invocation's reason when the run goes on)."""

    id: str
    what: str
    code: int
    fragment: str
    test: str  # the test in tests/hostile/test_hostile_faults.py that tries it


FAULTS: tuple[Fault, ...] = (
    Fault("load-regex-backtracks", "[load] regex '^(?P<n>(a|aa)+)$' over 60 'a' and '!'", 0,
          "ran out of time (0.1 s of CPU) on the line", "test_a_backtracking_load_regex_is_a_recorded_failure"),
    Fault("load-regex-issue-33", "[load] regex '(?P<n>(a+)+)$' over 40 'a' and '!' (the issue's own)", 0,
          "no line of the client's output matches", "test_a_backtracking_load_regex_is_a_recorded_failure"),
    Fault("ready-regex-backtracks", "[workload] ready '^(a|aa)+$' over the workload's line of 60 'a' and '!'", 0,
          "[workload] ready '^(a|aa)+$' ran out of time", "test_a_backtracking_ready_regex_is_a_recorded_failure"),
    Fault("progress-regex-backtracks", "[workload] progress regex that backtracks on the workload's line", 0,
          "[workload] progress", "test_a_backtracking_progress_regex_is_recorded_in_the_progress_document"),
    Fault("hung-client", "a load client that never ends (sleep), client_timeout 2 s", 0,
          "did not finish within its timeout; killed; client output: (none)",
          "test_a_hung_client_is_quoted_not_the_server"),
    Fault("postgres-stopped-mid-run", "PostgreSQL stopped (pg_ctl stop -m fast) while `run` measures", 2,
          "in store postgresql+psycopg://", "test_postgres_stopped_mid_run_is_one_line_and_resumes"),
    Fault("error-after-open", "the SQLite store's invocation table renamed by another program while `run` measures", 2,
          "is marked interrupted", "test_an_experiment_left_running_is_marked_interrupted"),
    Fault("tune-sigint", "Ctrl-C (SIGINT) during `jvmlab tune`", 130,
          "measured invocations", "test_tune_interrupted_says_what_is_stored"),
)
