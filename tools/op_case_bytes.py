"""The bytes an op family computes, to compare two trees bit for bit (a kernel rewritten, the same results).

``dump ROOT FAMILY... --out FILE``: runs every op case of tests/ops/cases_<FAMILY>.py of the tree ROOT
(set PYTHONPATH=ROOT too) through tests/op_test.py's harness, forward (run_forward) and gradient
(analytic_grads: the grad ops the registered grad maker appends), and, for the activation table, each
row's op and grad op called directly through its CPU kernel on further dtypes, shapes and contexts
(float16/32/64, ints where the row takes them, 0-D, empty, a large array; Paddle 2.x forms; in place),
for loss_classification softmax_with_cross_entropy and its grad op the same way (each form, label
dtypes, ignore_index, soft labels, another axis, empty, a label out of range), and for pooling, pool2d
and pool2d_grad through theirs on each variant's attributes (_POOLS: regular loops, 2x2 loops serial and
parallel, numpy's path, windows the loops do not take, adaptive, NHWC; Paddle 2.x's) and pool3d and pool3d_grad on _POOLS3D's; for pooling_mask, max_pool2d/3d_with_index on _MASK_POOLS'; for elementwise, the binary elementwise ops and their
gradients on _EW_SHAPES' shapes (every variant), dtypes and meanings;
writes every result's dtype, shape and bytes (an error's type and message where one is raised) to FILE
(.npz); ``--threads 2``: as on a device of two threads (the parallel loops). ``compare A B``: how many results the two files hold, how many are equal, and the first that differ.

    PYTHONPATH=/work/main python tools/op_case_bytes.py dump /work/main activation activation_math --out a.npz
    PYTHONPATH=. python tools/op_case_bytes.py dump . activation activation_math --out b.npz
    python tools/op_case_bytes.py compare a.npz b.npz
"""

import argparse
import importlib
import os
import sys

import numpy as np


def _as_array(value):
    value = value.to_dense() if hasattr(value, "to_dense") else value
    return np.asarray(value)


def _record(results, key, fn):
    try:
        outs = fn()
    except Exception as e:  # the same refusal is part of the same behaviour
        results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
        return
    for name, value in sorted(outs.items()):
        a = _as_array(value)
        data = repr(a.tolist()).encode() if a.dtype == object else a.tobytes()  # (not an object's address)
        results[f"{key}|{name}|{a.dtype.str}|{a.shape}"] = np.frombuffer(data, dtype=np.uint8)


def _op_cases(root, families, results):
    sys.path[:0] = [os.path.join(root, "tests"), root]
    op_test = importlib.import_module("op_test")
    for family in families:
        for i, case in enumerate(importlib.import_module(f"tests.ops.cases_{family}").CASES):
            key = f"case|{family}|{i}|{case.id}"
            _record(results, key + "|forward", lambda: op_test.run_forward(case))
            if case.grad:
                _record(results, key + "|grad", lambda: op_test.analytic_grads(case)[0])


def _inputs(row, rng, dtype, shape):
    x = rng.uniform(-3, 3, size=shape)
    if row.name in ("log", "sqrt", "rsqrt", "log1p", "reciprocal", "pow"):
        x = np.abs(x) + 0.25
    return x.astype(dtype)


def _table(results):
    from pe_cli.base.activations import TABLE
    from pe_cli.base.activations_paddle2_forms import PADDLE2_FORMS
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    rng = np.random.default_rng(5)
    for row in TABLE:
        fwd = registry.get(row.name)
        dtypes = ["float16", "float32", "float64"] + (["int32", "int64"] if row.dtypes is None else [])
        attrs = dict(fwd.default_attrs())
        if row.name in PADDLE2_FORMS:
            attrs[row.params[0].name] = {"leaky_relu": 2.0, "elu": -0.5, "hard_shrink": -0.2}[row.name]
        for dtype in dtypes:
            for shape in [(), (0,), (3, 5), (1 << 17) + 3]:
                x = _inputs(row, rng, dtype, shape)
                for told in ("none", "paddle2", "inplace"):
                    ctx = KernelContext(paddle2=told == "paddle2", inplace=told == "inplace")
                    key = f"table|{row.name}|{dtype}|{shape}|{told}"
                    _record(results, key, lambda: _direct(fwd, {"X": x.copy()}, attrs, ctx))
                    if row.derivative is None or (row.name + "_grad") not in registry.all_op_types():
                        continue
                    grad = registry.get(row.name + "_grad")
                    out = _as_array(_direct(fwd, {"X": x.copy()}, attrs, KernelContext())["Out"])
                    ins = {"X": x, "Out": out}
                    gins = {s.name: ins[s.name].copy() for s in grad.inputs if s.name in ins}
                    gins["Out@GRAD"] = rng.uniform(-1, 1, size=np.shape(x)).astype(dtype)
                    _record(results, key + "|grad", lambda: _direct(grad, gins, attrs, ctx))


def _softmax_ce(results):
    """softmax_with_cross_entropy and its grad op through their CPU kernels: each form (one loop, the wide
    float32 rows, float64's numpy exp between loops, numpy's), int64 and int32 labels, ignore_index, soft
    labels, another axis, empty logits, float16, a label out of range."""
    from pe_cli.ops import registry

    rng = np.random.default_rng(7)
    fwd, grad = registry.get("softmax_with_cross_entropy"), registry.get("softmax_with_cross_entropy_grad")
    for dtype in ("float16", "float32", "float64"):
        for shape, axis in [
            ((8, 10), -1),
            ((3, 4, 5), -1),
            ((3, 4, 5), 1),
            ((0, 10), -1),
            ((4, 2000), -1),
            ((10,), -1),
        ]:
            for label_kind in ("int64", "int32", "ignored", "soft", "bad"):
                logits = rng.uniform(-4, 4, size=shape).astype(dtype)
                lshape = list(shape)
                lshape[axis] = 1
                if label_kind == "soft":
                    label = rng.uniform(0, 1, size=shape).astype(dtype)
                else:
                    label = rng.integers(0, shape[axis], size=lshape).astype(
                        "int32" if label_kind == "int32" else "int64"
                    )
                    if label_kind == "ignored" and label.size:
                        label.reshape(-1)[::3] = -100
                    if label_kind == "bad" and label.size:
                        label.reshape(-1)[-1] = shape[axis] + 2
                attrs = dict(fwd.default_attrs(), axis=axis, soft_label=label_kind == "soft")
                key = f"softmax_ce|{dtype}|{shape}|{axis}|{label_kind}"
                _record(results, key, lambda: _direct(fwd, {"Logits": logits, "Label": label}, attrs, None))
                try:
                    soft = _as_array(_direct(fwd, {"Logits": logits, "Label": label}, attrs, None)["Softmax"])
                except Exception:
                    continue
                dloss = rng.uniform(-1, 1, size=lshape).astype(dtype)
                gins = {"Label": label, "Softmax": soft, "Loss@GRAD": dloss}
                _record(results, key + "|grad", lambda: _direct(grad, gins, attrs, None))


_POOLS = [  # pool2d's attributes beyond its defaults, one per variant and loop its meta rule chooses
    dict(ksize=[2, 2], strides=[2, 2]),
    dict(ksize=[2, 2], strides=[2, 2], pooling_type="avg"),
    dict(ksize=[3, 3], strides=[1, 1], paddings=[1, 1]),
    dict(ksize=[3, 3], strides=[2, 2], paddings=[1, 1], pooling_type="avg"),
    dict(ksize=[3, 3], strides=[2, 2], paddings=[1, 1], pooling_type="avg", exclusive=False),
    dict(ksize=[3, 3], strides=[2, 2], paddings=[0, 1, 1, 0], pooling_type="avg", exclusive=False, ceil_mode=True),
    dict(ksize=[3, 3], strides=[2, 2], ceil_mode=True),
    dict(global_pooling=True, pooling_type="avg"),
    dict(global_pooling=True),
    dict(adaptive=True, ksize=[3, 2], pooling_type="avg"),
    dict(adaptive=True, ksize=[3, 2]),
    dict(ksize=[2, 2], strides=[2, 2], paddings=[2, 2]),
    dict(ksize=[2, 2], strides=[1, 1], paddings=[2, 2], pooling_type="avg"),
    dict(ksize=[0, 2], strides=[1, 1]),
    dict(ksize=[2, 2], strides=[2, 2], data_format="NHWC"),
    dict(ksize=[3, 3], strides=[2, 2], paddings=[1, 1], pooling_type="avg", data_format="NHWC"),
    dict(ksize=[20, 20], strides=[1, 1]),
]


def _pooling(results):
    """pool2d and pool2d_grad through their CPU kernels: every variant of _POOLS on float16/32/64 and int32
    values of a few shapes (a large batch: the parallel 2x2 loops), Fluid's and Paddle 2.x's meanings."""
    from pe_cli.ops import registry

    rng = np.random.default_rng(9)
    fwd, grad = registry.get("pool2d"), registry.get("pool2d_grad")
    for i, extra in enumerate(_POOLS):
        attrs = dict(fwd.default_attrs(), **extra)
        for dtype in ("float16", "float32", "float64", "int32"):
            for shape in [(2, 3, 8, 8), (1, 2, 7, 9), (16, 8, 64, 64)]:
                if dtype == "float16" and shape[0] == 16:
                    continue
                x = rng.uniform(-3, 3, size=shape)
                x = (x * 10 if dtype == "int32" else x).astype(dtype)
                x = np.ascontiguousarray(x.transpose(0, 2, 3, 1)) if extra.get("data_format") == "NHWC" else x
                _pool_and_grad(results, rng, (fwd, grad), f"pool|{i}|{dtype}|{shape}", x, attrs)
    _pooling3d(results, rng)


def _pool_and_grad(results, rng, ops, key, x, attrs):
    """A pool op and its grad op on ``x``, in Fluid's meaning and in Paddle 2.x's."""
    from pe_cli.kernels.context import KernelContext

    fwd, grad = ops
    for paddle2 in (False, True):
        ctx, k = KernelContext(paddle2=paddle2), f"{key}|{paddle2}"
        _record(results, k, lambda: _direct(fwd, {"X": x}, attrs, ctx))
        try:
            out = _as_array(_direct(fwd, {"X": x}, attrs, ctx)["Out"])
        except Exception:
            continue
        gins = {"X": x, "Out": out, "Out@GRAD": rng.uniform(-1, 1, size=out.shape).astype(x.dtype)}
        _record(results, k + "|grad", lambda: _direct(grad, gins, attrs, ctx))


_POOLS3D = [
    dict(ksize=[2, 2, 2], strides=[2, 2, 2]),
    dict(ksize=[3, 2, 3], strides=[2, 1, 2], paddings=[1, 0, 1], pooling_type="avg"),
    dict(ksize=[3, 3, 3], strides=[2, 2, 2], paddings=[1, 1, 1], pooling_type="avg", exclusive=False, ceil_mode=True),
    dict(adaptive=True, ksize=[2, 3, 2], pooling_type="avg"),
    dict(adaptive=True, ksize=[2, 3, 2]),
    dict(global_pooling=True),
    dict(ksize=[2, 2, 2], strides=[2, 2, 2], data_format="NDHWC"),
    dict(ksize=[9, 9, 9], strides=[1, 1, 1]),
]


def _pooling3d(results, rng):
    """pool3d and pool3d_grad through their CPU kernels on _POOLS3D's attributes."""
    from pe_cli.ops import registry

    fwd, grad = registry.get("pool3d"), registry.get("pool3d_grad")
    for i, extra in enumerate(_POOLS3D):
        attrs = dict(fwd.default_attrs(), **extra)
        for dtype in ("float32", "float64", "int32"):
            for shape in [(2, 3, 4, 6, 5), (1, 2, 7, 3, 8)]:
                x = rng.uniform(-3, 3, size=shape)
                x = (x * 10 if dtype == "int32" else x).astype(dtype)
                _pool_and_grad(results, rng, (fwd, grad), f"pool3d|{i}|{dtype}|{shape}", x, attrs)


_MASK_POOLS = [  # max_pool2d/3d_with_index's attributes (per spatial dim): fixed windows, padded, adaptive, global, empty
    dict(ksize=[2], strides=[2]),
    dict(ksize=[3], strides=[2], paddings=[1]),
    dict(ksize=[2], adaptive=True),
    dict(global_pooling=True),
    dict(ksize=[2], strides=[1], paddings=[2]),
]


def _mask_pooling(results, rng):
    """max_pool2d_with_index and max_pool3d_with_index (and their gradients) through their CPU kernels."""
    from pe_cli.ops import registry

    for n, op in ((2, "max_pool2d_with_index"), (3, "max_pool3d_with_index")):
        fwd, grad = registry.get(op), registry.get(op + "_grad")
        for i, extra in enumerate(_MASK_POOLS):
            attrs = dict(fwd.default_attrs(), **{k: v * n if isinstance(v, list) else v for k, v in extra.items()})
            for dtype in ("float32", "float64"):
                x = rng.uniform(-3, 3, size=(2, 3) + (5, 6, 4)[:n]).astype(dtype)
                key = f"mask|{op}|{i}|{dtype}"
                _record(results, key, lambda: _direct(fwd, {"X": x}, attrs, None))
                try:
                    outs = _direct(fwd, {"X": x}, attrs, None)
                except Exception:
                    continue
                dout = rng.uniform(-1, 1, size=outs["Out"].shape).astype(dtype)
                gins = {"X": x, "Mask": outs["Mask"], "Out@GRAD": dout}
                _record(results, key + "|grad", lambda: _direct(grad, gins, attrs, None))


_EW_SHAPES = [  # (X's shape, Y's shape, axis): one per variant and form the meta rules choose
    ((3, 5), (3, 5), -1),  # same shapes
    ((4, 3, 5), (3,), 1),  # a bias along a middle dim
    ((4, 6), (6,), -1),  # a bias along the last dim
    ((6,), (6,), 0),
    ((1, 6, 2), (6,), 1),  # one row before the bias
    ((2, 3, 4), (3, 1), 1),
    ((3, 4), (2, 3, 4), -1),  # X smaller (numpy's broadcast)
    ((3,), (2, 3, 4), 1),  # X placed in Y
    ((3,), (3, 1), 0),  # X placed in Y as [3, 1]: Out@GRAD of X's aligned shape
    ((2, 3, 4), (1, 3, 1), -1),
    ((3, 4), (1,), -1),
    ((), (), -1),
    ((0, 3), (3,), -1),
    ((2, 3), (4,), -1),  # does not broadcast
    ((520, 260), (520, 260), -1),  # large: the threads' forms (same, one value a row, one row for all)
    ((520, 260), (520, 1), -1),
    ((520, 260), (260,), -1),
    ((4, 130, 260), (130,), 1),  # a large bias
    ((1, 520, 260), (520,), 1),
]


def _ew_value(rng, op, shape, dtype, divisor=False):
    x = rng.uniform(-3, 3, size=shape)
    if divisor or op == "pow":
        x = np.where(np.abs(x) < 0.5, 1.5, x) if op != "pow" else np.abs(x) + 0.25
    x = x * 10 if dtype.startswith("int") else x
    return x.astype(dtype)


def _elementwise(results):
    """The binary elementwise ops and their gradients through their CPU kernels: each variant's shapes
    (_EW_SHAPES) on float16/32/64 and int32/64 values, Fluid's and Paddle 2.x's meanings, in place, a
    transposed (not contiguous) X, X and Y of two dtypes, an int zero divisor."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    rng = np.random.default_rng(13)
    ops = ["add", "sub", "mul", "div", "max", "min", "pow", "floordiv", "mod"]
    for op in ops:
        fwd = registry.get(f"elementwise_{op}")
        grad = registry.get(f"elementwise_{op}_grad") if op not in ("floordiv", "mod") else None
        for xs, ys, axis in _EW_SHAPES:
            for dtype in ("float16", "float32", "float64", "int32", "int64"):
                x, y = _ew_value(rng, op, xs, dtype), _ew_value(rng, op, ys, dtype, divisor=True)
                attrs = dict(fwd.default_attrs(), axis=axis)
                for told in ("none", "paddle2", "inplace", "transposed", "mixed", "zero"):
                    ins = {"X": x.copy(), "Y": y.copy()}
                    if told == "transposed":
                        ins["X"] = np.ascontiguousarray(x.T).T
                    if told == "mixed":
                        ins["Y"] = y.astype("float64" if dtype == "float32" else "float32")
                    if told == "zero" and y.size:
                        ins["Y"] = y.copy()
                        ins["Y"].reshape(-1)[-1] = 0
                    ctx = KernelContext(paddle2=told == "paddle2", inplace=told == "inplace")
                    key = f"ew|{op}|{xs}|{ys}|{axis}|{dtype}|{told}"
                    _record(results, key, lambda: _direct(fwd, dict(ins), attrs, ctx))
                    if grad is None or told in ("inplace", "zero"):
                        continue
                    try:
                        out = _as_array(_direct(fwd, {"X": x, "Y": y}, attrs, KernelContext())["Out"])
                    except Exception:
                        continue
                    gins = dict(ins, Out=out, **{"Out@GRAD": rng.uniform(-1, 1, size=out.shape).astype(out.dtype)})
                    _record(results, key + "|grad", lambda: _direct(grad, gins, attrs, ctx))


def _direct(opdef, ins, attrs, ctx):
    from pe_cli.kernels.context import takes_context

    from pe_cli.kernels.context import KernelContext

    kernel, ctx = opdef.kernel("cpu"), KernelContext() if ctx is None else ctx
    return kernel(ins, dict(attrs), ctx) if takes_context(kernel) else kernel(ins, dict(attrs))


def _use_threads(n):
    """Kernels run as on a device of ``n`` threads, each parallel twin compiled on its first call (not later by
    the helper): the parallel forms' bits are compared too."""
    from pe_cli.kernels.cpu.runtime import loops, threads

    threads._share = threads._quiet_share = n
    loops.EAGER = True


def dump(root, families, out, threads=1):
    if threads > 1:
        _use_threads(threads)
    results = {}
    with np.errstate(all="ignore"):
        _op_cases(root, families, results)
        if "activation" in families:
            _table(results)
        if "loss_classification" in families:
            _softmax_ce(results)
        if "pooling" in families:
            _pooling(results)
        if "elementwise" in families:
            _elementwise(results)
        if "pooling_mask" in families:
            _mask_pooling(results, np.random.default_rng(11))
    np.savez(out, **{f"r{i}": v for i, v in enumerate(results.values())}, keys=np.array(list(results)))
    print(f"{len(results)} results written to {out}")


def compare(a, b):
    fa, fb = np.load(a), np.load(b)
    ra = dict(zip(fa["keys"], (fa[f"r{i}"] for i in range(len(fa["keys"])))))
    rb = dict(zip(fb["keys"], (fb[f"r{i}"] for i in range(len(fb["keys"])))))
    equal = [k for k in ra if k in rb and np.array_equal(ra[k], rb[k])]
    differ = [k for k in sorted(set(ra) | set(rb)) if k not in equal]
    print(f"{len(ra)} results in {a}, {len(rb)} in {b}: {len(equal)} equal, {len(differ)} differ or missing")
    for k in differ[:20]:
        print("  ", k, "only in " + (a if k in ra else b) if (k in ra) != (k in rb) else "differs")
    return not differ


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("root")
    d.add_argument("families", nargs="+")
    d.add_argument("--out", required=True)
    d.add_argument("--threads", type=int, default=1, help="kernels' threads (their parallel forms from 2)")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    args = parser.parse_args()
    if args.command == "dump":
        dump(os.path.abspath(args.root), args.families, args.out, args.threads)
    else:
        sys.exit(0 if compare(args.a, args.b) else 1)


if __name__ == "__main__":
    main()
