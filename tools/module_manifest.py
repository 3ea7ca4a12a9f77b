"""How much of Fluid 1.8.5's module layout pe has, read from tests/data/fluid-1.8.5-modules.json (every
module of the paddlepaddle 1.8.5 wheel that imports, with its public names: ``__all__``, else ``dir()``
without ``_`` names, read from the installed wheel).

Under ``pe fluid``'s import hook every module is imported first (a package's submodules are its
attributes once imported, as in Fluid), then each name is looked up. A name is
- present: it resolves (an object of pe, or a stand-in that says in one line, when called, why pe
  does not do it: hardware or services this machine lacks, dygraph mode);
- missing: it does not resolve (AttributeError), or resolving it raises.
FLUID_LACKS lists the names of the manifest that Fluid 1.8.5 itself does not resolve either (an
``__all__`` entry it never defines, such as conll05's ``'test, get_dict'``); they are not asked for.

    python tools/module_manifest.py       # the counts, then each module that fails or lacks names

tests/fluid/test_module_manifest.py asserts every module imports with every name.
"""

import contextlib
import importlib
import io
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "tests", "data", "fluid-1.8.5-modules.json")

# Measured on the wheel: after importing all 240 modules, these names of the manifest still do not resolve.
FLUID_LACKS = {
    "paddle.complex.tensor.math": ["matmul", "reshape", "transpose"],
    "paddle.dataset.conll05": ["test, get_dict"],
    "paddle.distributed": ["fs_wrapper"],
    "paddle.fluid": [
        "DistMultiTrainer",
        "HashName",
        "MultiTrainer",
        "PipelineTrainer",
        "RoundRobin",
        "TrainerDesc",
        "VarBase",
        "append_backward",
        "learning_rate_decay",
    ],
    "paddle.fluid.contrib.slim.distillation.distiller": ["DistillationStrategy"],
    "paddle.fluid.contrib.slim.graph.executor": ["OpWrapper", "VarWrapper"],
    "paddle.fluid.contrib.slim.nas.light_nas_strategy": ["SearchSpace"],
    "paddle.fluid.contrib.slim.prune.pruner": [
        "AutoPruneStrategy",
        "PruneStrategy",
        "SensitivePruneStrategy",
        "UniformPruneStrategy",
    ],
    "paddle.fluid.trainer_factory": ["FetchHandler"],
    "paddle.incubate": ["distributed", "vision"],
    "paddle.utils": ["dump_config"],
}


def is_dygraph(module_name):
    return ".dygraph" in module_name


def measure(manifest=MANIFEST):
    """{"modules": n, "failed": {module: error}, "missing": {module: [names]}}."""
    sys.path.insert(0, ROOT) if ROOT not in sys.path else None
    from pe_cli.fluid import runner

    runner.install()
    with open(manifest, encoding="utf-8") as f:
        modules = json.load(f)["modules"]
    loaded, failed, missing = {}, {}, {}
    for name in modules:
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                loaded[name] = importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 -- any failure to import is what this measures
            failed[name] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    for name, module in loaded.items():
        lacks = [n for n in modules[name] if n not in FLUID_LACKS.get(name, ()) and not _resolves(module, n)]
        if lacks:
            missing[name] = lacks
    return {"modules": len(modules), "failed": failed, "missing": missing}


def _resolves(module, name):
    try:
        getattr(module, name)
    except Exception:  # noqa: BLE001 -- AttributeError, or a module __getattr__ refusing the name
        return False
    return True


def main():
    result = measure()
    failed, missing = result["failed"], result["missing"]
    for kind, test in (("non-dygraph", lambda m: not is_dygraph(m)), ("dygraph", is_dygraph)):
        with open(MANIFEST, encoding="utf-8") as f:
            names = [m for m in json.load(f)["modules"] if test(m)]
        bad_import = [m for m in names if m in failed]
        lacking = [m for m in names if m in missing]
        print(
            f"{kind}: {len(names)} modules, {len(names) - len(bad_import) - len(lacking)} with every name, "
            f"{len(lacking)} lacking names, {len(bad_import)} not importing"
        )
    for name, error in failed.items():
        print(f"no import {name}: {error}")
    for name, lacks in missing.items():
        print(f"lacks {name} ({len(lacks)}): {' '.join(lacks)}")
    return 0 if not failed and not missing else 1


if __name__ == "__main__":
    sys.exit(main())
