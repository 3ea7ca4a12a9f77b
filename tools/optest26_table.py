"""Runs Paddle 2.6.2's op tests (``test/legacy_test/test_*_op.py``) unchanged on pe, in static mode,
and on Paddle 2.6.2 beside it, and writes the table of docs/OPTEST.md's "Paddle 2.6.2's op tests": for
each file its cases, how many pass on pe, what Paddle 2.6.2 does with it, and pe's first failure.

The files are Paddle's, never part of pe: materialise ``test/legacy_test/`` and ``test/white_list/``
of the commit docs/OPTEST.md names outside the repository (``sources.json`` beside them names repository,
path and commit) and give the ``legacy_test`` folder as DIR. Each file runs in a process of its own
through tools/optest_runner.py (the 1.8 runner, engine-neutral): on pe as ``PYTHON -m pe_cli fluid
tools/optest_runner.py ...``, on Paddle as ``PADDLE_PYTHON tools/optest_runner.py ...``.

    python tools/optest26_table.py DIR --paddle /work/p26/bin/python --cache runs26.jsonl \\
        [--python PY] [--paddle-path DIR] [--pe-path DIR] [--jobs 1] [--timeout 300] \\
        [--only test_x_op.py ...] [--write]

``--paddle-path`` / ``--pe-path``: folders with what the files import beyond each engine's environment
(scipy, built for each engine's numpy: docs/OPTEST.md).

``--cache``, ``--only``, ``--cached-only`` and the summary of a file's cases are tools/optest_table.py's.
Only the files run (on either engine) are rows. Each failing case's first error is sorted into what pe
refuses by design (REFUSALS: Paddle 2.6's PIR, its prim decompositions, dygraph mode) and the rest.
"""

import argparse
import concurrent.futures
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from optest_table import load_cache, passes, run_file, source_commit  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "OPTEST.md")
BEGIN = "<!-- op tests 2.6: tools/optest26_table.py DIR --write -->"
END = "<!-- end of op tests 2.6 -->"

# What pe refuses by design, by the words of its one-line refusal (the first error of a case). PIR:
# Paddle 2.6's PIR check calls the op's Python API with the arguments its phi kernel signature lines
# up, which the eager tracer gives; pe's has none (a RuntimeError, which op_test.py turns into None).
REFUSALS = {
    "PIR": "prepare_python_api_arguments): TypeError: cannot unpack non-iterable NoneType",
    "dygraph": "pe runs static graphs only",
    "prim": "primitive-op decompositions",
    "auto-parallel": "semi-automatic parallelism",
}


def test_files(directory):
    """Paddle 2.6's op test files of ``directory`` (``test_*_op.py``)."""
    return sorted(n for n in os.listdir(directory) if n.startswith("test_") and n.endswith("_op.py"))


def engine_command(engine, args):
    """(command, environment) that runs the runner on ``engine`` (pe or paddle)."""
    legacy = args.directory
    env = dict(os.environ, PYTHONWARNINGS="ignore", PE_DEBUG="1", OMP_NUM_THREADS="1")
    if engine == "paddle":
        env["PYTHONPATH"] = os.pathsep.join([legacy, *args.paddle_path])
        return [args.paddle], env
    env["PYTHONPATH"] = os.pathsep.join([ROOT, legacy, *args.pe_path])
    return [args.python, "-m", "pe_cli", "fluid"], env


def collect(args):
    """{(engine, file): result}, running on each engine the files the cache lacks (or ``--only``)."""
    files = args.only or test_files(args.directory)
    done = load_cache(args.cache)
    engines = [e for e in ("pe", "paddle") if args.engine in (e, "both") and (e == "pe" or args.paddle)]
    todo = [] if args.cached_only else [(e, f) for f in files for e in engines if args.only or (e, f) not in done]

    def run(key):
        engine, name = key
        command, env = engine_command(engine, args)
        record = dict(engine=engine, file=name, **run_file(args.directory, name, command, env, args.timeout))
        with open(args.cache, "a") as out:
            out.write(json.dumps(record) + "\n")
        print(f"{engine:6} {name}: {record['passing']}/{record['cases']} {record['first_failure'][:100]}", flush=True)
        done[key] = record

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(run, todo))
    return sorted({f for _, f in done}), done


def paddle_column(result):
    if result is None:
        return "not run"
    if passes(result):
        return "passes"
    if result["cases"] and result["skipped"] == result["cases"]:
        return "all skipped (CUDA only)"
    return f"fails: {result['first_failure'][:120]}"


def refusal(cause):
    """The REFUSALS key a failure falls under ('' for another failure)."""
    return next((key for key, words in REFUSALS.items() if words in cause), "")


def pe_cells(pe):
    """(refused, the failure column) of pe's result: how many failing cases fail on a named refusal, and
    the first failure that is not one (else the refusals counted by kind)."""
    if pe is None or passes(pe):
        return 0, ""
    failures = pe.get("failures", [pe["first_failure"]] if pe["first_failure"] else [])
    kinds = [refusal(f) for f in failures]
    other = [f for f, k in zip(failures, kinds) if not k]
    if other or not failures or "timed out" in pe["first_failure"]:
        cause = pe["first_failure"] if "timed out" in pe["first_failure"] or not other else other[0]
        return len(failures) - len(other), (cause or "no case passed")[:240].replace("|", "/")
    counts = ", ".join(f"{k} {kinds.count(k)}" for k in REFUSALS if k in kinds)
    return len(failures), f"only pe's refusals ({counts})"


def table(files, done, commit):
    """The header line and the rows of docs/OPTEST.md's 2.6 table."""
    rows, paddle_passes, both, only_refused = [], 0, 0, 0
    for f in files:
        pe, paddle = done.get(("pe", f)), done.get(("paddle", f))
        paddle_passes += passes(paddle)
        both += passes(paddle) and passes(pe)
        refused, cause = pe_cells(pe)
        only_refused += bool(passes(paddle) and cause.startswith("only pe's refusals"))
        cells = "not run | | | |" if pe is None else f"{pe['cases']} | {pe['passing']} | {pe['skipped']} | {refused} |"
        rows.append(f"| {f} | {cells} {paddle_column(paddle)} | {'' if pe is None else pe['seconds']} | {cause} |")
    ran = [done[("pe", f)] for f in files if ("pe", f) in done]
    header = (
        f"**{both} of the {paddle_passes} files Paddle 2.6.2 passes on CPU pass wholly on pe**, and "
        f"{only_refused} more fail only on pe's named refusals ({', '.join(REFUSALS)}); "
        f"{len(files)} files of test/legacy_test at {commit[:10]} run, {len(ran)} on pe; "
        f"{sum(r['passing'] for r in ran)} of {sum(r['cases'] for r in ran)} cases pass on pe, "
        f"{sum(r['skipped'] for r in ran)} skipped (CUDA, float16 or bfloat16 only)."
    )
    lines = [
        header,
        "",
        "| file | cases | passing on pe | skipped | refused | Paddle 2.6.2 | seconds on pe | pe's first failure "
        "other than a refusal |",
        "|---|---|---|---|---|---|---|---|",
    ]
    return "\n".join(lines + rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", help="test/legacy_test of the materialised files")
    parser.add_argument("--paddle", help="Paddle 2.6.2's Python: each file also runs there")
    parser.add_argument("--python", default=sys.executable, help="the Python pe runs on")
    parser.add_argument("--paddle-path", action="append", default=[], help="a folder on Paddle's PYTHONPATH")
    parser.add_argument("--pe-path", action="append", default=[], help="a folder on pe's PYTHONPATH")
    parser.add_argument("--engine", choices=("both", "pe", "paddle"), default="both", help="run on these only")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per test file")
    parser.add_argument("--only", nargs="*", help="run these files (again)")
    parser.add_argument("--cache", required=True, help="JSON lines of results: (engine, file) pairs not run again")
    parser.add_argument("--cached-only", action="store_true", help="run nothing; the rows of the --cache")
    parser.add_argument("--write", action="store_true", help="replace the 2.6 table in docs/OPTEST.md")
    args = parser.parse_args(argv)
    args.directory = os.path.abspath(args.directory)
    files, done = collect(args)
    text = table(files, done, source_commit(os.path.dirname(os.path.dirname(args.directory))))
    if not args.write:
        print(text)
        return 0
    doc = open(DOC).read()
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    with open(DOC + ".tmp", "w") as f:
        f.write(doc[:start] + "\n" + text + "\n" + doc[end:])
    os.replace(DOC + ".tmp", DOC)
    return 0


if __name__ == "__main__":
    sys.exit(main())
