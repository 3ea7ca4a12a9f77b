"""tools/op_case_bytes.py's dumps of ``scale`` (its family ``scale``): the op through its CPU kernel on
float16/32/64, int32/64, uint8, bool and complex64 values, 0-D, empty, strided and large (the parallel loop)
arrays, bias before and after, an int or a float scale, a ScaleTensor (float and int), told nothing or to
write in place (X after the call recorded too), and a row-sparse X. ``record(results, key, fn)`` and
``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import numpy as np

_SHAPES = ((), (0,), (7,), (3, 5), (300, 700))
_DTYPES = ("float16", "float32", "float64", "int32", "int64", "uint8", "bool", "complex64")
_ATTRS = (
    {"scale": 0.37, "bias": 0.3, "bias_after_scale": True},
    {"scale": 0.37, "bias": 0.3, "bias_after_scale": False},
    {"scale": -2, "bias": 3, "bias_after_scale": True},
    {"scale": 0.5, "bias": 0.0, "bias_after_scale": True},
)


def _value(rng, shape, dtype):
    x = rng.uniform(-40, 40, size=shape)
    if dtype == "uint8":
        x = np.abs(x)
    if dtype == "complex64":
        x = x + 1j * rng.uniform(-3, 3, size=shape)
    return x.astype(dtype)


def scale_cases(results, record, direct):
    from pe_cli.base.selected_rows import SelectedRows
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    rng, op = np.random.default_rng(23), registry.get("scale")
    for shape in _SHAPES:
        for dtype in _DTYPES:
            x = _value(rng, shape, dtype)
            for i, attrs in enumerate(_ATTRS):
                for told in ("none", "inplace", "strided", "tensor", "int_tensor"):
                    ins = {"X": x.copy()}
                    if told == "strided" and x.ndim == 2:
                        ins["X"] = np.ascontiguousarray(x.T).T
                    if told in ("tensor", "int_tensor"):
                        ins["ScaleTensor"] = np.array(
                            [3.25 if told == "tensor" else 3], "float32" if told == "tensor" else "int64"
                        )
                    ctx = KernelContext(inplace=told == "inplace")
                    key = f"scale|{shape}|{dtype}|{i}|{told}"
                    record(results, key, lambda: dict(direct(op, ins, attrs, ctx), X=ins["X"]))
    values = rng.normal(size=(4, 3)).astype("float32")
    for i, attrs in enumerate(_ATTRS):
        x = SelectedRows(np.array([3, 0, 3, 5]), values, 8)
        record(results, f"scale|rows|{i}", lambda: direct(op, {"X": x}, attrs, KernelContext()))


def clip_cases(results, record, direct):
    """clip and clip_grad through their CPU kernels: the dtypes and shapes above, bounds as attributes or as
    one-value tensors Min and Max, bounds inverted, an Out@GRAD of another dtype."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    rng, fwd, grad = np.random.default_rng(29), registry.get("clip"), registry.get("clip_grad")
    for shape in _SHAPES[:4]:
        for dtype in _DTYPES[:6]:
            x = _value(rng, shape, dtype)
            dout = rng.uniform(-1, 1, size=shape).astype("float32" if dtype != "float32" else "float64")
            for lo, hi in ((-5.5, 7.25), (3, 3), (9, -9)):
                for told in ("attrs", "tensors"):
                    ins, attrs = {"X": x}, {"min": lo, "max": hi}
                    if told == "tensors":
                        ins.update(Min=np.array([lo], "float32"), Max=np.array([hi], "float32"))
                        attrs = {"min": -1.0, "max": 1.0}
                    key = f"clip|{shape}|{dtype}|{lo}|{hi}|{told}"
                    record(results, key, lambda: direct(fwd, dict(ins), attrs, KernelContext()))
                    gins = dict(ins, **{"Out@GRAD": dout})
                    record(results, key + "|grad", lambda: direct(grad, gins, attrs, KernelContext()))
