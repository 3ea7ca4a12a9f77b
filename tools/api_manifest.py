"""How much of Fluid 1.8.5's and Paddle 2.6.2's public API pe has, read from tests/data/fluid-1.8.5-api.json
and tests/data/paddle-2.6.2-api.json (every public name of the release's static-graph modules with its
kind and parameter names, read from the installed wheel).

Each name is one of:
- implemented: it resolves under ``pe fluid`` (``import paddle.fluid`` is pe) and is not a stand-in
  (an object marked ``_pe_not_yet``);
- refused: one of REFUSED / PADDLE_REFUSED (dygraph, custom C++ op libraries, hardware and dtypes pe
  does not have): it resolves and, called (a dtype: used), raises in one line saying why;
- missing: anything else (it does not resolve, or it is a stand-in).

For an implemented callable, its parameters must begin with Fluid's, in Fluid's order, and any
further (pe-only) parameter must be keyword-only.

    python tools/api_manifest.py          # the counts, then the missing names and bad signatures per module
    python tools/api_manifest.py paddle   # the same for Paddle 2.6.2, then seed 002's sections

tests/fluid/test_api_manifest.py asserts 0 missing and no bad signature for Fluid;
tests/paddle/test_api_manifest.py asserts 0 missing of Paddle 2.6.2's 850 names, each refusal's line, seed
002's paddle.nn (190 names, tests/data/paddle-2.6.2-seed002.json) and paddle.vision.transforms (38) all
implemented, and no bad signature.
"""

import collections
import importlib
import inspect
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "tests", "data", "fluid-1.8.5-api.json")
PADDLE_MANIFEST = os.path.join(ROOT, "tests", "data", "paddle-2.6.2-api.json")
PADDLE_SEED = os.path.join(ROOT, "tests", "data", "paddle-2.6.2-seed002.json")

REFUSED = {
    "paddle.fluid": [
        "VarBase",
        "enable_dygraph",
        "disable_dygraph",
        "enable_imperative",
        "disable_imperative",
        "load_op_library",
    ],
    "paddle.fluid.framework": ["load_op_library"],
}
# Paddle 2.6.2's names pe refuses, each with the line it raises after "<module>.<name>: ": dygraph (eager)
# names, and those Paddle 2.6.2's static mode refuses itself (as_strided, view, ...: "We only support ...
# in dynamic graph mode"); hardware pe has no kernels for; bfloat16, a dtype numpy and pe do not have.
STATIC_ONLY = "pe runs static graphs only"
_IPU = "pe has no IPU kernels (Graphcore IPUs are not supported)"
PADDLE_REFUSED = {
    "paddle": {
        **{
            n: STATIC_ONLY
            for n in (
                "Tensor",
                "grad",
                "DataParallel",
                "Model",
                "summary",
                "flops",
                "LazyGuard",
                "tolist",
                "as_strided",
                "cauchy_",
                "geometric_",
                "normal_",
                "unfold",
                "view",
                "view_as",
            )
        },
        "bfloat16": "pe has no bfloat16 dtype (numpy has none; pe computes in float16, float32 and float64)",
    },
    "paddle.static": {
        "xpu_places": "pe has no XPU kernels",
        "IpuCompiledProgram": _IPU,
        "IpuStrategy": _IPU,
        "ipu_shard_guard": _IPU,
        "set_ipu_shard": _IPU,
    },
    "paddle.nn.functional": {
        "sparse_attention": "Paddle 2.6.2 has its op only in CUDA >= 11.3 builds (its CPU build "
        "refuses it too); pe has no kernel for it"
    },
}


def _signature_problem(obj, fluid_params):
    """None when ``obj`` takes Fluid's parameters first and only keyword-only ones after; else why not."""
    try:
        params = [p for p in inspect.signature(obj).parameters.values() if p.name != "self"]
    except (TypeError, ValueError):
        return "no signature"
    want = [p for p in fluid_params if p != "self"]
    have = [p.name for p in params]
    if have[: len(want)] != want:
        return f"fluid {want}, pe {have}"
    extra = [
        p.name
        for p in params[len(want) :]
        if p.kind not in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD)
    ]
    return f"pe-only parameters not keyword-only: {extra}" if extra else None


def measure(manifest=MANIFEST, refused=None):
    """{"implemented": [...], "refused": [...], "missing": {module: [names]}, "signatures": [(module,
    name, problem)]} for every name of the manifest (``refused``: module -> names; REFUSED by default)."""
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
            _classify(out, module, module_name, name, info, REFUSED if refused is None else refused)
    return out


def seed_sections(result, seed=PADDLE_SEED):
    """{section: (implemented, total, [names not implemented])} for seed 002's sections: a name of the
    paddle.nn section is in paddle.nn or paddle.nn.functional (diag_embed is there, out of its __all__)."""
    with open(seed, encoding="utf-8") as f:
        sections = json.load(f)["sections"]
    done = set(result["implemented"])
    out = {}
    for section, names in sections.items():
        modules = [section, section + ".functional"] if section == "paddle.nn" else [section]
        lacking = [n for n in names if not any(f"{m}.{n}" in done or _real(m, n) for m in modules)]
        out[section] = (len(names) - len(lacking), len(names), lacking)
    return out


def _real(module_name, name):
    """Whether ``module_name.name`` resolves under ``pe fluid`` and is not a stand-in."""
    obj = getattr(importlib.import_module(module_name), name, None)
    return obj is not None and not getattr(obj, "_pe_not_yet", False)


def _classify(out, module, module_name, name, info, refused):
    if not hasattr(module, name):
        out["missing"][module_name].append(name)
        return
    obj = getattr(module, name)
    if name in refused.get(module_name, ()):
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


def main(argv=None):
    paddle = (sys.argv[1:] if argv is None else argv)[:1] == ["paddle"]
    result = measure(PADDLE_MANIFEST, PADDLE_REFUSED) if paddle else measure()
    missing = sum(len(v) for v in result["missing"].values())
    print(
        f"{len(result['implemented'])} implemented, {len(result['refused'])} refused, {missing} missing; "
        f"{len(result['signatures'])} implemented names without {'Paddle' if paddle else 'Fluid'}'s parameters"
    )
    for section, (done, total, lacking) in (seed_sections(result) if paddle else {}).items():
        print(f"seed 002 {section}: {done}/{total}" + (f" (not: {' '.join(lacking)})" if lacking else ""))
    for module_name, names in sorted(result["missing"].items(), key=lambda kv: -len(kv[1])):
        print(f"missing {module_name} ({len(names)}): {' '.join(names)}")
    for module_name, name, problem in result["signatures"]:
        print(f"params {module_name}.{name}: {problem}")
    return 0 if missing == 0 and not result["signatures"] else 1


if __name__ == "__main__":
    sys.exit(main())
