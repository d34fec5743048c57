"""The table of hostile inputs (issue 33): each row is a command line, the files it reads, the
exit code and a fragment of the one line jvmlab must print. ``docs/hostile.md`` lists every
row (tests/hostile/test_hostile_inputs.py checks both ways), so the count can only grow.

Faults (a database stopped mid-run, a hung client, a regex that backtracks forever, Ctrl-C)
need processes and are in ``FAULTS`` below, run by tests/hostile/test_hostile_faults.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Fifo:
    """A named pipe in place of a file (nothing ever writes to it: reading it would block)."""


FIFO = Fifo()


@dataclass(frozen=True)
class Hostile:
    """One bad input. ``argv``'s ``{tmp}`` is the test's folder; ``files`` are written there
    first (str as UTF-8, bytes as they are, FIFO as a named pipe)."""

    id: str
    argv: tuple[str, ...]
    code: int
    fragment: str
    files: dict[str, str | bytes | Fifo] = field(default_factory=dict)
    absent: str = ""  # a text that must not be printed (a password)


def _spec(extra: str, workload: str = 'command = ["true"]') -> dict[str, str | bytes | Fifo]:
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


def _server(server: str = "", load: str = "", duration: str = '"1s"') -> dict[str, str | bytes | Fifo]:
    return _spec(_SERVER.format(server=server, load=load, duration=duration))


def _check(id: str, fragment: str, files: dict[str, str | bytes | Fifo]) -> Hostile:
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

# -- issue 45 ---------------------------------------------------------------------------------
_TUNE = ('[tune]\nobjective = "wall_s"\n{extra}\n[tune.budget]\ntrials = 2\n[tune.params.a]\ntype = "bool"\n'
         'flag = "-XX:+AlwaysPreTouch"\n{param}')
_JAVA = 'command = ["{java}", "{jvm_args}", "-version"]'
_RUN = ("run", "{tmp}/spec.toml", "--store", "{tmp}/lab.db")
_ONE = ("--store", "{tmp}/lab.db", "-r", "1", "-w", "0")
_PG = "postgresql+psycopg://bob:s3cret@127.0.0.1:1/db"  # nothing listens on port 1: refused at once


def _big_matrix() -> dict[str, str | bytes | Fifo]:
    jvms = "\n".join(f'j{i} = "default"' for i in range(30))
    levels = "\n".join(f'l{i} = "-Dx{i}=1"' for i in range(300))
    return _spec(f"[jvms]\n{jvms}\n[factors.a]\n{levels}\n[factors.b]\n{levels}")


def _deep(n: int = 100_000) -> str:
    return "[" * n


ISSUE_45: tuple[Hostile, ...] = (
    # 1. passwords never printed
    Hostile("store-password-cannot-open", ("results", "--store", _PG), 2, "cannot open store "
            "postgresql+psycopg://bob:***@127.0.0.1:1/db", absent="s3cret"),
    Hostile("optuna-storage-password", ("tune", "{tmp}/spec.toml", "--store", "{tmp}/lab.db", "--optuna-storage",
                                        _PG), 2, "--optuna-storage 'postgresql+psycopg://bob:***@127.0.0.1:1/db'",
            _spec(_TUNE.format(extra="", param=""), _JAVA), absent="s3cret"),
    # 2. every read bounded
    _check("spec-fifo", "not a regular file (a FIFO)", {"spec.toml": FIFO}),
    Hostile("spec-dev-zero", ("check", "/dev/zero"), 2, "spec /dev/zero: not a regular file (a character device)"),
    Hostile("run-spec-fifo", _RUN, 2, "not a regular file (a FIFO)", {"spec.toml": FIFO}),
    _check("spec-over-1-mib", "larger than 1 MiB", {"spec.toml": "# " + "x" * (2 << 20) + "\n"}),
    Hostile("store-fifo", ("results", "--store", "{tmp}/lab.fifo"), 2, "store {tmp}/lab.fifo: not a regular file "
            "(a FIFO)", {"lab.fifo": FIFO}),
    Hostile("store-dev-zero", ("run", "{tmp}/spec.toml", "--store", "/dev/zero"), 2, "not a regular file (a "
            "character device)", _spec("")),
    Hostile("import-hyperfine-fifo", ("import", "hyperfine", "{tmp}/h.json", "--store", "{tmp}/lab.db"), 2,
            "hyperfine result {tmp}/h.json: not a regular file (a FIFO)", {"h.json": FIFO}),
    Hostile("import-jmh-dev-zero", ("import", "jmh", "/dev/zero", "--store", "{tmp}/lab.db"), 2,
            "JMH result /dev/zero: not a regular file (a character device)"),
    Hostile("gc-analyze-fifo", ("gc", "analyze", "{tmp}/gc.log"), 2, "GC log {tmp}/gc.log: not a regular file "
            "(a FIFO)", {"gc.log": FIFO}),
    Hostile("gc-compare-dev-zero", ("gc", "compare", "/dev/zero", "/dev/zero"), 2, "GC log /dev/zero: not a "
            "regular file (a character device)"),
    _hyperfine("hyperfine-json-nested-deep", _deep(), "nested too deep"),
    _jmh("jmh-json-int-5000-digits", "[" + "1" * 5000 + "]", "an integer of more than 4300 digits"),
    _check("toml-nested-deep", "invalid TOML: nested too deep", {"spec.toml": "a = " + _deep()}),
    _check("toml-int-5000-digits", "invalid TOML: an integer of more than 4300 digits",
           {"spec.toml": "a = " + "1" * 5000 + "\n"}),
    # 3. matrix size bounded
    _check("matrix-30x300x300", "the matrix has jvm (30) x a (300) x b (300) = 2700000 cells", _big_matrix()),
    Hostile("oneliner-scan-million", ("run", "echo {n}", "-P", "n", "1", "1000000", *_ONE), 2,
            "the one-liner has -P n (1000000) = 1000000 cells, more than the 1000"),
    # 4. one-liner options never dropped or misread
    Hostile("oneliner-jvm-twice", ("run", "java -jar app.jar", "--jvm", "a=17", "--jvm", "a=25", *_ONE), 2,
            "--jvm a=... is given twice"),
    Hostile("oneliner-java-then-python", ("run", "java -jar app.jar", "python3 x.py", *_ONE), 2,
            "'java -jar app.jar' is a java command and 'python3 x.py' is not"),
    Hostile("oneliner-python-then-java", ("run", "python3 x.py", "java -jar app.jar", *_ONE), 2,
            "'java -jar app.jar' is a java command and 'python3 x.py' is not"),
    Hostile("oneliner-hook-and-and", ("run", "java -jar app.jar", "--hook", "setup=rm -rf x && touch y", *_ONE), 2,
            "has '&&', which needs a shell"),
    Hostile("oneliner-same-l-twice", ("run", "echo {a}", "-L", "a", "x,y", "-L", "a", "z", *_ONE), 2,
            "a scan parameter is given twice: a, a"),
    Hostile("oneliner-p-not-a-number", ("run", "echo {a}", "-P", "a", "x", "9", *_ONE), 2,
            "-P a x 9: MIN and MAX are whole numbers"),
    # 5. no internal errors
    Hostile("nul-in-argv", _RUN, 2, '[workload] command[1] holds a NUL byte',
            _spec("", 'command = ["echo", "a\\u0000b"]')),
    Hostile("nul-in-env", _RUN, 2, "[workload] env.X holds a NUL byte",
            _spec("", 'command = ["echo"]\nenv = { X = "a\\u0000b" }')),
    Hostile("nul-in-hook", _RUN, 2, "[workload] before_each[1] holds a NUL byte",
            _spec("", 'command = ["echo"]\nbefore_each = ["echo", "a\\u0000b"]')),
    Hostile("nul-in-flags", _RUN, 2, "[factors] f.a holds a NUL byte",
            _spec('[factors.f]\na = "-Dx=a\\u0000b"', _JAVA)),
    Hostile("oneliner-not-utf8", ("run", "echo a\udcff", *_ONE), 2, "'echo a\\xff' is not UTF-8 text (byte 0xff)"),
    Hostile("oneliner-hook-not-utf8", ("run", "echo a", "--hook", "setup=echo \udcfe", *_ONE), 2,
            "is not UTF-8 text (byte 0xfe)"),
    _hyperfine("hyperfine-exit-code-1e20", _HYPERFINE_OK + ', "exit_codes": [100000000000000000000, 0]}',
               "exit_codes[0] is 100000000000000000000, not an exit code"),
    _check("tune-seed-over-32-bits", "[tune] seed: Input should be less than or equal to 4294967295",
           _spec(_TUNE.format(extra="seed = 4294967296", param=""), _JAVA)),
    # 8. silent acceptances refused
    Hostile("cluster-port-70000", ("cluster", "local", "--port", "70000"), 2, "Invalid value for '--port'"),
    Hostile("store-sqlite-in-memory", ("run", "{tmp}/spec.toml", "--store", "sqlite://"), 2,
            "--store sqlite://: an in-memory database", _spec("")),
    Hostile("order-nan", ("run", "{tmp}/spec.toml", "--label", "a", "--order", "nan", "--store", "{tmp}/lab.db"), 2,
            "--order nan: give a finite number", _spec("")),
    Hostile("label-over-200", ("run", "{tmp}/spec.toml", "--label", "x" * 201, "--store", "{tmp}/lab.db"), 2,
            "--label: 201 characters; give at most 200", _spec("")),
    _check("spec-name-over-200", "name: String should have at most 200 characters",
           {"spec.toml": f'name = "{"n" * 201}"\n[workload]\ncommand = ["true"]\n'}),
    _check("jvm-name-over-200", "has 201 characters: give at most 200",
           {"spec.toml": f'[workload]\ncommand = ["true"]\n[jvms]\n{"j" * 201} = "default"\n'}),
    _check("tune-when-cycle", "the when conditions a -> b -> a form a cycle",
           _spec(_TUNE.format(extra="", param='when = { b = true }\n[tune.params.b]\ntype = "bool"\n'
                              'flag = "-XX:+UseNUMA"\nwhen = { a = true }'), _JAVA)),
    _check("hook-unknown-placeholder", "unknown placeholder {cel} (did you mean 'cell'?)",
           _spec("", 'command = ["true"]\nsetup = ["echo", "{cel}"]')),
    Hostile("oneliner-hook-unknown-placeholder", ("run", "true", "--hook", "setup=echo {invocation_directory}", *_ONE),
            2, "unknown placeholder {invocation_directory}"),
    _hyperfine("hyperfine-times-1e308", '{"command": "a", "times": [1e308]}',
               "times[0] is 1e+308, not a wall time in seconds (a finite number from 0 to 604800)"),
    _hyperfine("hyperfine-exit-codes-longer-than-times", _HYPERFINE_OK + ', "exit_codes": [0, 0, 0]}',
               "3 exit_codes for 2 times: one per run"),
    _jmh("jmh-negative-score", _jmh_entry('"score": -1.5, "scoreUnit": "ns/op", "rawData": [[-1.0, -2.0]]'),
         "has a negative score (-1.5 ns/op)"),
)

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
    *ISSUE_45,
)


@dataclass(frozen=True)
class Fault:
    """A fault tried on a real run: what is done, the exit code, the fragment jvmlab must say
    (on stderr, or as the stored invocation's reason when the run goes on)."""

    id: str
    what: str
    code: int
    fragment: str
    test: str  # the test that tries it: in tests/hostile/test_hostile_faults.py, or FILE::TEST


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
    *(Fault(id, what, code, fragment, f"test_hostile_edges.py::{test}") for id, what, code, fragment, test in (
        ("gc-log-300mb-line-gz", "`jvmlab gc analyze gc.log.gz`: 1 MB of .gz inflating to one 300 MB line", 0,
         "a line of 314572800 bytes left out (longer than 1 MiB: not a GC log line)",
         "test_a_gz_inflating_to_a_300_mb_line_is_left_out_and_counted"),
        ("gc-log-truncated-gz", "`jvmlab gc analyze gc.log.gz`: a .gz cut in half", 0, "the file ends early",
         "test_a_truncated_gz_is_read_and_said"),
        ("check-sigterm", "SIGTERM during `jvmlab check` of a 1000-cell matrix (a JVM per flag check)", 143,
         "jvmlab: terminated", "test_check_of_a_big_matrix_stops_at_sigterm"),
        ("hook-deletes-store", "an after_each hook: rm -f lab.db lab.db-wal lab.db-shm", 2,
         "was deleted while jvmlab wrote to it", "test_a_hook_that_deletes_or_replaces_the_store_stops_the_run"),
        ("hook-replaces-store", "an after_each hook: cp other.db tmp.db && mv tmp.db lab.db", 2,
         "was replaced by another file while jvmlab wrote to it",
         "test_a_hook_that_deletes_or_replaces_the_store_stops_the_run"),
        ("hook-empties-store", "an after_each hook: rm -f lab.db*; touch lab.db", 2,
         "was replaced by another file while jvmlab wrote to it",
         "test_a_hook_that_deletes_or_replaces_the_store_stops_the_run"),
        ("hook-output-control-chars", "a before_each hook printing ESC [31m, ESC ]0;title BEL, ESC [2J and failing", 0,
         "\\x1b[31mHOOK", "test_hook_and_workload_output_reach_the_terminal_escaped"),
        ("gc-advise-resume", "SIGTERM during `jvmlab gc advise LOG --spec SPEC`, then the same with --resume", 143,
         "continue with: the same `jvmlab gc advise` command with --resume", "test_gc_advise_interrupted_resumes"),
        ("postgres-password-resume", "SIGTERM during `jvmlab run` with --store postgresql+psycopg://USER:PASSWORD@...",
         143, "the password is not shown: put it back in the URL, or let the driver read it from PGPASSWORD or "
         "~/.pgpass", "test_a_password_in_the_store_url_is_never_printed"),
        ("oneliner-l-p-repeated", "`jvmlab run 'echo {a} {b} {n}' -L a x,y -L b 1,2 -P n 1 2 --save-spec s.toml`", 0,
         'args = ["x", "1", "1"]', "test_a_one_liner_takes_every_l_and_p"),
        ("oneliner-120k-word", "`jvmlab run 'echo xxx...'` (a 120 kB word) --save-spec s.toml", 0, "wrote s.toml",
         "test_a_120_kb_command_word_is_not_an_internal_error"),
    )),
)
