"""Fuzzing every command of the CLI (issue 30, item 6).

One module per command (``test_<command>.py``) drives mutated inputs of every kind — the data
(CSV bytes and Parquet types), the policy (YAML/JSON, every field), the side files
(transformation, ``--previous`` report, tags, ``privcheck.toml``, model files, intruder-record
lists, control sets), the options (numbers at their limits, words) and the paths (missing, a
folder, a FIFO, ``/dev/null``, an output equal to or inside an input) — through ``privcheck``
and asserts the contract on every run (``harness.assert_contract``): exit 0, 1 or 2; for 2 one
line on stderr, no traceback and nothing written; every input byte-identical; no run past 10 s;
and every release written with exit 0 re-checks with its own policy.

The cases are drawn by Hypothesis with ``derandomize=True``: CI sees the same cases on every run.
``PRIVCHECK_FUZZ_CASES=N`` runs N cases per test instead of the suite's few dozen (a local hunt
for new findings: thousands).
"""
