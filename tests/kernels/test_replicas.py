"""The numpy replicas a first run uses while the numba loops compile (kernels/cpu/_replicas.py) give
the loops' very bits: same arguments, outputs compared with ``array_equal`` after a view as
integers (so -0.0, NaN payloads and infinities count), over the geometries of the loop tests."""

import numpy as np
import pytest

from pe_cli.base.activations import ROWS
from pe_cli.shapes.conv_plans import ConvGeometry
from pe_cli.kernels.cpu.runtime import cblas, loops as _numba
from pe_cli.kernels.cpu import _conv, _conv_replicas, _replicas
from pe_cli.ops import registry

from .test_cpu_loops import CONV_GEOMETRIES

rng = np.random.default_rng(11)
DTYPES = [np.float32, np.float64]
INT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    monkeypatch.setattr(_numba, "EAGER", True)


def bits(a):
    return np.ascontiguousarray(a).view(INT[a.dtype])


def same_bits(loop, replica, args, outputs, any_nan=False):
    """Runs ``loop`` and ``replica`` on copies of ``args``; the output positions must agree bitwise
    (with ``any_nan``, every NaN counts as the same NaN: see _conv_replicas.winograd_forward)."""
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    loop(*mine)
    replica(*theirs)
    for i in outputs:
        got, want = theirs[i], mine[i]
        if any_nan:
            got, want = np.where(np.isnan(got), np.nan, got), np.where(np.isnan(want), np.nan, want)
        np.testing.assert_array_equal(bits(got), bits(want), err_msg=f"argument {i}")


def awkward(shape, dtype):
    """Normal values with ties, -0.0, +-inf and a NaN among them."""
    x = rng.normal(size=shape).astype(dtype)
    flat = x.reshape(-1)
    if flat.size >= 8:
        flat[::7] = np.round(flat[::7])
        flat[1] = -0.0
        flat[3] = np.inf
        flat[5] = -np.inf
        flat[6] = np.nan
    return x


def pointwise_loops():
    return _numba.lazy("_pointwise_loops")()


def activation_row_loops():
    return _numba.lazy("_activation_row_loops")()


@pytest.mark.parametrize("dtype", DTYPES)
def test_relu_and_its_gradient(dtype):
    x, dout = awkward(1000, dtype), awkward(1000, dtype)
    out = np.empty_like(x)
    same_bits(activation_row_loops().relu, _replicas.relu, (x, out), [1])
    same_bits(activation_row_loops().relu_grad, _replicas.relu_grad, (x, dout, out), [2])


@pytest.mark.parametrize("dtype", DTYPES)
def test_square_compiled_from_its_row(dtype):
    """square's loop (its row's forward, x * x, compiled) and its parallel twin give numpy's product, inf where it
    overflows."""
    x = awkward(1000, dtype) * np.array(1e20, dtype)
    out = np.empty_like(x)
    same_bits(activation_row_loops().square, _replicas.square, (x, out), [1])
    activation_row_loops().square_parallel(x, out, 3)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(bits(out), bits(x * x))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "op,expression",
    [
        ("tanh", lambda out, dout: dout * (1 - out * out)),
        ("sigmoid", lambda out, dout: dout * out * (1 - out)),
        ("square", lambda x, dout: dout * x * 2),
    ],
)
def test_the_gradients_compiled_from_rows(op, expression, dtype):
    """The loops compiled from the rows' derivatives round as numpy's expressions (those of Fluid's
    kernels). A product of two NaNs (sigmoid's -NaN and a +NaN gradient) is either one: x86 returns its
    first operand's, and LLVM orders a product's operands either way; every NaN counts as one. square's
    reads X, some of whose products with dout overflow to inf (numba's float64 product by 2 rounds as
    numpy's float32 one)."""
    x, dout = awkward(1000, dtype), awkward(1000, dtype)
    out = x * np.array(1e20 if op == "square" else 1, dtype) if ROWS[op].reads == "X" else ROWS[op].forward(x)
    same_bits(
        getattr(activation_row_loops(), op + "_grad"),
        getattr(_replicas, op + "_grad"),
        (out, dout, np.empty_like(out)),
        [2],
        any_nan=True,
    )
    dx = np.empty_like(out)
    getattr(activation_row_loops(), op + "_grad_parallel")(out, dout, dx, 3)
    with np.errstate(over="ignore", invalid="ignore"):
        want = expression(out, dout)
    np.testing.assert_array_equal(np.isnan(dx), np.isnan(want))
    np.testing.assert_array_equal(bits(dx[~np.isnan(dx)]), bits(want[~np.isnan(want)]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_add_then_relu_of_same_shapes(dtype):
    x, y = awkward(1000, dtype), awkward(1000, dtype)[::-1].copy()
    args = (x, y, np.empty_like(x), np.empty_like(x))
    loops = _numba.lazy("_fused_loops")()
    same_bits(loops.add_relu, _replicas.add_relu, (*args, 1), [2, 3])
    same_bits(loops.add_relu, loops.add_relu_parallel, (*args, 3), [2, 3])  # its twin too


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("run", [(64, 6, 784), (128, 256, 1), (3, 5, 13), (2, 4, 8), (1, 3, 3), (5, 3, 700)])
def test_bias_add_and_its_gradient(run, dtype):
    x, y = awkward(run, dtype), awkward(run[1], dtype)
    same_bits(pointwise_loops().add_mid, _replicas.add_mid, (x, y, np.empty_like(x)), [2])
    if run[0] > 1:  # (the twin splits the rows p)
        same_bits(pointwise_loops().add_mid, pointwise_loops().add_mid_parallel, (x, y, np.empty_like(x)), [2])
    d = rng.normal(size=run).astype(dtype) * 10.0 ** rng.integers(-3, 4, size=run)
    d.reshape(-1)[::5] = -0.0
    args = (d, np.empty(run[1], dtype))
    same_bits(pointwise_loops().sum_outer, _replicas.sum_outer, args, [1])
    same_bits(pointwise_loops().sum_outer, pointwise_loops().sum_outer_parallel, args, [1])  # its twin too
    pointwise_loops().sum_outer(*args)
    np.testing.assert_allclose(
        args[1], d.astype(np.float64).sum(axis=(0, 2)), rtol=1e-6 if dtype == np.float32 else 1e-12, atol=1e-12
    )


def test_a_bias_gradient_of_negative_zeros_is_positive_zero_on_both():
    d = np.full((4, 3, 9), -0.0, dtype=np.float32)
    same_bits(pointwise_loops().sum_outer, _replicas.sum_outer, (d, np.empty(3, np.float32)), [1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_and_sgd(dtype, nesterov):
    p, g, v = (awkward(500, dtype) for _ in range(3))
    lr, mu = dtype(0.05), dtype(0.9)
    out = [np.empty_like(p), np.empty_like(p)]
    same_bits(pointwise_loops().momentum, _replicas.momentum, (p, g, v, lr, mu, nesterov, *out), [6, 7])
    same_bits(pointwise_loops().sgd, _replicas.sgd, (p, g, lr, out[0]), [3])
    same_bits(pointwise_loops().momentum_in_place, _replicas.momentum_in_place, (p, g, v, lr, mu, nesterov), [0, 2])
    same_bits(pointwise_loops().sgd_in_place, _replicas.sgd_in_place, (p, g, lr), [0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hw", [(8, 8), (7, 9), (28, 28)])
def test_max_pool_2x2_and_its_gradient(hw, dtype):
    x = rng.integers(-3, 4, size=(3, 4) + hw).astype(dtype)  # ties: the first maximum wins
    x[0, 0, 0, 0], x[1, 1, 2, 3], x[2, 0, 1, 1] = np.nan, -0.0, np.inf
    ho, wo = hw[0] // 2, hw[1] // 2
    loops = _numba.lazy("_pool_loops")()
    out = np.empty((3, 4, ho, wo), dtype)
    same_bits(loops.max_pool_2x2, _replicas.max_pool_2x2, (x, ho, wo, out), [3])
    loops.max_pool_2x2(x, ho, wo, out)
    dout = awkward(out.shape, dtype)
    same_bits(loops.max_pool_2x2_grad, _replicas.max_pool_2x2_grad, (x, out, dout, np.empty_like(x)), [3])


def conv_case(geo, dtype):
    """(Input, Filter, ConvGeometry) of one geometry of the loop tests, normal values."""
    n, c, h, w, m, kh, kw, groups, strides, paddings, dilations, algorithm = geo
    attrs = registry.get("conv2d").default_attrs()
    attrs.update(strides=strides, paddings=paddings, dilations=dilations, groups=groups, padding_algorithm=algorithm)
    x = rng.normal(size=(n, c, h, w)).astype(dtype)
    f = rng.normal(size=(m, c // groups, kh, kw)).astype(dtype)
    return x, f, ConvGeometry(x.shape, f.shape, attrs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "geo",
    CONV_GEOMETRIES
    + [
        (64, 1, 28, 28, 6, 5, 5, 1, [1, 1], [2, 2], [1, 1], "EXPLICIT"),
        (64, 6, 14, 14, 16, 5, 5, 1, [1, 1], [0, 0], [1, 1], "EXPLICIT"),
    ],
    ids=lambda g: "x".join(map(str, g[:8])),
)
def test_conv2d_forward_and_gradients(geo, dtype):
    x, f, g = conv_case(geo, dtype)
    n, m = x.shape[0], f.shape[0]
    gemm, loops, buf = cblas.gemm(x.dtype), _numba.lazy("_conv_loops")(), _conv.buffers(1, g, x)
    if gemm is None:
        pytest.skip("numpy's BLAS exposes no CBLAS GEMM here: the conv loops are not used")
    out = np.empty((n, m, g.ho, g.wo), dtype)
    same_bits(loops.conv_forward, _conv_replicas.conv_forward, (gemm, x, f, *g.loop_args(), out, buf), [-2])
    dout = rng.normal(size=out.shape).astype(dtype)
    parts = np.zeros((min(_conv.FILTER_RUNS, n), m, f[0].size), dtype)
    same_bits(
        loops.conv_grad_filter, _conv_replicas.conv_grad_filter, (gemm, x, dout, *g.loop_args(), parts, buf), [-2]
    )
    dx = np.empty(x.shape, dtype)
    same_bits(loops.conv_grad_input, _conv_replicas.conv_grad_input, (gemm, dout, f, *g.loop_args(), dx, buf), [-2])


WIDE_GEOMETRIES = [g for g in CONV_GEOMETRIES if g[8] == [1, 1] and g[10] == [1, 1] and (g[5], g[6]) != (1, 1)] + [
    (64, 1, 28, 28, 6, 5, 5, 1, [1, 1], [2, 2], [1, 1], "EXPLICIT"),  # LeNet-5's two
    (64, 6, 14, 14, 16, 5, 5, 1, [1, 1], [0, 0], [1, 1], "EXPLICIT"),
    (3, 4, 5, 6, 6, 3, 2, 2, [1, 1], [2, 0, 1, 1], [1, 1], "EXPLICIT"),  # groups, uneven paddings
    (2, 2, 3, 3, 3, 3, 3, 1, [1, 1], [0, 0], [1, 1], "EXPLICIT"),  # one output element
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("geo", WIDE_GEOMETRIES, ids=lambda g: "x".join(map(str, g[:8])))
def test_conv2d_wide_columns_forward_and_gradients(geo, dtype):
    """The wide-columns loops (each column row one run of the padded plane; _wide_loops.py) and
    their replicas, and the numbers of the im2col loops they replace (within rounding: the
    gradients' GEMMs run over the extra, zero, columns)."""
    x, f, g = conv_case(geo, dtype)
    n, m = x.shape[0], f.shape[0]
    gemm, wide = cblas.gemm(x.dtype), _numba.lazy("_wide_loops")()
    if gemm is None:
        pytest.skip("numpy's BLAS exposes no CBLAS GEMM here: the conv loops are not used")
    loops, tol = _numba.lazy("_conv_loops")(), 1e-5 if dtype == np.float32 else 1e-12

    def close(got, want):  # sums of up to Ho*Wo*C*kh*kw products: rounding scaled to the largest
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())

    out = np.empty((n, m, g.ho, g.wo), dtype)
    same_bits(
        wide.forward,
        _conv_replicas.wide_forward,
        (gemm, x, f, *_conv.wide_args(g), out, _conv.wide_buffers(1, g, x, m)),
        [-2],
    )
    wide.forward(gemm, x, f, *_conv.wide_args(g), out, _conv.wide_buffers(1, g, x, m))
    im2col_out = np.empty_like(out)
    loops.conv_forward(gemm, x, f, *g.loop_args(), im2col_out, _conv.buffers(1, g, x))
    close(out, im2col_out)

    dout = rng.normal(size=out.shape).astype(dtype)
    runs = min(_conv.FILTER_RUNS, n)
    parts, buf = np.zeros((runs, m, f[0].size), dtype), _conv.wide_buffers(1, g, x, m, zero_output=True)
    same_bits(wide.grad_filter, _conv_replicas.wide_grad_filter, (gemm, x, dout, *_conv.wide_args(g), parts, buf), [-2])
    wide.grad_filter(gemm, x, dout, *_conv.wide_args(g), parts, buf)
    im2col_parts = np.zeros_like(parts)
    loops.conv_grad_filter(gemm, x, dout, *g.loop_args(), im2col_parts, _conv.buffers(1, g, x))
    close(parts, im2col_parts)

    dx, buf = np.empty(x.shape, dtype), _conv.wide_buffers(1, g, x, m, zero_output=True)
    same_bits(wide.grad_input, _conv_replicas.wide_grad_input, (gemm, dout, f, *_conv.wide_args(g), dx, buf), [-2])
    wide.grad_input(gemm, dout, f, *_conv.wide_args(g), dx, buf)
    im2col_dx = np.empty_like(dx)
    loops.conv_grad_input(gemm, dout, f, *g.loop_args(), im2col_dx, _conv.buffers(1, g, x))
    close(dx, im2col_dx)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "geo",
    [g for g in CONV_GEOMETRIES if g[1] >= 8] + [(8, 16, 8, 8, 16, 3, 3, 1, [1, 1], [1, 1], [1, 1], "EXPLICIT")],
    ids=lambda g: "x".join(map(str, g[:8])),
)
def test_conv2d_winograd_forward_and_filter_gradient(geo, dtype, monkeypatch):
    """The Winograd loops (the input gradient is their forward loop on Output@GRAD), over awkward
    values: the same bits, infinities and -0.0 included; NaN where the loops make NaN (which of two
    NaNs an add passes on is LLVM's choice of operand order, not numpy's)."""
    from pe_cli.kernels.cpu import _winograd
    from pe_cli.shapes import conv2d as conv2d_rules

    monkeypatch.setattr(conv2d_rules, "WINOGRAD_MIN_TILES", 1)
    n, c, h, w, m, kh, kw, groups, strides, paddings, dilations, algorithm = geo
    attrs = registry.get("conv2d").default_attrs()
    attrs.update(strides=strides, paddings=paddings, dilations=dilations, groups=groups, padding_algorithm=algorithm)
    x, f = awkward((n, c, h, w), dtype), rng.normal(size=(m, c, kh, kw)).astype(dtype)
    g = ConvGeometry(x.shape, f.shape, attrs)
    assert conv2d_rules.winograd_applies(g, x.shape, f.shape)
    gemm, loops = cblas.gemm(x.dtype), _numba.lazy("_winograd_loops")()
    if gemm is None:
        pytest.skip("numpy's BLAS exposes no CBLAS GEMM here: the Winograd loops are not used")
    th, w1 = _winograd.tile_rows(g.ho, g.wo)
    buf = _winograd.buffers(1, th, w1, c, m, x.dtype)
    out = np.empty((n, m, g.ho, g.wo), dtype)
    same_bits(
        loops.forward,
        _conv_replicas.winograd_forward,
        (gemm, x, _winograd.filter_tiles(f), g.pads[0], g.pads[2], th, out, *buf),
        [6],
        any_nan=True,
    )
    parts = np.zeros((min(_conv.FILTER_RUNS, n), 16, m, c), dtype)
    same_bits(
        loops.grad_filter,
        _conv_replicas.winograd_grad_filter,
        (gemm, x, awkward(out.shape, dtype), g.pads[0], g.pads[2], th, parts, *buf),
        [6],
        any_nan=True,
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("act", [0, 1, 2], ids=["none", "relu", "relu_grad"])
@pytest.mark.parametrize("split", ["rows", "cols", "inner"])
@pytest.mark.parametrize("trans", [(111, 111), (112, 111), (111, 112)], ids=["nn", "tn", "nt"])
def test_split_gemms_and_their_epilogue(trans, split, act, dtype):
    """mul's GEMM by blocks of rows, columns or k (3 blocks, uneven), with the fused epilogue: a bias
    over awkward values (ties, -0.0, infinities, NaN) and relu, or relu's gradient gated by a relu
    output with zeros and NaN."""
    gemm, loops = cblas.gemm(np.dtype(dtype)), _numba.lazy("_blas_loops")()
    if gemm is None:
        pytest.skip("numpy's BLAS exposes no CBLAS GEMM here: the split GEMM loops are not used")
    m, k, n = 13, 11, 10
    ta, tb = trans
    a = rng.normal(size=(k, m) if ta == 112 else (m, k)).astype(dtype)
    b = rng.normal(size=(n, k) if tb == 112 else (k, n)).astype(dtype)
    bias = awkward((n,), dtype) if act != 2 else np.empty(0, dtype)
    gate = np.maximum(awkward((m, n), dtype), 0) if act == 2 else np.empty((0, 0), dtype)
    c = np.empty((m, n), dtype)
    if split == "inner":
        args = (gemm, ta, tb, a, b, c, np.empty((3, m, n), dtype), bias, gate, act, 3)
        same_bits(loops.gemm_k_blocks, _replicas.gemm_k_blocks, args, [5])
    else:
        args = (gemm, ta, tb, a, b, c, bias, gate, act, 3, split == "cols")
        same_bits(loops.gemm_blocks, _replicas.gemm_blocks, args, [5])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("act", [0, 1, 2], ids=["none", "relu", "relu_grad"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("rect", [(0, 13, 0, 10), (2, 9, 3, 8)], ids=["whole", "inside"])
def test_the_epilogue_alone(rect, bias, act, dtype):
    """The epilogue on a rectangle of a result (math.matmul2d applies it to the whole result of a
    GEMM too small to split), over awkward values and a relu gate with zeros and NaN: only that
    rectangle changes."""
    m, n = 13, 10
    c = awkward((m, n), dtype)
    bias = awkward((n,), dtype) if bias else np.empty(0, dtype)
    gate = np.maximum(awkward((m, n), dtype), 0) if act == 2 else np.empty((0, 0), dtype)
    same_bits(_numba.lazy("_blas_loops")()._epilogue, _replicas.epilogue_rect, (c, *rect, bias, gate, act), [0])


@pytest.mark.parametrize(
    "kind", range(8), ids=lambda k: ["exp", "natural", "inverse", "poly", "piece", "cos", "noam", "warm"][k]
)
def test_the_learning_rate_schedules(kind):
    """lr_rate on every schedule kind, over steps from 0 to past overflow and attributes that make no real rate
    (a negative rate to a fractional power, zero to a negative one, a division by zero, noam of d_model 0): the same float32 rate,
    and the same refusals."""
    from pe_cli.kernels.cpu.optimizer_schedules import KINDS, PARAMS, _schedule_args

    loop, refused = _numba.lazy("_schedule_loops")().lr_rate, set()
    for trial in range(40):
        attrs = {name: float(rng.choice([0.0, 0.5, 1.0, 2.5, 7.0, 1000.0])) for name in PARAMS}
        attrs.update(kind=KINDS[kind], boundaries=[3.0, 10.0], values=[0.1, 0.01, 0.001])
        attrs.update(decay_steps=float(rng.choice([1.0, 3.0, 7.5])), step_each_epoch=3.0, epochs=10.0, warmup_steps=4.0)
        attrs["decay_rate"] = float(rng.choice([0.5, 1.7, -0.5, 0.0, -1.0]))
        attrs["power"] = float(rng.choice([1.0, 0.5, -1.0, 0.0]))
        params = _schedule_args(attrs)
        for step in (0, 1, 2, 5, 99, 12345, -3):
            for base in (0.1, 3e-4):
                args = (np.array([step], np.int64), base, np.zeros(1, np.float32), *params)
                mine, theirs = [a.copy() if isinstance(a, np.ndarray) else a for a in args], list(args)
                got = _replicas.lr_rate(*theirs)
                assert got == loop(*mine), (attrs, step)
                assert got >= 0 or mine[2].view(np.uint32)[0] == theirs[2].view(np.uint32)[0], (attrs, step)
                refused.add(got >= 0)
    assert refused == ({False, True} if kind in (0, 2, 3, 6) else {False})  # (noam: d_model 0)
