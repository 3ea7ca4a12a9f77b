"""Runs Paddle 1.8's op tests (every OpTest-based file of ``python/paddle/fluid/tests/unittests/`` and
of its ``sequence/`` and ``ir/`` subfolders) unchanged on pe and on Fluid 1.8.5, and writes the table
of docs/OPTEST.md: for each file its cases, how many pass on pe, what Fluid 1.8.5 does with it, and
the cause of pe's first failure.

The test files are not part of pe (they are Paddle's): materialise the directory, with Paddle's
``op_test.py``, ``testsuite.py``, ``white_list/`` and the helper modules the tests import, outside the
repository, with a ``sources.json`` naming the repository and commit. Each file runs in a process of
its own through tools/optest_runner.py, which records each case's outcome: on pe as ``PYTHON -m
pe_cli fluid tools/optest_runner.py ...`` (pe's import hook makes ``paddle.fluid`` pe), on Fluid as
``FLUID_PYTHON tools/optest_runner.py ...``.

    python tools/optest_table.py DIR --fluid /path/to/fluid185/bin/python --cache runs.jsonl \\
        [--python PY] [--pythonpath DEPS] [--env NAME=VALUE] [--jobs 2] [--timeout 600] [--write]

``--cache F`` keeps each file's result on each engine (JSON lines) and runs no (engine, file) twice:
a stopped run resumes where it stopped; ``--cached-only`` runs nothing and writes the rows F holds.
``--only FILE ...`` runs (again) those files only. ``--python`` is the interpreter pe runs on (the
files were written for numpy 1.x: docs/OPTEST.md). Without ``--write`` the table is printed; with
it, it replaces the table in docs/OPTEST.md. NOTES marks failures that come from a Paddle-only
detail, each checked against Fluid 1.8.5.
"""

import argparse
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "OPTEST.md")
RUNNER = os.path.join(ROOT, "tools", "optest_runner.py")
BEGIN = "<!-- op tests: tools/optest_table.py DIR --write -->"
END = "<!-- end of op tests -->"
SUBFOLDERS = ("", "sequence", "ir")

# Failures that come from a detail of Paddle, not from pe: the table says so beside the cause, and the
# count leaves none of them out. file -> the note (each checked against the files at 8e1712a7 and Fluid).
NOTES = {
    "test_var_conv_2d.py": "Paddle-only: TestVarConv2dApi feeds sequences of 60 and 56 values where its channels, "
    "rows and columns make 90 and 84; Fluid's kernel reads past them (memory it does not "
    "own, undefined values), pe refuses them",
    "test_uniform_random_op.py": "Paddle-only: the SelectedRows cases want each histogram bin of one seeded draw of "
    "3136 values within 0.01 of 0.1 (about 2 standard deviations: Fluid's minstd_rand "
    "draw passes, pe's numpy one does not)",
    "sequence/test_sequence_enumerate_op.py": "environment: the test's reference makes np.array() of rows mixing "
    "1-element arrays and ints, which numpy >= 1.24 (every numpy pe "
    "takes) refuses; Fluid 1.8.5's numpy 1.23 made an object array",
}


def test_files(directory):
    """The OpTest-based test files of ``directory`` and of its sequence/ and ir/ subfolders, as paths
    relative to it (``sequence/test_sequence_pool.py``)."""
    files = []
    for sub in SUBFOLDERS:
        folder = os.path.join(directory, sub)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if name.startswith("test_") and name.endswith(".py") and "OpTest" in open(path, errors="replace").read():
                files.append(os.path.join(sub, name) if sub else name)
    return files


def summarize(records, timed_out=None):
    """A file's result from the runner's records: cases, passing, skipped, failing, the first failure."""
    cases = [r for r in records if "case" in r]
    passing = sum(r["outcome"] in ("ok", "expected failure") for r in cases)
    skipped = sum(r["outcome"] == "skipped" for r in cases)
    bad = [r for r in cases if r["outcome"] not in ("ok", "expected failure", "skipped")]
    first = _one_line(bad[0]) if bad else ""
    if timed_out:
        first = f"timed out after {timed_out} s ({len(cases)} cases ran)" + (
            f"; first failure {first}" if first else ""
        )
    elif not any("end" in r for r in records):
        first = first or "the process ended before its cases did"
    return {
        "cases": len(cases),
        "passing": passing,
        "skipped": skipped,
        "failing": len(bad),
        "first_failure": first[:240].replace("|", "/").replace("\n", " "),
        "failures": [_one_line(r) for r in bad],
    }


def _one_line(record):
    """A failing case's line: case (at where): error."""
    at = f" (at {record['where']})" if record.get("where") else ""
    return f"{_short(record['case'])}{at}: {record.get('error', record['outcome'])}"[:300]


def _short(case):
    """``TestMulOp.test_check_grad`` of ``__main__.TestMulOp.test_check_grad``."""
    return case.replace("__main__.", "")


def run_file(directory, name, command, env, timeout):
    """Runs test file ``name`` (relative to ``directory``) by ``command`` + runner arguments; its summary."""
    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "cases.jsonl")
        path = os.path.join(directory, name)
        start = time.time()
        proc = subprocess.Popen(
            [*command, RUNNER, results, path, "-v"],
            cwd=os.path.dirname(path),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        timed_out = None
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the test's own children too
            proc.wait()
            timed_out = timeout
        records = (
            [json.loads(line) for line in open(results).read().splitlines() if line.strip()]
            if os.path.exists(results)
            else []
        )
    return dict(summarize(records, timed_out), seconds=round(time.time() - start, 1))


def engine_command(engine, args):
    """(command, environment) that runs the runner on ``engine`` (pe or fluid)."""
    env = dict(os.environ, PYTHONWARNINGS="ignore", PE_DEBUG="1", **dict(kv.split("=", 1) for kv in args.env))
    if engine == "fluid":
        env["PYTHONPATH"] = os.pathsep.join(args.pythonpath + [args.directory])
        return [args.fluid], env
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + args.pythonpath + [args.directory])
    return [args.python, "-m", "pe_cli", "fluid"], env


def load_cache(cache):
    """{(engine, file): result} of the runs a ``--cache`` file holds (one JSON line per run; a later
    line for the same file replaces an earlier one)."""
    if not cache or not os.path.exists(cache):
        return {}
    done = {}
    for line in open(cache).read().splitlines():
        if line.strip():
            record = json.loads(line)
            done[record["engine"], record["file"]] = record
    return done


def collect(args):
    """{(engine, file): result} of every file on pe (and on Fluid with ``--fluid``), running those the
    cache does not hold (or ``--only`` names), ``args.jobs`` at a time, each added to the cache as it ends."""
    files = test_files(args.directory)
    done = load_cache(args.cache)
    engines = ["pe"] + (["fluid"] if args.fluid else [])
    wanted = (lambda e, f: f in args.only) if args.only else (lambda e, f: (e, f) not in done)
    todo = [] if args.cached_only else [(e, f) for f in files for e in engines if wanted(e, f)]

    def run(key):
        engine, name = key
        command, env = engine_command(engine, args)
        record = dict(engine=engine, file=name, **run_file(args.directory, name, command, env, args.timeout))
        if args.cache:
            with open(args.cache, "a") as out:
                out.write(json.dumps(record) + "\n")
        print(
            f"{engine:5} {name}: {record['passing']}/{record['cases']} {record['first_failure'][:100]}",
            file=sys.stderr,
            flush=True,
        )
        done[key] = record

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(run, todo))
    return files, done


def passes(result):
    """Whether a file passes wholly: cases ran, none failed, and not every one was skipped."""
    return (
        bool(result)
        and result["cases"] > 0
        and result["failing"] == 0
        and result["passing"] > 0
        and "timed out" not in result["first_failure"]
    )


def fluid_column(result):
    if result is None:
        return "not run"
    if passes(result):
        return "passes"
    if result["cases"] and result["skipped"] == result["cases"]:
        return "all skipped (CUDA only)"
    return f"fails: {result['first_failure'][:120]}"


def table(files, done, commit):
    """The header line and the table of docs/OPTEST.md."""
    rows, fluid_passes, both = [], 0, 0
    for f in files:
        pe, fluid = done.get(("pe", f)), done.get(("fluid", f))
        fluid_passes += passes(fluid)
        both += passes(fluid) and passes(pe)
        cause = "" if pe is None or passes(pe) else pe["first_failure"] or "no case passed"
        if cause and f in NOTES:
            cause += f" [{NOTES[f]}]"
        pe_cells = "not run | | |" if pe is None else f"{pe['cases']} | {pe['passing']} | {pe['skipped']} |"
        rows.append(f"| {f} | {pe_cells} {fluid_column(fluid)} | {'' if pe is None else pe['seconds']} | {cause} |")
    ran = [done[("pe", f)] for f in files if ("pe", f) in done]
    header = (
        f"**{both} of the {fluid_passes} files Fluid 1.8.5 passes on CPU pass wholly on pe "
        f"({100 * both / max(fluid_passes, 1):.1f} %)**; {len(files)} OpTest-based files at {commit[:10]}, "
        f"{len(ran)} run on pe, {sum(passes(r) for r in ran)} of them pass wholly; "
        f"{sum(r['passing'] for r in ran)} of {sum(r['cases'] for r in ran)} cases pass on pe, "
        f"{sum(r['skipped'] for r in ran)} skipped (CUDA or float16 only)."
    )
    lines = [
        header,
        "",
        "| file | cases | passing on pe | skipped | Fluid 1.8.5 | seconds on pe | pe's first failure |",
        "|---|---|---|---|---|---|---|",
    ]
    return "\n".join(lines + rows)


def source_commit(directory):
    """The commit sources.json names for the files (its first file's)."""
    path = os.path.join(directory, "sources.json")
    if not os.path.exists(path):
        return "unknown"
    sources = json.load(open(path))
    files = sources["files"] if isinstance(sources, dict) else sources
    return files[0]["commit"] if files else "unknown"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--fluid", help="Fluid 1.8.5's Python: each file also runs there (the other column)")
    parser.add_argument("--python", default=sys.executable, help="the Python pe runs on")
    parser.add_argument("--pythonpath", action="append", default=[])
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable of every run (both engines); docs/OPTEST.md gives the run's",
    )
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=600, help="seconds per test file")
    parser.add_argument("--only", nargs="*", help="run these files (again), paths relative to DIR")
    parser.add_argument("--cache", help="a JSON-lines file of results: (engine, file) pairs in it are not run again")
    parser.add_argument("--cached-only", action="store_true", help="run nothing; the rows of the --cache")
    parser.add_argument("--write", action="store_true", help="replace the table in docs/OPTEST.md")
    args = parser.parse_args(argv)
    args.directory = os.path.abspath(args.directory)
    files, done = collect(args)
    text = table(files, done, source_commit(args.directory))
    if not args.write:
        print(text)
        return 0
    doc = open(DOC).read()
    start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    tmp = DOC + ".tmp"
    with open(tmp, "w") as f:
        f.write(doc[:start] + "\n" + text + "\n" + doc[end:])
    os.replace(tmp, DOC)
    return 0


if __name__ == "__main__":
    sys.exit(main())
