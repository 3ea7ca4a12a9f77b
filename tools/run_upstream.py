"""Runs a directory of unchanged Fluid 1.x programs under ``pe fluid`` (and, optionally, under a real
Fluid's Python), one fresh temporary directory each, and prints one line per program and the counts.

    python tools/run_upstream.py DIR [--fluid PYTHON] [--timeout S] [--jobs N] [--report FILE]
                                     [--home HOME] [--only SUBSTRING] [--deps DIR] [--fluid-deps DIR]

The programs stay outside the repository, exactly as their authors wrote them. What the runner adds:

- **Its own copy.** Each program runs in a new temporary directory holding a copy of the program's
  directory (the program, its sibling helper modules and data files), laid out at the same relative
  path as in DIR, plus what the manifest's ``copy`` names; the program's directory is its cwd.
- **Offline data.** ``HOME`` is a directory whose ``.cache/paddle/dataset`` holds small generated
  files in Paddle's cache layout (``tools/make_offline_datasets.py``; made once per run unless
  ``--home`` names one). A program that reads files of its own directory, which its README's data
  step downloads and preprocesses, finds them there: the manifest's ``"data": NAME`` writes
  generated ones, as that step leaves them (``tools/offline_program_data.py``). Under a real
  Fluid, a ``sitecustomize`` of the runner makes ``paddle.dataset.common.download`` take a file
  already in the cache as it is (Fluid would compare its md5 with the real archive's and download
  again); nothing else of Fluid is touched.
- **The programs' own third-party packages.** Programs import what their authors had installed
  (pandas, scipy, ...) and pe does not need. ``--deps DIR`` (for pe's Python) and ``--fluid-deps DIR``
  (for the Fluid Python's) name a folder holding them, made once with e.g.
  ``pip install --target DIR --no-deps pandas scipy python-dateutil pytz tzdata`` (``--no-deps``: the
  interpreter's own numpy stays the one in use); it goes on the programs' ``PYTHONPATH`` after pe and
  the manifest's ``pythonpath``. Nothing of it becomes a dependency of pe.
- **Fixed seeds.** ``PYTHONHASHSEED=0``; the same ``sitecustomize`` seeds ``random`` and numpy with 0.
- **Fewer passes.** Through the program's own flags and environment, from the manifest.
- **unittest files.** A file defining a ``unittest.TestCase`` runs as ``python -m unittest FILE``
  would (a driver of the runner calls ``unittest.main`` on the module); it passes when every test
  ran and passed. The manifest's ``tests`` (``["Class", "Class.test_method", ...]``) runs only
  those of the file's tests, as ``python -m unittest FILE.Class`` would (the file stays unchanged). A file whose tests were all skipped, or that ran none, is not a pass.

The manifest, ``DIR/suite.json`` (docs/COMPAT.md, "Upstream files, run unchanged", gives its
format): ``{"defaults": {...}, "files": {"rel/path.py": {"argv": [...], "env": {...}, "timeout": S,
"copy": ["rel/dir"], "pythonpath": ["rel/dir"], "data": NAME, "tests": ["Class", "Class.test_method"], "after": "rel/path.py",
"source": {"repo": ..., "path": ..., "commit": ...}}}}``
(``pythonpath``: folders, relative to DIR, holding what the programs import besides Paddle, such
as ``six``, which a Fluid installation brings along; ``after``: another program of the manifest
that runs first in the same temporary directory, as the program's authors run them, e.g. the one
that trains and saves the model the program loads; if it fails, so does the program, naming it).
Without one, every
``*.py`` directly in DIR is a program with no arguments.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import offline_program_data

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNITTEST_DRIVER = "_upstream_unittest_driver.py"
DRIVER_TEXT = """import sys, unittest
module, names = sys.argv[1], sys.argv[2:]
del sys.argv[1:]
unittest.main(module=None, argv=[sys.argv[0]] + ([module + "." + n for n in names] or [module]), verbosity=1)
"""
# Imported at start-up of every program's interpreter (it is on PYTHONPATH): fixed seeds, and under
# a real Fluid, the cached dataset file taken as it is (no md5 compare, so no download).
SITECUSTOMIZE_TEXT = """import os, random, sys
random.seed(0)
try:
    import numpy
    numpy.random.seed(0)
except ImportError:
    pass
if os.environ.get("UPSTREAM_FLUID") == "1":
    import importlib.abc, importlib.machinery

    def _patch(common):
        def download(url, module_name, md5sum, save_name=None):
            dirname = os.path.join(common.DATA_HOME, module_name)
            name = os.path.join(dirname, save_name or url.split("/")[-1])
            if os.path.exists(name):
                return name
            raise RuntimeError("offline: no " + name)
        common.download = download

    class _Hook(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name != "paddle.dataset.common":
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            run = spec.loader.exec_module
            def exec_module(module):
                run(module)
                _patch(module)
            spec.loader.exec_module = exec_module
            return spec
    sys.meta_path.insert(0, _Hook())
"""


def load_manifest(suite):
    """{rel path: options} for every program of ``suite``, in a stable order."""
    path = os.path.join(suite, "suite.json")
    if not os.path.isfile(path):
        names = sorted(n for n in os.listdir(suite) if n.endswith(".py"))
        return {n: {"timeout": 300} for n in names}
    with open(path) as f:
        manifest = json.load(f)
    defaults = manifest.get("defaults", {})
    return {rel: {**defaults, **opts} for rel, opts in sorted(manifest["files"].items())}


def is_unittest_file(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return re.search(r"unittest\.TestCase|\(TestCase\)", f.read()) is not None


def _copy_in(suite, rel, opts, work):
    """Copies the program's directory (and the manifest's ``copy`` items) under ``work``."""
    rel_dir = os.path.dirname(rel)
    shutil.copytree(
        os.path.join(suite, rel_dir) if rel_dir else suite,
        os.path.join(work, rel_dir),
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__", "suite.json"),
    )
    for item in opts.get("copy", []):
        src, dst = os.path.join(suite, item), os.path.join(work, item)
        if os.path.isdir(src):
            shutil.copytree(src, dst, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(src, dst)
    return os.path.join(work, rel_dir)


def command_for(python, fluid, cwd, rel, opts):
    """(argv, is a unittest file): one program (a unittest file through the driver) under pe or a Fluid."""
    script = os.path.basename(rel)
    runner = [python] if fluid else [python, "-m", "pe_cli", "fluid"]
    if is_unittest_file(os.path.join(cwd, script)):
        with open(os.path.join(cwd, UNITTEST_DRIVER), "w") as f:
            f.write(DRIVER_TEXT)
        return runner + [UNITTEST_DRIVER, script[:-3]] + list(opts.get("tests", [])), True
    return runner + [script] + [str(a) for a in opts.get("argv", [])], False


def first_error(output):
    """The line that says why a run failed: pe's one-line message, else the first exception line."""
    lines = output.splitlines()
    for line in lines:
        if line.startswith("pe fluid: "):
            return line[len("pe fluid: ") :]
    in_tb = False
    for line in lines:
        if line.startswith("Traceback (most recent call last)"):
            in_tb = True
        elif in_tb and line and not line[0].isspace():
            return line
    tail = [line for line in lines if line.strip()]
    return tail[-1] if tail else "no output"


def verdict(rc, output, timed_out, unittest_file):
    """(passed, text) from a finished run."""
    if timed_out:
        return False, "timed out"
    if unittest_file:
        ran = re.findall(r"^Ran (\d+) tests?", output, re.M)
        skipped = re.search(r"^OK \(.*skipped=(\d+)", output, re.M)
        if rc == 0 and ran and int(ran[-1]) == 0:
            return False, "ran no tests"
        if rc == 0 and skipped and int(skipped.group(1)) >= int(ran[-1]):
            return False, "every test skipped"
        if rc == 0:
            note = f" ({skipped.group(1)} skipped)" if skipped else ""
            return True, f"passes: {ran[-1] if ran else '?'} tests{note}"
    elif rc == 0:
        return True, "passes"
    return False, first_error(output)


def _execute(suite, rel, opts, python, fluid, home, site, work):
    """Runs one program in ``work`` (its directory copied in); returns (rc, output, timed out, is a unittest file).
    ``site``: [the runner's sitecustomize folder, then the programs' own packages (--deps), if any]."""
    cwd = _copy_in(suite, rel, opts, work)
    if opts.get("data"):
        offline_program_data.write(opts["data"], cwd)
    cmd, unittest_file = command_for(python, fluid, cwd, rel, opts)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PE_"))}
    extra = [os.path.join(suite, p) for p in opts.get("pythonpath", [])]  # the program's own needs
    path = site[:1] + ([] if fluid else [ROOT]) + extra + site[1:]
    env.update(
        HOME=home,
        PYTHONHASHSEED="0",
        PYTHONPATH=os.pathsep.join(path),
        CUDA_VISIBLE_DEVICES="",
        OMP_NUM_THREADS="1",
        UPSTREAM_FLUID="1" if fluid else "0",
    )
    env.update({k: str(v) for k, v in opts.get("env", {}).items()})
    try:
        done = subprocess.run(
            cmd,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            timeout=opts.get("timeout", 300),
        )
        return done.returncode, done.stdout.decode("utf-8", "replace"), False, unittest_file
    except subprocess.TimeoutExpired as e:
        return -1, (e.stdout or b"").decode("utf-8", "replace"), True, unittest_file


def run_one(suite, rel, opts, python, fluid, home, site):
    """Runs one program in a fresh temporary directory, after the programs its manifest entry runs
    it ``after`` (each in that directory, first to last); returns (passed, text, seconds)."""
    work = tempfile.mkdtemp(prefix="upstream-")
    start = time.time()
    try:
        for before, before_opts in opts.get("before", []):
            rc, out, timed_out, unittest_file = _execute(suite, before, before_opts, python, fluid, home, site, work)
            passed, text = verdict(rc, out, timed_out, unittest_file)
            if not passed:
                return False, f"{before}, run first, failed: {text}"[:300], time.time() - start
        rc, out, timed_out, unittest_file = _execute(suite, rel, opts, python, fluid, home, site, work)
        passed, text = verdict(rc, out, timed_out, unittest_file)
        return passed, text[:300], time.time() - start
    finally:
        shutil.rmtree(work, ignore_errors=True)


def with_prerequisites(manifest, rel, opts):
    """``opts`` with ``before``: [(rel, opts)] of the chain of ``after`` programs, the first to run first."""
    chain, step = [], opts
    while step.get("after"):
        after = step["after"]
        if after not in manifest or after == rel or after in [r for r, _ in chain]:
            raise SystemExit(f"suite.json: {rel}: 'after' names {after!r}, not another program of the manifest")
        step = manifest[after]
        chain.insert(0, (after, step))
    return {**opts, "before": chain} if chain else opts


def make_home(where):
    """A HOME whose Paddle cache holds the generated offline datasets."""
    home = os.path.join(where, "home")
    subprocess.run(
        [
            sys.executable,
            os.path.join(ROOT, "tools", "make_offline_datasets.py"),
            os.path.join(home, ".cache", "paddle", "dataset"),
        ],
        check=True,
    )
    return home


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", metavar="DIR", help="directory of programs (and its suite.json)")
    parser.add_argument("--fluid", metavar="PYTHON", help="also run each program under this Python's Fluid")
    parser.add_argument("--timeout", type=float, help="seconds per program (overrides the manifest)")
    parser.add_argument("--jobs", type=int, default=1, help="programs run at once")
    parser.add_argument("--report", metavar="FILE", help="write the outcomes as JSON to FILE")
    parser.add_argument("--home", help="a HOME already holding .cache/paddle/dataset (else one is made)")
    parser.add_argument("--only", help="run only programs whose path contains one of these (comma-separated)")
    parser.add_argument("--fluid-only", action="store_true", help="with --fluid: run the programs under Fluid alone")
    parser.add_argument("--deps", metavar="DIR", help="the programs' own third-party packages, for pe's Python")
    parser.add_argument("--fluid-deps", metavar="DIR", help="the same, for the Fluid Python's")
    return parser.parse_args(argv)


def check_inputs(args, programs):
    """One line and exit for a --deps folder that is not there or a manifest 'data' name that is unknown."""
    for deps in (args.deps, args.fluid_deps):
        if deps and not os.path.isdir(deps):
            raise SystemExit(f"run_upstream: {deps}: no such folder of the programs' packages (--deps, --fluid-deps)")
    for rel, opts in programs.items():
        if opts.get("data") and opts["data"] not in offline_program_data.DATA:
            raise SystemExit(
                f"suite.json: {rel}: 'data': no offline dataset {opts['data']!r} "
                f"(there are: {', '.join(offline_program_data.DATA)})"
            )


def main(argv=None):
    args = parse_args(argv)
    suite = os.path.abspath(args.suite)
    only = args.only.split(",") if args.only else None
    manifest = load_manifest(suite)
    programs = {
        r: with_prerequisites(manifest, r, o) for r, o in manifest.items() if not only or any(o_ in r for o_ in only)
    }
    check_inputs(args, programs)
    scratch = tempfile.mkdtemp(prefix="upstream-run-")
    site = os.path.join(scratch, "site")
    os.makedirs(site)
    with open(os.path.join(site, "sitecustomize.py"), "w") as f:
        f.write(SITECUSTOMIZE_TEXT)
    home = os.path.abspath(args.home) if args.home else make_home(scratch)
    runners = [] if args.fluid_only and args.fluid else [("pe", sys.executable, False, args.deps)]
    runners += [("fluid", args.fluid, True, args.fluid_deps)] if args.fluid else []
    results = {rel: {} for rel in programs}
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {}
        for rel, opts in programs.items():
            if args.timeout:
                opts = {**opts, "timeout": args.timeout}
            for name, python, fluid, deps in runners:
                path = [site] + ([os.path.abspath(deps)] if deps else [])
                futures[pool.submit(run_one, suite, rel, opts, python, fluid, home, path)] = (rel, name)
        for future in concurrent.futures.as_completed(futures):
            rel, name = futures[future]
            passed, text, secs = future.result()
            results[rel][name] = {"passed": passed, "outcome": text, "seconds": round(secs, 1)}
            if len(results[rel]) == len(runners):
                print(line_for(rel, results[rel], runners), flush=True)
    for name, *_ in runners:
        n = sum(r[name]["passed"] for r in results.values())
        print(f"{name}: {n} of {len(results)} pass")
    if args.report:
        sources = {rel: opts.get("source") for rel, opts in programs.items()}
        with open(args.report, "w") as f:
            json.dump({rel: {**results[rel], "source": sources[rel]} for rel in sorted(results)}, f, indent=1)
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


def line_for(rel, result, runners):
    parts = [f"{name}: {result[name]['outcome']}" for name, *_ in runners]
    return f"{rel}  |  " + "  |  ".join(parts)


if __name__ == "__main__":
    sys.exit(main())
