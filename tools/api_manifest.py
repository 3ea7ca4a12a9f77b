"""How much of Fluid 1.8.5's public API pe has, read from tests/data/fluid-1.8.5-api.json (every
public name of Fluid 1.8.5's static-graph modules with its kind and parameter names, read from the
installed wheel).

Each name is one of:
- implemented: it resolves under ``pe fluid`` (``import paddle.fluid`` is pe) and is not a stand-in
  (an object marked ``_pe_not_yet``);
- refused: one of REFUSED (dygraph and custom C++ op libraries, which pe will not have): it
  resolves and, called, raises NotImplementedError with one line saying why;
- missing: anything else (it does not resolve, or it is a stand-in).

For an implemented callable, its parameters must begin with Fluid's, in Fluid's order, and any
further (pe-only) parameter must be keyword-only.

    python tools/api_manifest.py          # the counts, then the missing names and bad signatures per module

tests/fluid/test_api_manifest.py asserts 0 missing and no bad signature.
"""
import collections
import importlib
import inspect
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "tests", "data", "fluid-1.8.5-api.json")

REFUSED = {
    "paddle.fluid": ["ComplexVariable", "VarBase", "enable_dygraph", "disable_dygraph", "enable_imperative",
                     "disable_imperative", "load_op_library"],
    "paddle.fluid.framework": ["ComplexVariable", "load_op_library"],
}


def _signature_problem(obj, fluid_params):
    """None when ``obj`` takes Fluid's parameters first and only keyword-only ones after; else why not."""
    try:
        params = [p for p in inspect.signature(obj).parameters.values() if p.name != "self"]
    except (TypeError, ValueError):
        return "no signature"
    want = [p for p in fluid_params if p != "self"]
    have = [p.name for p in params]
    if have[:len(want)] != want:
        return f"fluid {want}, pe {have}"
    extra = [p.name for p in params[len(want):]
             if p.kind not in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD)]
    return f"pe-only parameters not keyword-only: {extra}" if extra else None


def measure(manifest=MANIFEST):
    """{"implemented": [...], "refused": [...], "missing": {module: [names]}, "signatures": [(module,
    name, problem)]} for every name of the manifest."""
    sys.path.insert(0, ROOT) if ROOT not in sys.path else None
    from pe_cli.fluid import runner
    runner.install()
    with open(manifest, encoding="utf-8") as f:
        modules = json.load(f)["modules"]
    out = {"implemented": [], "refused": [], "missing": collections.defaultdict(list), "signatures": []}
    for module_name, names in modules.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            out["missing"][module_name] += list(names)
            continue
        for name, info in names.items():
            _classify(out, module, module_name, name, info)
    return out


def _classify(out, module, module_name, name, info):
    if not hasattr(module, name):
        out["missing"][module_name].append(name)
        return
    obj = getattr(module, name)
    if name in REFUSED.get(module_name, ()):
        out["refused"].append(f"{module_name}.{name}")
        return
    if getattr(obj, "_pe_not_yet", False):
        out["missing"][module_name].append(name)
        return
    out["implemented"].append(f"{module_name}.{name}")
    if info.get("params") is not None and callable(obj):
        problem = _signature_problem(obj, info["params"])
        if problem:
            out["signatures"].append((module_name, name, problem))


def main():
    result = measure()
    missing = sum(len(v) for v in result["missing"].values())
    print(f"{len(result['implemented'])} implemented, {len(result['refused'])} refused, {missing} missing; "
          f"{len(result['signatures'])} implemented names without Fluid's parameters")
    for module_name, names in sorted(result["missing"].items(), key=lambda kv: -len(kv[1])):
        print(f"missing {module_name} ({len(names)}): {' '.join(names)}")
    for module_name, name, problem in result["signatures"]:
        print(f"params {module_name}.{name}: {problem}")
    return 0 if missing == 0 and not result["signatures"] else 1


if __name__ == "__main__":
    sys.exit(main())
