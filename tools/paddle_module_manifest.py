"""How much of Paddle 2.6.2's static-graph module layout pe has, read from
/work/shared/api/paddle-2.6.2-modules.json (tests/data/paddle-2.6.2-static-modules.json holds the module
names this tool asks for, so CI needs no shared folder): every public module of the wheel that imports,
less those a static-graph program cannot use (STATIC_LEAVES_OUT: dygraph-to-static, PIR, incubate, and the
dygraph-only or auto-parallel parts of paddle.distributed, as the manifest's README names them).

Under ``pe fluid``'s import hook each module is imported by its Paddle name; a module counts when the
import succeeds. LEFT_OUT names the modules pe does not give, each with why (docs/COMPAT.md lists them).

    python tools/paddle_module_manifest.py            # the count, then each module that fails and why
    python tools/paddle_module_manifest.py --write    # rewrites tests/data/paddle-2.6.2-static-modules.json

tests/paddle/test_module_manifest.py asserts the count and that every failing module is one of LEFT_OUT.
"""
import contextlib
import importlib
import io
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(os.path.dirname(ROOT)), "shared", "api", "paddle-2.6.2-modules.json")
STATIC = os.path.join(ROOT, "tests", "data", "paddle-2.6.2-static-modules.json")

STATIC_LEAVES_OUT = ["paddle.jit.dy2static", "paddle.jit.sot", "paddle.pir", "paddle.pir_utils",
                     "paddle.decomposition", "paddle.incubate"] + [
    "paddle.distributed." + p for p in (
        "auto_parallel", "fleet.meta_parallel", "fleet.meta_optimizers.dygraph_optimizer", "fleet.recompute",
        "fleet.utils", "fleet.layers", "fleet.elastic", "passes", "launch", "rpc", "communication", "sharding",
        "ps")]

# Static-graph modules pe does not give, with why (docs/COMPAT.md, "Paddle 2.6.2's modules").
LEFT_OUT = {}


def static_modules(manifest=SHARED):
    """The module names of the 2.6.2 manifest a static-graph program can import, in the manifest's order."""
    with open(manifest, encoding="utf-8") as f:
        modules = json.load(f)["modules"]
    return [m for m in modules
            if not any(m == p or m.startswith(p + ".") for p in STATIC_LEAVES_OUT)]


def measure():
    """{"modules": n, "imported": [...], "failed": {module: error}}."""
    sys.path.insert(0, ROOT) if ROOT not in sys.path else None
    from pe_cli.fluid import runner
    runner.install()
    with open(STATIC, encoding="utf-8") as f:
        names = json.load(f)["modules"]
    imported, failed = [], {}
    for name in names:
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                importlib.import_module(name)
            imported.append(name)
        except Exception as e:   # noqa: BLE001 -- any failure to import is what this measures
            failed[name] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return {"modules": len(names), "imported": imported, "failed": failed, "lacking": _lacking(imported)}


def _lacking(imported):
    """{module: [public names of Paddle's module that pe's does not resolve]} where SHARED is at hand
    (the manifest's names include the modules Paddle's file imports: ``np``, ``os``, ``paddle``)."""
    if not os.path.exists(SHARED):
        return {}
    with open(SHARED, encoding="utf-8") as f:
        modules = json.load(f)["modules"]
    out = {}
    for name in imported:
        module = sys.modules[name]
        lacks = [n for n in modules.get(name, ()) if not _resolves(module, n)]
        if lacks:
            out[name] = lacks
    return out


def _resolves(module, name):
    try:
        getattr(module, name)
    except Exception:   # noqa: BLE001 -- AttributeError, or a module __getattr__ refusing the name
        return False
    return True


def main(argv):
    if "--write" in argv:
        names = static_modules()
        with open(STATIC + ".tmp", "w", encoding="utf-8") as f:
            json.dump({"source": "paddle-2.6.2-modules.json less STATIC_LEAVES_OUT (tools/paddle_module_manifest.py)",
                       "modules": names}, f, indent=0)
            f.write("\n")
        os.replace(STATIC + ".tmp", STATIC)
        print(f"wrote {len(names)} module names to {STATIC}")
        return 0
    result = measure()
    print(f"{len(result['imported'])} of {result['modules']} static-graph modules of Paddle 2.6.2 import under pe")
    lacking = result["lacking"]
    print(f"{len(result['imported']) - len(lacking)} of them with every public name of Paddle's "
          f"(lacking {sum(map(len, lacking.values()))} names in {len(lacking)} modules)")
    for name, lacks in lacking.items():
        print(f"lacks {name} ({len(lacks)}): {' '.join(lacks[:12])}{' ...' if len(lacks) > 12 else ''}")
    for name, error in result["failed"].items():
        why = LEFT_OUT.get(name)
        print(f"no import {name}: {error}" + (f"  [left out: {why}]" if why else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
