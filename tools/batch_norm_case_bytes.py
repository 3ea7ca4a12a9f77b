"""tools/op_case_bytes.py's dump of batch_norm for the normalization family: batch_norm, batch_norm_grad and
batch_norm_grad_param through their CPU kernels on X of float16/32/64 ([N, C], NCHW, NHWC, 3-D, empty, one large
enough for the parallel twins), Scale/Bias/Mean/Variance of X's dtype or float32 (mixed), or Mean and Variance
alone of another dtype (with a momentum of 1 and 0.3 too), in training, is_test, use_global_stats and is_test
with trainable_statistics; each output recorded, and whether MeanOut, VarianceOut and SavedMean are Mean,
Variance and Mean themselves. ``record(results, key, fn)`` and ``direct(opdef, ins, attrs, ctx)`` are
op_case_bytes.py's."""

import numpy as np

_SHAPES = [((6, 4), "NCHW"), ((4, 3, 2, 2), "NCHW"), ((3, 2, 2, 4), "NHWC"), ((2, 3, 5), "NCHW"), ((0, 3), "NCHW")]
_SHAPES += [((4, 16, 32, 32), "NCHW")]  # (the parallel twins from 2 threads)
_STATS_DTYPES = [("float32", "float64"), ("float32", "float16"), ("float64", "float32")]
_MODES = [{}, {"is_test": True}, {"use_global_stats": True}, {"is_test": True, "trainable_statistics": True}]


def _attrs(layout, mode):
    base = {"momentum": 0.9, "epsilon": 1e-5, "is_test": False, "use_global_stats": False}
    return {**base, "trainable_statistics": False, "data_layout": layout, **mode}


def batch_norms(results, record, direct, rng):
    from pe_cli.ops import registry

    fwd = registry.get("batch_norm")
    grads = registry.get("batch_norm_grad"), registry.get("batch_norm_grad_param")
    for (shape, layout), dtype, pdtype, sdtype in (
        [
            (s, d, p, p)
            for s in _SHAPES
            for d, p in (("float16", "float16"), ("float16", "float32"), ("float32", "float32"))
        ]
        + [(s, "float64", "float64", "float64") for s in _SHAPES]
        + [(s, "float32", "float64", "float64") for s in _SHAPES[:2]]
        # (Scale and Bias of X's dtype, Mean and Variance of another: the loops, the running statistics' update)
        + [(s, d, d, sd) for s in _SHAPES[:2] + _SHAPES[-1:] for d, sd in _STATS_DTYPES]
    ):
        c = shape[-1] if layout == "NHWC" else shape[1]
        x = rng.uniform(-3, 3, shape).astype(dtype)
        ins = {"X": x, "Scale": rng.uniform(0.5, 1.5, c).astype(pdtype), "Bias": rng.uniform(-1, 1, c).astype(pdtype)}
        ins.update(Mean=rng.uniform(-1, 1, c).astype(sdtype), Variance=rng.uniform(0.5, 2, c).astype(sdtype))
        for mode in _MODES + ([{"momentum": 1}, {"momentum": 0.3}] if sdtype != pdtype else []):
            attrs, key = _attrs(layout, mode), f"batch_norm|{shape}|{layout}|{dtype}|{pdtype}|{sorted(mode)}"
            key += "" if sdtype == pdtype else f"|{sdtype}"
            record(results, key, lambda: direct(fwd, dict(ins), attrs, None))
            try:
                outs = direct(fwd, dict(ins), attrs, None)
            except Exception:
                continue
            same = [outs["MeanOut"] is ins["Mean"], outs["VarianceOut"] is ins["Variance"]]
            same.append(outs["SavedMean"] is ins["Mean"])
            record(results, key + "|aliases", lambda: {"same": np.array(same)})
            dy = rng.uniform(-1, 1, shape).astype(dtype)
            gins = {**ins, "SavedMean": outs["SavedMean"], "SavedVariance": outs["SavedVariance"], "Y@GRAD": dy}
            for grad in grads:
                record(results, f"{key}|{grad.type}", lambda: direct(grad, dict(gins), attrs, None))
