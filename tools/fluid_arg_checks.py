"""Records which bad arguments Fluid 1.8.5's layers refuse, and with which exception (a TypeError of its
``check_variable_and_dtype`` / ``check_type`` calls, data_feeder.py; an AssertionError of a layer that
asserts a tensor is given), for tests/layers/test_fluid_arg_checks.py to replay on pe.

    python tools/fluid_arg_checks.py --repo PADDLE_GIT --commit 8e1712a7 --fluid FLUID_PYTHON \\
        --out tests/data/fluid_oracle/layer_type_errors.json

It reads the layer modules of ``python/paddle/fluid`` at the commit (their syntax tree only: which
argument of which public function each check names, and the dtypes it lists), makes the calls, each
with one bad argument (an int, a numpy array, None, or a Variable of a dtype the check leaves out) and
good values for the other arguments without a default, runs them on Fluid 1.8.5's Python (this file,
``--probe``), and keeps those Fluid refuses for the bad argument.
"""

import argparse
import ast
import importlib
import inspect
import json
import os
import subprocess
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKS = ("check_variable_and_dtype", "check_type")
DTYPES = ("bool", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "uint8")


def _checks(func):
    """[(checked name, check, its text)] of the check calls in ``func``'s body."""
    return [
        (c.args[0].id, c.func.id, ast.unparse(c))
        for c in ast.walk(func)
        if isinstance(c, ast.Call)
        and getattr(c.func, "id", None) in CHECKS
        and c.args
        and isinstance(c.args[0], ast.Name)
    ]


def _module_checks(source):
    """{public function: [(argument, check, text)]}: the checks of its own arguments, and of the functions
    of the module it calls (helpers such as ``_elementwise_op``; ``full`` calls ``fill_constant``), on
    names that are its arguments too (the probe on Fluid tells which of them it really checks)."""
    funcs = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
    helpers = {f.name: _checks(f) for f in funcs}
    found = {}
    for func in (f for f in funcs if not f.name.startswith("_")):
        params = {a.arg for a in func.args.args}
        called = {
            c.func.id for c in ast.walk(func) if isinstance(c, ast.Call) and getattr(c.func, "id", None) in helpers
        } - {func.name}
        checks = _checks(func) + [c for h in sorted(called) for c in helpers[h]]
        found[func.name] = [c for c in checks if c[0] in params]
    return found


def checked_arguments(repo, commit):
    """({(module, function, argument): [bad kinds]} of the checks of public functions' arguments,
    {(module, function): {tensor argument: a dtype its check takes}})."""
    listing = subprocess.run(
        ["git", "-C", repo, "ls-tree", "-r", "--name-only", commit, "python/paddle/fluid"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    plans, good = {}, {}
    for path in listing:
        if not path.endswith(".py") or "/tests/" in path:
            continue
        source = subprocess.run(["git", "-C", repo, "show", f"{commit}:{path}"], capture_output=True, text=True).stdout
        module = path[len("python/") : -len(".py")].replace("/", ".").replace(".__init__", "")
        for function, checks in _module_checks(source).items():
            for argument, check, text in checks:
                kinds = plans.setdefault((module, function, argument), [])
                listed = [d for d in DTYPES if f"'{d}'" in text]
                if check == CHECKS[0] or "Variable" in text:  # a tensor argument
                    kinds += ["int", "ndarray", "None"]
                    good.setdefault((module, function), {}).setdefault(argument, (listed or ["float32"])[0])
                bad = next((d for d in ("int8", "bool", "uint8", "int16", "float16") if d not in listed), None)
                if check == CHECKS[0] and listed and bad:
                    kinds.append(f"dtype:{bad}")
    return {k: sorted(set(v)) for k, v in plans.items() if v}, good


def bad_value(fluid, kind, name):
    import numpy as np  # noqa: PLC0415 -- the probe runs on either engine's Python

    if kind == "int":
        return 1
    if kind == "None":
        return None
    if kind == "ndarray":
        return np.ones([2, 4], "float32")
    return fluid.data(name=name + "_bad", shape=[-1, 4], dtype=kind.split(":")[1])


def call(fluid, module, function, argument, kind, good):
    """Calls ``module.function`` with ``argument`` bad and each other argument without a default good:
    a [-1, 4] Variable of the dtype ``good`` names for a tensor argument, "float32" for a dtype, else 1; the exception
    it raises (None: none)."""
    func = getattr(importlib.import_module(module), function)
    params = inspect.signature(func).parameters
    required = [
        p
        for p, v in params.items()
        if v.default is inspect.Parameter.empty and v.kind in (v.POSITIONAL_OR_KEYWORD, v.KEYWORD_ONLY)
    ]
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        kwargs = {
            p: fluid.data(name=p, shape=[-1, 4], dtype=good[p]) if p in good else "float32" if p == "dtype" else 1
            for p in required
            if p != argument
        }
        kwargs[argument] = bad_value(fluid, kind, argument)
        try:
            func(**kwargs)
        except Exception as e:  # noqa: BLE001 -- what is raised is the record
            return e
    return None


def probe(plans):
    """[[module, function, argument, kind, good, TypeError | AssertionError | ValueError | None (the class of
    the exception raised), its message]] of the calls on the engine this Python runs."""
    warnings.filterwarnings("ignore")
    import paddle.fluid as fluid  # noqa: PLC0415 -- Fluid 1.8.5 (or pe under ``pe fluid``)

    out = []
    for module, function, argument, kind, good in plans:
        try:
            error = call(fluid, module, function, argument, kind, good)
        except (ImportError, AttributeError):
            continue  # a name this engine lacks
        expected = next((e.__name__ for e in (TypeError, AssertionError, ValueError) if isinstance(error, e)), None)
        out.append([module, function, argument, kind, good, expected, str(error)])
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo")
    parser.add_argument("--commit", default="8e1712a7")
    parser.add_argument("--fluid", help="Fluid 1.8.5's Python")
    parser.add_argument("--out")
    parser.add_argument(
        "--api",
        default=os.path.join(ROOT, "tests", "data", "fluid-1.8.5-api.json"),
        help="Fluid 1.8.5's public names (only their checks are recorded)",
    )
    parser.add_argument("--probe", help="(internal) a JSON file of calls to make on this Python")
    args = parser.parse_args(argv)
    if args.probe:
        json.dump(probe(json.load(open(args.probe))), sys.stdout)
        return 0
    api = json.load(open(args.api))["modules"]
    checked, good = checked_arguments(args.repo, args.commit)
    plans = [
        [m, f, a, k, good.get((m, f), {})]
        for (m, f, a), kinds in sorted(checked.items())
        if f in api.get(m, {})
        for k in kinds
    ]
    plan_file = args.out + ".plans"
    json.dump(plans, open(plan_file, "w"))
    ran = subprocess.run(
        [args.fluid, os.path.abspath(__file__), "--probe", plan_file],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PYTHONWARNINGS="ignore"),
    )
    os.remove(plan_file)
    # refused for the bad argument: a TypeError of Fluid's check naming it or of its Operator (which refuses
    # what is no Variable); for None, also the AssertionError or ValueError of a layer that asserts it is given
    refused = [
        r[:6]
        for r in json.loads(ran.stdout)
        if (r[5] == "TypeError" and (f"'{r[2]}'" in r[6].lower() or "in operator" in r[6]))
        or (r[3] == "None" and r[5] in ("AssertionError", "ValueError"))
    ]
    record = {
        "source": f"Fluid 1.8.5 (paddlepaddle 1.8.5), the checks of python/paddle/fluid at {args.commit} "
        "(tools/fluid_arg_checks.py): each call [module, function, bad argument, bad kind "
        "(int, ndarray, None, dtype:<a dtype the check leaves out>), {other tensor argument: its "
        "dtype}, the exception class Fluid raises]",
        "calls": refused,
    }
    with open(args.out, "w") as f:
        json.dump(record, f, indent=0)
    print(f"{len(refused)} of {len(plans)} calls refused by Fluid for the bad argument", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
