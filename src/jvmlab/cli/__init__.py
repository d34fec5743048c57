"""The command line: each command parses, calls the library and renders.

Start-up rule (issue 34; `tests/cli/test_startup_imports.py` keeps it, `bench/cli_latency.py`
times it): every `cmd_*.py` module is imported to answer even `jvmlab --version`, so a command
module's top level imports only typer, rich, the standard library and light jvmlab modules
(`errors`, `model`, `cli.*`, `spec.durations`). numpy, scipy, SQLAlchemy, plotly, optuna, dask,
jinja2 and jvmlab's `analyze`, `results`, `report`, `store`, `plan`, `spec.model` are imported
inside the command function that needs them (or under `TYPE_CHECKING` for annotations). A
module-level constant that needs a registry (the `--collect` help) must come from a module that
is itself light. Library code under `analyze/` uses `scipy.special` rather than `scipy.stats`
where the same function exists (a third of the import time, paid by every `jvmlab report`).
"""
