"""tools/op_case_bytes.py's dump of the matmul family (``matmul``): matmul, matmul_v2, matmul_grad, matmul_grad_x,
matmul_grad_y, bmm, bmm_grad, and addmm and addmm_grad (which run matmul's kernels) through their CPU kernels: float32
and float64 (each layout of X and Y: C-ordered, Fortran-ordered, a transposed view, a strided view), float16, int32,
int64, complex64 and float32 X with float64 Y; 2-D, batched, broadcast batch dims, a stack times a matrix, 1-D
operands; transpose_X / transpose_Y and trans_x / trans_y; alpha; 0-size dims; each gradient output alone and both;
on 1 thread, on 2 (the large GEMMs in blocks, stacks split over the threads) and with every float GEMM counted
large. ``record(results, key, fn)`` and ``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import numpy as np

_SHAPES = [  # (X, Y, transpose_X, transpose_Y)
    ((4, 5), (5, 3), False, False),
    ((5, 4), (5, 3), True, False),
    ((4, 5), (3, 5), False, True),
    ((5, 4), (3, 5), True, True),
    ((6, 1), (1, 7), False, False),  # an inner dimension of 1
    ((1, 6), (1, 7), True, False),
    ((1, 5), (5, 3), False, False),  # one row
    ((5, 1), (5, 3), True, False),
    ((2, 3, 4), (4, 5), False, False),  # a stack times a matrix: one GEMM of its rows
    ((2, 4, 3), (4, 5), True, False),
    ((2, 3, 4), (5, 4), False, True),
    ((3, 4, 5), (3, 5, 2), False, False),  # stacks of one batch
    ((3, 5, 4), (3, 2, 5), True, True),
    ((2, 2, 3, 4), (2, 2, 3, 4), False, True),  # the attention's q k^T
    ((2, 1, 3, 4), (3, 4, 5), False, False),  # broadcast batch dims
    ((1, 3, 4), (2, 4, 5), False, False),
    ((4, 5), (2, 5, 3), False, False),  # a matrix times a stack
    ((5,), (5, 3), False, False),  # 1-D operands
    ((5,), (2, 5, 3), False, False),
    ((2, 3, 5), (5,), False, False),
    ((5,), (5,), False, False),
    ((5,), (3, 5), False, True),
    ((0, 5), (5, 3), False, False),  # empty
    ((4, 0), (0, 3), False, False),
    ((2, 0, 4), (2, 4, 3), False, False),
    ((48, 128), (128, 200), False, False),  # large: the blocks on 2 threads
    ((200, 128), (48, 200), True, True),
    ((4, 48, 128), (128, 64), False, False),
    ((4, 64, 128), (4, 128, 64), False, False),
    ((4, 128, 64), (4, 64, 128), True, True),
]
_LAYOUTS = ("c", "fortran", "transposed", "strided")


def _laid_out(x, layout):
    """``x`` (its values) held as ``layout`` says: C-ordered, Fortran-ordered, a view of the transposed array, or a
    view taking every other element of a larger one."""
    if layout == "fortran":
        return np.asfortranarray(x)
    if layout == "transposed" and x.ndim >= 2:
        return np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)
    if layout == "strided":
        big = np.zeros(x.shape[:-1] + (2 * x.shape[-1],) if x.ndim else (), x.dtype)
        view = big[..., ::2] if x.ndim else big
        view[...] = x
        return view
    return x


def _values(rng, shape, dtype):
    x = rng.uniform(-3, 3, size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(-3, 3, size=shape)
    return (x * 3 if np.dtype(dtype).kind in "iu" else x).astype(dtype)


def _out_shape(xs, ys, tx, ty):
    xm = [1] + list(xs) if len(xs) == 1 else list(xs)
    ym = list(ys) + [1] if len(ys) == 1 else list(ys)
    if tx:
        xm[-2], xm[-1] = xm[-1], xm[-2]
    if ty:
        ym[-2], ym[-1] = ym[-1], ym[-2]
    out = list(np.broadcast_shapes(tuple(xm[:-2]), tuple(ym[:-2]))) + [xm[-2], ym[-1]]
    if len(xs) == 1:
        del out[-2]
    if len(ys) == 1:
        del out[-1]
    return tuple(out) or (1,)


def _cases(results, record, direct, rng, registry, context, key, dtypes, layouts):
    ops = {t: registry.get(t) for t in ("matmul", "matmul_v2", "matmul_grad", "matmul_grad_x", "matmul_grad_y")}
    ops.update({t: registry.get(t) for t in ("bmm", "bmm_grad", "addmm", "addmm_grad")})
    for i, (xs, ys, tx, ty) in enumerate(_SHAPES):
        big = max(np.prod(xs), np.prod(ys)) > 4096
        if big and dtypes[0] not in ("float32", "float64"):
            continue
        x0, y0 = _values(rng, xs, dtypes[0]), _values(rng, ys, dtypes[-1])
        dout = _values(rng, _out_shape(xs, ys, tx, ty), dtypes[0])
        for layout in layouts:
            x, y = _laid_out(x0, layout), _laid_out(y0, layout)
            for alpha in (1.0, 0.5) if not big else (1.0,):
                attrs = dict(ops["matmul"].default_attrs(), transpose_X=tx, transpose_Y=ty, alpha=alpha)
                k = f"{key}|{i}|{layout}|{alpha}"
                record(results, f"{k}|matmul", lambda: direct(ops["matmul"], {"X": x, "Y": y}, attrs, None))
                gins = {"X": x, "Y": y, "Out@GRAD": dout}
                for w in (None, ("X@GRAD",), ("Y@GRAD",)):
                    ctx = context(outputs=None if w is None else frozenset(w))
                    record(results, f"{k}|matmul_grad|{w}", lambda: direct(ops["matmul_grad"], gins, attrs, ctx))
                for op in ("matmul_grad_x", "matmul_grad_y"):
                    record(results, f"{k}|{op}", lambda: direct(ops[op], gins, attrs, None))
            v2 = {"trans_x": tx, "trans_y": ty}
            record(results, f"{key}|{i}|{layout}|v2", lambda: direct(ops["matmul_v2"], {"X": x, "Y": y}, v2, None))
            if len(xs) == len(ys) == 3 and not tx and not ty:
                record(results, f"{key}|{i}|{layout}|bmm", lambda: direct(ops["bmm"], {"X": x, "Y": y}, {}, None))
                gins = {"X": x, "Y": y, "Out@GRAD": dout}
                record(results, f"{key}|{i}|{layout}|bmm_grad", lambda: direct(ops["bmm_grad"], gins, {}, None))
            if len(xs) == len(ys) == 2 and not tx and not ty:
                inp = _values(rng, (1, ys[1]), dtypes[0])
                a = {"Alpha": 0.5, "Beta": 2.0}
                ins = {"Input": inp, "X": x, "Y": y}
                record(results, f"{key}|{i}|{layout}|addmm", lambda: direct(ops["addmm"], ins, a, None))
                gins = dict(ins, **{"Out@GRAD": dout})
                record(results, f"{key}|{i}|{layout}|addmm_grad", lambda: direct(ops["addmm_grad"], gins, a, None))


def matmul(results, record, direct, rng):
    """The matmul family's direct calls (above), on 1 thread, on 2 and with every float GEMM counted large."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.kernels.cpu.runtime import threads
    from pe_cli.ops import registry

    split, quiet = threads.SPLIT_GEMM_MACS, threads._quiet_share
    for setting, (parts, macs) in enumerate([(1, split), (2, split), (2, 1)]):
        threads._quiet_share, threads.SPLIT_GEMM_MACS = parts, macs
        try:
            for dtypes in ("float32", "float64", "float16", "int32", "int64", "complex64", "float32+float64"):
                layouts = _LAYOUTS if dtypes in ("float32", "float64") else ("c",)
                key = f"matmul|{setting}|{dtypes}"
                _cases(results, record, direct, rng, registry, KernelContext, key, dtypes.split("+"), layouts)
        finally:
            threads._quiet_share, threads.SPLIT_GEMM_MACS = quiet, split
