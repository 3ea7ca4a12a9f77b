"""Paddle 2.6.2 as the oracle of single tensor functions in static mode: for each case of CASES (a
function of ``paddle``, ``paddle.nn.functional`` or ``paddle.distribution`` on fixed inputs), builds a
static program, runs it, and records the outputs and the gradients of the float inputs (of
sum(out^2 / 2 + out) over the float outputs, as tools/paddle_oracle.py's layers) in
tests/data/paddle_oracle/functions.json; and the op types the program holds. tests/paddle/
test_paddle_function_oracle.py replays the same cases (this module's functions, given pe's ``paddle``)
on pe and compares; CI never needs Paddle.

    /work/paddle262/bin/python tools/paddle_function_oracle.py    # paddlepaddle==2.6.2

Nothing here imports paddle or pe at load time."""

import json
import os
import sys
import zlib

import numpy as np

OUT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "paddle_oracle", "functions.json"
)


def _rng(name):
    return np.random.RandomState(zlib.crc32(name.encode()) % (2**31))


def _off_integers(name, shape, low, high):
    """float32 values in [low, high), each at least 0.15 from an integer."""
    x = _rng(name).uniform(low, high, shape)
    return (np.floor(x) + 0.15 + (x - np.floor(x)) * 0.7).astype("float32")


def _uniform(name, shape, low, high, dtype="float32"):
    return _rng(name).uniform(low, high, shape).astype(dtype)


_EDGES = np.array([-2.0, 0.0, -np.inf, np.inf, np.nan, 2.5, 1.0, -0.5], "float32")
_BESSEL = np.array([[-31.5, -2.5, -0.4, 0.3], [1.0, 7.5, 29.0, 40.0]], "float32")
_TIES = np.array(
    [[1.0, 3.0, 2.0, 3.0, np.nan, 0.5, np.nan, 9.0], [-1.0, -1.0, 4.0, -2.0, 0.0, 4.0, -2.0, 1.0]], "float32"
)
_DISTINCT = (np.random.RandomState(3).permutation(24).reshape(2, 3, 4) / 6.0 - 2.0).astype("float32")
_PUT_X = (np.random.RandomState(5).permutation(12).reshape(3, 4) / 4.0 + 0.5).astype("float32")
_PUT_I = np.array([[0, 3], [1, 1], [2, 0]], "int64")
_PUT_V = np.array([[2.0, 3.5], [1.25, 0.75], [4.0, 2.5]], "float32")
_RE = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.5]], "float32")
_IM = np.array([[0.5, 1.0, -2.0], [2.0, -0.75, -0.5]], "float32")
_WITH_ZEROS = np.array([[1.5, -0.5, 0.0, 2.0, 0.0, 1.25], [0.0, 1.1, 0.9, -1.3, 0.7, 2.0]], "float32")


def _case(build, grad=True, tolerance=None, **inputs):
    case = {"inputs": inputs, "build": build, "grad": grad}
    if tolerance:
        case["tolerance"] = tolerance
    return case


def _poisson_moments(P, x):
    """poisson's draws differ between engines: their means over 4000 draws per rate, and the gradient
    (zero, as Paddle's poisson_grad), are compared."""
    draws = P.poisson(x)
    whole = P.cast(P.logical_and(draws >= 0, draws == P.floor(draws)), "float32")
    return [P.mean(draws, axis=1), P.min(whole, axis=1)]


# name -> {"inputs": {feed name: array}, "build": build(paddle, **vars) -> [outputs], "grad": bool}
CASES = {
    "digamma": _case(lambda P, x: [P.digamma(x)], x=_off_integers("digamma", (2, 3), -3, 4)),
    "digamma_edges": _case(lambda P, x: [P.digamma(x)], grad=False, x=_EDGES),
    "digamma_": _case(lambda P, x: [P.digamma_(x)], x=_off_integers("digamma_", (3,), 0, 3)),
    "lgamma": _case(lambda P, x: [P.lgamma(x)], x=_off_integers("lgamma", (2, 3), -3, 4)),
    "lgamma_edges": _case(lambda P, x: [P.lgamma(x)], grad=False, x=_EDGES),
    "polygamma_1": _case(lambda P, x: [P.polygamma(x, 1)], x=_off_integers("polygamma_1", (2, 3), -3, 4)),
    "polygamma_3": _case(lambda P, x: [P.polygamma(x, 3)], x=_off_integers("polygamma_3", (2, 3), -3, 4)),
    "polygamma_0": _case(lambda P, x: [P.polygamma(x, 0)], x=_off_integers("polygamma_0", (4,), 0, 4)),
    "polygamma_edges": _case(lambda P, x: [P.polygamma(x, 2)], grad=False, x=_EDGES),
    "multigammaln": _case(lambda P, x: [P.multigammaln(x, 3)], x=_uniform("multigammaln", (2, 3), 1.2, 5.0)),
    "erfinv": _case(lambda P, x: [P.erfinv(x)], x=_uniform("erfinv", (2, 3), -0.9, 0.9)),
    "erfinv_edges": _case(
        lambda P, x: [P.erfinv(x)], grad=False, x=np.array([-1.5, -1.0, 1.0, 3.0, np.nan, 0.0], "float32")
    ),
    "expm1": _case(lambda P, x: [P.expm1(x)], x=np.array([[-3.0, -1e-6, 0.0, 2e-7, 0.7, 2.0]], "float32")),
    "expm1_int": _case(lambda P, x: [P.expm1(x)], grad=False, x=np.array([-1, 0, 2], "int64")),
    "i0": _case(lambda P, x: [P.i0(x)], x=np.array([[-4.5, -0.4, 0.3, 2.0]], "float32")),
    "i0e": _case(lambda P, x: [P.i0e(x)], x=_BESSEL),
    "i1": _case(lambda P, x: [P.i1(x)], x=np.array([[-4.5, -0.4, 0.3, 2.0]], "float32")),
    "i1e": _case(lambda P, x: [P.i1e(x)], x=_BESSEL),
    "bessel_large": _case(lambda P, x: [P.i0(x), P.i1(x)], grad=False, x=_BESSEL),
    "nextafter": _case(
        lambda P, x, y: [P.nextafter(x, y)],
        grad=False,
        x=np.array([[1.0, 0.0, -1.0], [2.0, 5.0, 0.0]], "float32"),
        y=np.array([[2.0, 1.0, -2.0], [2.0, 0.0, -1.0]], "float32"),
    ),
    "cumprod": _case(lambda P, x: [P.cumprod(x, 1)], x=_uniform("cumprod", (2, 3, 4), 0.5, 1.5)),
    "cumprod_zeros": _case(lambda P, x: [P.cumprod(x, -1)], x=_WITH_ZEROS),
    "cumprod_dtype": _case(lambda P, x: [P.cumprod(x, 0, dtype="float64")], x=_WITH_ZEROS),
    "cumprod_int": _case(lambda P, x: [P.cumprod(x, 0)], grad=False, x=np.array([[3, 1], [2, 5]], "int64")),
    "cumprod_": _case(lambda P, x: [P.cumprod_(x, 1)], x=_uniform("cumprod_", (2, 3), 0.5, 1.5)),
    "cummax": _case(lambda P, x: list(P.cummax(x, -1)), x=_DISTINCT),
    "cummax_ties_nan": _case(lambda P, x: list(P.cummax(x, 1)), grad=False, x=_TIES),
    "cummax_flat": _case(lambda P, x: list(P.cummax(x)), x=_DISTINCT),
    "cummin": _case(lambda P, x: list(P.cummin(x, 1, dtype="int32")), x=_DISTINCT),
    "cummin_ties_nan": _case(lambda P, x: list(P.cummin(x, 1)), grad=False, x=_TIES),
    "cummin_int": _case(lambda P, x: list(P.cummin(x, 0)), grad=False, x=np.array([[3, 1], [2, 5]], "int64")),
    "logcumsumexp": _case(lambda P, x: [P.logcumsumexp(x, 1)], x=_uniform("logcumsumexp", (2, 3, 4), -3, 3)),
    "logcumsumexp_flat": _case(lambda P, x: [P.logcumsumexp(x)], x=_uniform("logcumsumexp_flat", (3, 4), -3, 3)),
    "logcumsumexp_dtype": _case(
        lambda P, x: [P.logcumsumexp(x, 0, dtype="float64")], x=_uniform("logcumsumexp_dtype", (3, 2), -3, 3)
    ),
    "logcumsumexp_inf": _case(
        lambda P, x: [P.logcumsumexp(x, -1)],
        grad=False,
        x=np.array([[-np.inf, -np.inf, 1.0, np.inf, 2.0], [80.0, 81.0, -5.0, 0.0, 1.0]], "float32"),
    ),
    "kthvalue": _case(lambda P, x: list(P.kthvalue(x, 2)), x=_DISTINCT),
    "kthvalue_axis_keepdim": _case(lambda P, x: list(P.kthvalue(x, 3, axis=1, keepdim=True)), x=_DISTINCT),
    "kthvalue_nan": _case(
        lambda P, x: list(P.kthvalue(x, 5, axis=1)),
        grad=False,
        x=np.array([[1.0, 3.0, 2.0, 4.0, np.nan, 0.5], [-1.0, 2.5, 4.0, -2.0, 0.0, 5.0]], "float32"),
    ),
    "kthvalue_ties_values": _case(lambda P, x: [P.kthvalue(x, 2)[0]], grad=False, x=_TIES[1:]),
    "kthvalue_1d": _case(lambda P, x: list(P.kthvalue(x, 1)), x=_DISTINCT[0, 0]),
    "mode": _case(lambda P, x: list(P.mode(x)), x=_DISTINCT),
    "mode_ties": _case(
        lambda P, x: list(P.mode(x, 1)),
        grad=False,
        x=np.array([[0, 1, 0, 1, 1, 2, 0, 2, 0], [0, 0, 2, 1, 2, 2, 0, 1, 1], [1, 1, 0, 1, 0, 0, 1, 2, 0]], "float32"),
    ),
    "mode_axis0_keepdim": _case(
        lambda P, x: list(P.mode(x, 0, keepdim=True)), grad=False, x=np.array([[1, 2], [1, 3], [2, 3]], "int64")
    ),
    "nanmedian": _case(lambda P, x: [P.nanmedian(x)], x=_DISTINCT),
    "nanmedian_nan": _case(
        lambda P, x: [P.nanmedian(x, 1), P.nanmedian(x)],
        grad=False,
        x=np.array([[1.0, 3.0, 2.0, 3.5, np.nan, 0.5], [-1.0, np.nan, 4.0, -2.0, 0.0, 4.5], [np.nan] * 6], "float32"),
    ),
    "nanmedian_axes_keepdim": _case(lambda P, x: [P.nanmedian(x, [0, 2], keepdim=True)], x=_DISTINCT),
    "nanmedian_even": _case(lambda P, x: [P.nanmedian(x, -1)], x=_DISTINCT),
    "nanmedian_int": _case(
        lambda P, x: [P.nanmedian(x, 1)], grad=False, x=np.array([[1, 2, 4, 3], [-1, -2, 0, 5], [7, 1, 3, 2]], "int64")
    ),
    "bincount": _case(lambda P, x: [P.bincount(x)], x=np.array([1, 1, 3, 0, 6], "int64")),
    "bincount_weights": _case(
        lambda P, x, w: [P.bincount(x, weights=w, minlength=6)],
        grad=False,
        x=np.array([1, 1, 3], "int32"),
        w=np.array([0.5, 1.0, 2.0], "float32"),
    ),
    "bincount_int_weights": _case(
        lambda P, x, w: [P.bincount(x, w)], x=np.array([1, 1, 3], "int64"), w=np.array([1, 2, 3], "int32")
    ),
    "take_along_axis": _case(
        lambda P, x, i: [P.take_along_axis(x, i, 1)],
        x=_uniform("take", (3, 4), -2, 2),
        i=np.array([[0, 3], [1, 1], [2, 0]], "int64"),
    ),
    "take_along_axis_broadcast": _case(
        lambda P, x, i: [P.take_along_axis(x, i, 1)], x=_uniform("take_b", (3, 4), -2, 2), i=np.array([[0, 3]], "int64")
    ),
    "take_along_axis_no_broadcast": _case(
        lambda P, x, i: [P.take_along_axis(x, i, 0, broadcast=False)],
        x=_uniform("take_nb", (3, 4), -2, 2),
        i=np.array([[0, 2], [1, 1]], "int32"),
    ),
    "index_add": _case(
        lambda P, x, i, v: [P.index_add(x, i, 1, v)],
        x=_uniform("index_add", (3, 4), -1, 1),
        i=np.array([0, 3, 0], "int64"),
        v=_uniform("index_add_v", (3, 3), -1, 1),
    ),
    "index_add_": _case(
        lambda P, x, i, v: [P.index_add_(x, i, -1, v)],
        x=_uniform("index_add_", (2, 3), -1, 1),
        i=np.array([2, 0], "int32"),
        v=_uniform("index_add_v_", (2, 2), -1, 1),
    ),
    "diagonal_scatter": _case(
        lambda P, x, y: [P.diagonal_scatter(x, y)],
        x=_uniform("dscatter", (3, 4), -1, 1),
        y=np.array([7.0, 8.0, 9.0], "float32"),
    ),
    "diagonal_scatter_offset_axes": _case(
        lambda P, x, y: [P.diagonal_scatter(x, y, -1, 1, 0)],
        x=_uniform("dscatter_o", (3, 4), -1, 1),
        y=np.array([7.0, 8.0, 9.0], "float32"),
    ),
    "diagonal_scatter_3d": _case(
        lambda P, x, y: [P.diagonal_scatter(x, y, 0, 0, 2)],
        x=np.zeros((2, 3, 2), "float32"),
        y=_uniform("dscatter_3", (3, 2), -1, 1),
    ),
    "put_along_axis_assign_True": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="assign", include_self=True)],
        x=_PUT_X,
        i=_PUT_I,
        v=_PUT_V,
    ),
    "put_along_axis_assign_False": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="assign", include_self=False)],
        x=_PUT_X,
        i=_PUT_I,
        v=_PUT_V,
    ),
    "put_along_axis_add_True": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="add", include_self=True)], x=_PUT_X, i=_PUT_I, v=_PUT_V
    ),
    "put_along_axis_add_False": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="add", include_self=False)],
        x=_PUT_X,
        i=_PUT_I,
        v=_PUT_V,
    ),
    "put_along_axis_mul_True": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="mul", include_self=True)], x=_PUT_X, i=_PUT_I, v=_PUT_V
    ),
    "put_along_axis_mul_False": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="mul", include_self=False)],
        x=_PUT_X,
        i=_PUT_I,
        v=_PUT_V,
    ),
    "put_along_axis_mean_True": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="mean", include_self=True)],
        x=_PUT_X,
        i=_PUT_I,
        v=_PUT_V,
    ),
    "put_along_axis_mean_False": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="mean", include_self=False)],
        x=_PUT_X,
        i=_PUT_I,
        v=_PUT_V,
    ),
    "put_along_axis_amin_True": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="amin", include_self=True)],
        x=_PUT_X,
        i=_PUT_I,
        v=_PUT_V,
    ),
    "put_along_axis_amin_False": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="amin", include_self=False)],
        x=_PUT_X,
        i=_PUT_I,
        v=_PUT_V,
    ),
    "put_along_axis_amax_True": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="amax", include_self=True)],
        x=_PUT_X,
        i=_PUT_I,
        v=_PUT_V,
    ),
    "put_along_axis_amax_False": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="amax", include_self=False)],
        x=_PUT_X,
        i=_PUT_I,
        v=_PUT_V,
    ),
    "put_along_axis_ties": _case(
        lambda P, x, i, v: [
            P.put_along_axis(x, i, v, 1, reduce="amin", include_self=False),
            P.put_along_axis(x, i, v, 1, reduce="amax"),
        ],
        x=np.array([[5.0, 1.0, 2.0]], "float32"),
        i=np.array([[0, 0, 1]], "int64"),
        v=np.array([[5.0, 5.0, 1.0]], "float32"),
    ),
    "put_along_axis_broadcast": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1)],
        x=_PUT_X,
        i=np.array([[0, 3]], "int64"),
        v=np.array([[7.0, 8.0]], "float32"),
    ),
    "put_along_axis_mean_int": _case(
        lambda P, x, i, v: [P.put_along_axis(x, i, v, 1, reduce="mean")],
        grad=False,
        x=np.array([[1, 2, 3]], "int64"),
        i=np.array([[0, 0]], "int64"),
        v=np.array([[5, 7]], "int64"),
    ),
    "poisson": _case(
        _poisson_moments,
        x=np.repeat(np.array([[0.0], [0.5], [4.0], [30.0]], "float32"), 4000, axis=1),
        grad=False,
        tolerance=(0.06, 0.05),
    ),
    "poisson_gradient": _case(
        lambda P, x: _poisson_moments(P, x)[:1], x=np.full((2, 300), 3.0, "float32"), tolerance=(0.1, 0.1)
    ),
    "complex": _case(lambda P, x, y: [P.complex(x, y), P.as_real(P.complex(x, y))], x=_RE, y=_IM),
    "complex_broadcast": _case(lambda P, x, y: [P.as_real(P.complex(x, y))], x=_RE, y=_IM[:1]),
    "complex_float64": _case(
        lambda P, x, y: [P.complex(x, y)], grad=False, x=_RE.astype("float64"), y=_IM.astype("float64")
    ),
    "real_imag": _case(lambda P, x, y: [P.real(P.complex(x, y)), P.imag(P.complex(x, y))], x=_RE, y=_IM),
    "angle": _case(lambda P, x, y: [P.angle(P.complex(x, y))], x=_RE, y=_IM),
    "angle_real": _case(lambda P, x: [P.angle(x)], x=_RE),
    "as_complex_as_real": _case(lambda P, x: [P.as_complex(x), P.as_real(P.as_complex(x))], x=np.stack([_RE, _IM], -1)),
    "polar": _case(lambda P, a, t: [P.as_real(P.polar(a, t))], a=np.abs(_RE) + 0.5, t=_IM),
    "conj": _case(lambda P, x, y: [P.as_real(P.conj(P.complex(x, y)))], x=_RE, y=_IM),
    "cdist": _case(
        lambda P, x, y: [P.cdist(x, y)], x=_uniform("cdist_x", (3, 4), -1, 1), y=_uniform("cdist_y", (2, 4), -1, 1)
    ),
    "cdist_p1_batched": _case(
        lambda P, x, y: [P.cdist(x, y, p=1.0)],
        x=_uniform("cdist_x1", (2, 3, 4), -1, 1),
        y=_uniform("cdist_y1", (2, 2, 4), -1, 1),
    ),
    "cdist_inf": _case(
        lambda P, x, y: [P.cdist(x, y, p=float("inf"))],
        x=_uniform("cdist_xi", (3, 4), -1, 1),
        y=_uniform("cdist_yi", (2, 4), -1, 1),
    ),
    "cdist_mm": _case(
        lambda P, x, y: [P.cdist(x, y)],
        x=_uniform("cdist_xm", (27, 3), -1, 1),
        y=_uniform("cdist_ym", (4, 3), -1, 1),
        tolerance=(2e-5, 2e-5),
    ),
    # the random negatives differ between engines: the remapped labels and the positive classes are compared
    "class_center_sample": _case(
        lambda P, x: (lambda r, c: [r, P.slice(c, [0], [0], [4])])(*P.nn.functional.class_center_sample(x, 30, 8)),
        x=np.array([20, 5, 5, 13, 2, 20], "int64"),
    ),
    "class_center_sample_all_positive": _case(
        lambda P, x: list(P.nn.functional.class_center_sample(x, 30, 3)), x=np.array([20, 5, 5, 13, 2, 20], "int32")
    ),
}


def _is_float(dtype):
    return "float" in str(dtype)


def run_case(paddle, name, cases=None):
    """{"outputs": [values], "grads": {input: gradient}, "ops": [op types of the forward program]} of
    CASES[name] in a static program."""
    paddle.enable_static()
    case = (CASES if cases is None else cases)[name]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        feeds = {k: paddle.static.data(k, list(v.shape), str(v.dtype)) for k, v in case["inputs"].items()}
        for k, v in feeds.items():
            v.stop_gradient = not (case["grad"] and _is_float(case["inputs"][k].dtype))
        outs = case["build"](paddle, **feeds)
        ops = [op.type for op in main.global_block().ops]
        wrt = [k for k, v in feeds.items() if not v.stop_gradient]
        grads = []
        if wrt:
            floats = [o for o in outs if _is_float(o.dtype) and not o.stop_gradient]
            loss = paddle.add_n([paddle.sum(o * o) * 0.5 + paddle.sum(o) for o in floats])
            grads = paddle.static.gradients([loss], [feeds[k] for k in wrt])
            wrt, grads = [k for k, g in zip(wrt, grads) if g is not None], [g for g in grads if g is not None]
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        values = exe.run(main, feed=case["inputs"], fetch_list=list(outs) + list(grads))
    return {
        "outputs": [_plain(v) for v in values[: len(outs)]],
        "grads": {k: _plain(v) for k, v in zip(wrt, values[len(outs) :])},
        "ops": ops,
    }


def _plain(value):
    """dtype, shape and values (a complex value's as (real, imaginary) pairs)."""
    v = np.asarray(value)
    flat = np.stack([v.real, v.imag], -1) if v.dtype.kind == "c" else v
    return {"dtype": str(v.dtype), "shape": list(v.shape), "values": flat.astype("float64").reshape(-1).tolist()}


def main(cases=None, out=None, by=None):
    """Records ``cases`` (CASES) into ``out`` (OUT)."""
    import paddle

    cases, out = CASES if cases is None else cases, OUT if out is None else out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    data = {
        "engine": f"paddlepaddle {paddle.__version__}",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "recorded_by": by or "tools/paddle_function_oracle.py",
        "cases": {name: run_case(paddle, name, cases) for name in cases},
    }
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=None, sort_keys=True)
        f.write("\n")
    os.replace(out + ".tmp", out)
    print(f"wrote {out}: {len(cases)} cases")


if __name__ == "__main__":
    main()
