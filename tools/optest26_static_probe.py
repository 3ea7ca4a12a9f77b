"""A diagnostic, not the measure of docs/OPTEST.md: Paddle 2.6.2's op tests (test/legacy_test) with only their
static checks, on pe. Nearly every case of Paddle 2.6's OpTest asks for checks pe refuses by design (PIR, prim,
the eager run after ``paddle.disable_static()``), and a case stops at its first failure, so the table's run never
reaches the static check (an op in a Program, run by an Executor: what pe does) of most cases. Here each file runs
unchanged as a Paddle 2.x program, with op_test.py's ``check_output*`` and ``check_grad*`` called with those
checks off (``check_dygraph``, ``check_prim``, ``check_pir``, ... False: wrapped at run time, the file as it is);
what fails is then pe's static result, or a missing name, or an error check, not a refusal.

    python tools/optest26_static_probe.py DIR/test/legacy_test OUT [FILE ...]     # each FILE in its own process
    python tools/optest26_static_probe.py --summary OUT                          # the failures that are not refusals

Each file's cases go to OUT/FILE.jsonl (``{"case", "outcome", "error", "where"}``), run as ``python -m pe_cli
fluid tools/optest26_static_probe.py --one DIR FILE OUT/FILE.jsonl`` (with DIR on the path, 150 s a file). The
files without FILE: DIR's OpTest files (those naming ``OpTest``)."""

import argparse
import collections
import json
import os
import subprocess
import sys
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OFF = ("check_dygraph", "check_prim", "check_prim_pir", "check_cinn", "check_pir", "check_auto_parallel")
# a failure whose error names one of these is one of pe's refusals by design (docs/OPTEST.md)
REFUSED = ("dygraph", "static graphs only", "to_variable", "primitive-op", "prepare_python_api", "semi-automatic")


def _static_only(op_test):
    """op_test.OpTest's check methods called with the checks other than the static one off."""
    for name in ("check_output_with_place", "check_grad_with_place", "check_output", "check_grad"):
        method = getattr(op_test.OpTest, name)

        def wrapped(self, *args, _method=method, **kwargs):
            if kwargs.pop("only_check_prim", False):
                return None
            kwargs.update(dict.fromkeys(OFF, False))
            return _method(self, *args, **kwargs)

        setattr(op_test.OpTest, name, wrapped)


def run_one(directory, name, results):
    """Runs the test file ``name`` of ``directory`` (under ``pe fluid``), one JSON line a case to ``results``."""
    import importlib
    import unittest

    import paddle  # noqa: F401 -- a Paddle 2.x program (fluid/version.py), as the test files are

    sys.path.insert(0, directory)
    os.chdir(directory)
    _static_only(importlib.import_module("op_test"))
    out = open(results, "w")

    class Recorded(unittest.TextTestResult):
        def _line(self, test, outcome, err=None):
            record = {"case": test.id(), "outcome": outcome}
            if err is not None:
                record["error"] = f"{err[0].__name__}: {str(err[1]).strip()[:400]}"
                frames = traceback.extract_tb(err[2])[-3:]
                record["where"] = " < ".join(f"{os.path.basename(f.filename)}:{f.lineno}" for f in frames)
            out.write(json.dumps(record) + "\n")
            out.flush()

        def addSuccess(self, test):  # noqa: N802 -- unittest's names
            super().addSuccess(test)
            self._line(test, "ok")

        def addFailure(self, test, err):  # noqa: N802
            super().addFailure(test, err)
            self._line(test, "fail", err)

        def addError(self, test, err):  # noqa: N802
            super().addError(test, err)
            self._line(test, "error", err)

        def addSkip(self, test, reason):  # noqa: N802
            super().addSkip(test, reason)
            self._line(test, "skipped")

    suite = unittest.defaultTestLoader.loadTestsFromModule(importlib.import_module(name[: -len(".py")]))
    with open(os.devnull, "w") as quiet:
        unittest.TextTestRunner(resultclass=Recorded, verbosity=0, stream=quiet).run(suite)


def run_files(directory, out, files):
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, PYTHONWARNINGS="ignore", OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([ROOT, directory, env.get("PYTHONPATH", "")])
    for name in files:
        results = os.path.join(out, name + ".jsonl")
        command = [
            sys.executable,
            "-m",
            "pe_cli",
            "fluid",
            os.path.abspath(__file__),
            "--one",
            directory,
            name,
            results,
        ]
        try:
            subprocess.run(command, cwd=directory, env=env, timeout=150, capture_output=True)
        except subprocess.TimeoutExpired:
            pass
        print(name, flush=True)


def summary(out):
    """Outcomes over every file, and each failure that is not a refusal (the first case of each error)."""
    totals, rows = collections.Counter(), []
    for name in sorted(f for f in os.listdir(out) if f.endswith(".jsonl")):
        with open(os.path.join(out, name)) as f:
            records = [json.loads(line) for line in f]
        for r in records:
            refused = r["outcome"] in ("fail", "error") and any(w in r.get("error", "") for w in REFUSED)
            totals["refused" if refused else r["outcome"]] += 1
            if r["outcome"] in ("fail", "error") and not refused:
                rows.append((name[: -len(".jsonl")], r))
    seen = set()
    for name, r in rows:
        if (name, r["error"][:60]) not in seen:
            seen.add((name, r["error"][:60]))
            print(f"{name} {r['case'].split('.', 1)[1][:60]}: {r['error'][:200]}")
    print(dict(totals))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs=3, metavar=("DIR", "FILE", "RESULTS"))
    parser.add_argument("--summary", metavar="OUT")
    parser.add_argument("paths", nargs="*")
    args = parser.parse_args(argv)
    if args.one:
        return run_one(*args.one)
    if args.summary:
        return summary(args.summary)
    directory, out, files = os.path.abspath(args.paths[0]), os.path.abspath(args.paths[1]), args.paths[2:]
    if not files:
        files = sorted(
            n
            for n in os.listdir(directory)
            if n.startswith("test_") and n.endswith(".py") and "OpTest" in open(os.path.join(directory, n)).read()
        )
    run_files(directory, out, files)


if __name__ == "__main__":
    sys.exit(main())
