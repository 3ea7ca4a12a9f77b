"""How much of Paddle 2.6.2's static-graph module layout pe has, read from
/work/shared/api/paddle-2.6.2-modules.json (tests/data/paddle-2.6.2-static-modules.json holds the module
names this tool asks for, so CI needs no shared folder): every public module of the wheel that imports,
less those a static-graph program cannot use (STATIC_LEAVES_OUT: dygraph-to-static, PIR, incubate, and the
dygraph-only or auto-parallel parts of paddle.distributed, as the manifest's README names them).

Under ``pe fluid``'s import hook each module is imported by its Paddle name; a module counts when the
import succeeds. LEFT_OUT names the modules pe does not give, each with why (docs/COMPAT.md lists them).

    python tools/paddle_module_manifest.py            # the count, then each module that fails and why
    python tools/paddle_module_manifest.py --markdown # and the LEFT_OUT list as docs/COMPAT.md shows it
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

STATIC_LEAVES_OUT = [
    "paddle.jit.dy2static",
    "paddle.jit.sot",
    "paddle.pir",
    "paddle.pir_utils",
    "paddle.decomposition",
    "paddle.incubate",
] + [
    "paddle.distributed." + p
    for p in (
        "auto_parallel",
        "fleet.meta_parallel",
        "fleet.meta_optimizers.dygraph_optimizer",
        "fleet.recompute",
        "fleet.utils",
        "fleet.layers",
        "fleet.elastic",
        "passes",
        "launch",
        "rpc",
        "communication",
        "sharding",
        "ps",
    )
]

# Static-graph modules pe does not give, by prefix (the module itself and those under it), with why
# (docs/COMPAT.md, "Paddle 2.6.2's modules"; tests/paddle/test_module_manifest.py holds every failing
# module to one of these).
LEFT_OUT = {
    "paddle.distributed.fleet": "Paddle 2.x fleet's meta-optimizers, runtimes, datasets, metrics and launcher "
    "are not built yet (pe's paddle.distributed.fleet runs one worker); pe has Fluid "
    "1.8's fleet (paddle.fluid.incubate.fleet) and pe launch",
    "paddle.distributed.auto_tuner": "the auto-tuner searches hybrid-parallel configurations pe does not run",
    "paddle.distributed.models": "mixture-of-experts layers over collective all-to-all, which pe lacks",
    "paddle.distributed.utils": "launch/NCCL/MoE helpers of Paddle's own launcher; pe launches with pe launch",
    "paddle.distributed.collective": "Paddle 2.x's collective API (new_group, all_reduce on tensors) runs eagerly",
    "paddle.distributed.parallel": "init_parallel_env / DataParallel: dygraph data parallelism",
    "paddle.distributed.parallel_helper": "dygraph data parallelism",
    "paddle.distributed.parallel_with_gloo": "Gloo CPU collectives pe does not have (pe's are MPI)",
    "paddle.distributed.spawn": "spawns dygraph data-parallel workers",
    "paddle.distributed.elastic": "elastic training on etcd",
    "paddle.distributed.backup_env": "environment backup of Paddle's launcher",
    "paddle.distributed.entry_attr": "the parameter-server entry attributes of Paddle 2.x's fleet (not built yet)",
    "paddle.distributed.io": "parameter-server persistables of Paddle 2.x's fleet (not built yet)",
    "paddle.quantization": "Paddle 2.x quantization (QAT, PTQ, observers, quanters) is not built; pe has Fluid 1.8's "
    "slim quantization (paddle.fluid.contrib.slim)",
    "paddle.nn.quant": "quantized layers of Paddle 2.x quantization (not built; see paddle.quantization)",
    "paddle.static.quantization": "Paddle 2.x's static quantization passes (not built; pe has Fluid 1.8's slim passes)",
    "paddle.audio": "audio features and datasets need stft/frame ops and audio back ends pe lacks",
    "paddle.sparse": "sparse COO/CSR tensors: pe has no sparse tensor type (the sparse_* ops are issue 85's)",
    "paddle.signal": "stft/istft: pe lacks the frame and overlap_add ops",
    "paddle.fft": "pe lacks the fft_c2c / fft_r2c / fft_c2r ops",
    "paddle.autograd.autograd": "eager jacobian/hessian objects",
    "paddle.autograd.backward_utils": "PIR backward helpers",
    "paddle.autograd.py_layer": "PyLayer runs eagerly (static programs: paddle.static.nn.static_pylayer)",
    "paddle.autograd.saved_tensors_hooks": "eager saved-tensor hooks",
    "paddle.hapi.callbacks": "paddle.Model is not built (hapi)",
    "paddle.hapi.dynamic_flops": "counts FLOPs of eager Layers",
    "paddle.hapi.static_flops": "paddle.flops is not built",
    "paddle.hapi.hub": "downloads models: pe downloads nothing",
    "paddle.hub": "downloads models: pe downloads nothing",
    "paddle.hapi.logger": "paddle.Model is not built (hapi)",
    "paddle.hapi.model_summary": "paddle.summary runs the model eagerly",
    "paddle.hapi.progressbar": "paddle.Model is not built (hapi)",
    "paddle.cuda_env": "queries of Paddle's own CUDA build; pe's CUDA path is numba (docs/CUDA.md)",
    "paddle.device.cuda": "streams, events and CUDA graphs of Paddle's runtime; pe's CUDA path is numba",
    "paddle.device.xpu": "pe has no XPU kernels",
    "paddle.framework.ir": "builds Paddle's C++ graph passes, which pe does not have",
    "paddle.geometric.message_passing.utils": "internal helpers of Paddle's send/recv functions",
    "paddle.inference.contrib": "copy_tensor between Paddle Inference tensors (pe's predictor holds numpy arrays)",
    "paddle.jit.pir_dy2static": "PIR dygraph-to-static",
    "paddle.nn.functional.flash_attention": "pe lacks the flash_attn ops",
    "paddle.nn.functional.sparse_attention": "pe lacks the sparse_attention op",
    "paddle.nn.utils": "weight_norm/spectral_norm hooks and clip_grad_*_ act on eager Layers and gradients",
    "paddle.onnx": "paddle2onnx is a separate package; pe exports ONNX itself (pe export, docs/ONNX.md)",
    "paddle.profiler": "profiles Paddle's C++ runtime; pe's profiler is paddle.fluid.profiler",
    "paddle.utils.cpp_extension": "custom C++ ops built against Paddle's headers: pe has no C++ op ABI",
    "paddle.utils.gast": "Paddle's vendored gast, for dygraph-to-static",
    "paddle.utils.dlpack": "DLPack capsules of eager tensors",
    "paddle.utils.download": "pe downloads nothing",
    "paddle.utils.deprecated": "Paddle-internal helper, not built yet",
    "paddle.utils.environments": "Paddle-internal helper, not built yet",
    "paddle.utils.flops": "paddle.flops is not built",
    "paddle.utils.inplace_utils": "eager inplace checks",
    "paddle.utils.layers_utils": "Paddle-internal helper, not built yet",
    "paddle.utils.lazy_import": "Paddle-internal helper, not built yet",
    "paddle.utils.op_version": "Paddle's op-version registry queries (issue 85 owns op versions)",
}


def left_out_why(module):
    """Why ``module`` is left out (its longest LEFT_OUT prefix), or None."""
    found = [p for p in LEFT_OUT if module == p or module.startswith(p + ".")]
    return LEFT_OUT[max(found, key=len)] if found else None


def static_modules(manifest=SHARED):
    """The module names of the 2.6.2 manifest a static-graph program can import, in the manifest's order."""
    with open(manifest, encoding="utf-8") as f:
        modules = json.load(f)["modules"]
    return [m for m in modules if not any(m == p or m.startswith(p + ".") for p in STATIC_LEAVES_OUT)]


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
        except Exception as e:  # noqa: BLE001 -- any failure to import is what this measures
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
    except Exception:  # noqa: BLE001 -- AttributeError, or a module __getattr__ refusing the name
        return False
    return True


def main(argv):
    if "--write" in argv:
        names = static_modules()
        with open(STATIC + ".tmp", "w", encoding="utf-8") as f:
            json.dump(
                {
                    "source": "paddle-2.6.2-modules.json less STATIC_LEAVES_OUT (tools/paddle_module_manifest.py)",
                    "modules": names,
                },
                f,
                indent=0,
            )
            f.write("\n")
        os.replace(STATIC + ".tmp", STATIC)
        print(f"wrote {len(names)} module names to {STATIC}")
        return 0
    result = measure()
    print(f"{len(result['imported'])} of {result['modules']} static-graph modules of Paddle 2.6.2 import under pe")
    lacking = result["lacking"]
    print(
        f"{len(result['imported']) - len(lacking)} of them with every public name of Paddle's "
        f"(lacking {sum(map(len, lacking.values()))} names in {len(lacking)} modules)"
    )
    for name, lacks in lacking.items():
        print(f"lacks {name} ({len(lacks)}): {' '.join(lacks[:12])}{' ...' if len(lacks) > 12 else ''}")
    for name, error in result["failed"].items():
        why = left_out_why(name)
        print(f"no import {name}: {error}" + (f"  [left out: {why}]" if why else "  [NOT LISTED in LEFT_OUT]"))
    if "--markdown" in argv:
        print()
        for prefix, why in LEFT_OUT.items():
            names = [
                m for m in result["failed"] if left_out_why(m) == why and (m == prefix or m.startswith(prefix + "."))
            ]
            print(f"- `{prefix}`" + (f" ({len(names)} modules)" if len(names) > 1 else "") + f": {why}.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
