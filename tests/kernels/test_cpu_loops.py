"""The numba fast paths of the CPU kernels against their vectorised numpy paths.

Each CPU kernel with a numba loop keeps its numpy path for dtypes the loops are not compiled for;
here ``is_float`` is patched to send float32/float64 inputs down that numpy path too, and both
answers are compared over many geometries, with ties, NaN, -0.0 and infinities where they matter.
"""

import itertools

import numpy as np
import pytest

from pe_cli.kernels.context import KernelContext
from pe_cli.base.errors import PeError
from pe_cli.shapes.conv_plans import ConvGeometry, PoolGeometry
from pe_cli.kernels.cpu import (
    activation,
    _conv,
    conv2d_paths,
    convolution,
    elementwise,
    loss_classification,
    normalization,
    optimizer,
    pooling,
)
from pe_cli.kernels.cpu.runtime import threads
from pe_cli.ops import registry
from pe_cli.shapes import conv2d as conv2d_rules
from pe_cli.shapes import loss_classification as loss_meta

rng = np.random.default_rng(5)
DTYPES = [np.float32, np.float64]


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    """The loops themselves, compiled on their first call: on a first run a kernel would run a loop's
    numpy replica while a helper process compiles it (tested in test_replicas.py)."""
    from pe_cli.kernels.cpu.runtime import loops as _numba

    monkeypatch.setattr(_numba, "EAGER", True)


def attrs_of(op, **given):
    attrs = registry.get(op).default_attrs()
    attrs.update(given)
    return attrs


def both_paths(module, kernel, ins, attrs, monkeypatch, *ctx):
    """(numba path outputs, numpy path outputs) of one kernel call (``ctx``: its KernelContext, where it takes one)."""
    fast = kernel(ins, attrs, *ctx)
    with monkeypatch.context() as m:
        m.setattr(module, "is_float", lambda *a: False)
        slow = kernel(ins, attrs, *ctx)
    return fast, slow


def assert_same(fast, slow, dtype, exact=False, scale=1.0):
    """``scale`` widens the tolerance where the op itself amplifies rounding (batch norm of one value
    per channel divides a rounding-sized x - mean by sqrt(epsilon))."""
    assert fast.keys() >= slow.keys() or slow.keys() >= fast.keys()
    for slot in slow:
        if slot not in fast:
            continue
        got, want = np.asarray(fast[slot]), np.asarray(slow[slot])
        assert got.shape == want.shape, slot
        assert got.dtype == want.dtype, (slot, got.dtype, want.dtype)
        if exact:
            np.testing.assert_array_equal(got, want, err_msg=slot)
        else:
            tol = (2e-5 if dtype == np.float32 else 1e-12) * scale
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=slot)


# -- conv2d -----------------------------------------------------------------------------------------

CONV_GEOMETRIES = [
    # (N, C, H, W, M, kh, kw, groups, strides, paddings, dilations, algorithm)
    (2, 1, 8, 8, 3, 5, 5, 1, [1, 1], [2, 2], [1, 1], "EXPLICIT"),
    (3, 4, 7, 9, 6, 3, 3, 2, [2, 1], [1, 0, 2, 1], [1, 1], "EXPLICIT"),
    (1, 3, 9, 6, 2, 2, 3, 1, [1, 2], [0, 0], [2, 1], "EXPLICIT"),
    (2, 4, 5, 5, 4, 1, 1, 1, [1, 1], [0, 0], [1, 1], "EXPLICIT"),  # pointwise: no im2col
    (2, 4, 6, 6, 4, 1, 1, 4, [2, 2], [1, 1], [1, 1], "EXPLICIT"),  # 1x1 strided, depthwise groups
    (2, 2, 7, 7, 3, 3, 3, 1, [2, 2], [0, 0], [1, 1], "SAME"),
    (1, 2, 6, 7, 2, 3, 2, 1, [1, 1], [0, 0], [1, 1], "VALID"),
    (2, 3, 4, 4, 3, 3, 3, 1, [3, 3], [2, 2], [1, 1], "EXPLICIT"),  # padding wider than the reach
    # Winograd (3x3, stride 1, >= 8 channels in and out; any size here: device_threads): odd sizes,
    # paddings 0 to 2, one row or column
    (3, 8, 7, 6, 9, 3, 3, 1, [1, 1], [0, 2, 1, 0], [1, 1], "EXPLICIT"),
    (2, 9, 5, 5, 8, 3, 3, 1, [1, 1], [2, 2], [1, 1], "EXPLICIT"),
    (2, 8, 1, 4, 8, 3, 3, 1, [1, 1], [1, 1], [1, 1], "EXPLICIT"),
    (17, 8, 4, 3, 10, 3, 3, 1, [1, 1], [0, 0], [1, 1], "SAME"),  # more samples than filter runs
]


@pytest.fixture
def device_threads(device_threads, monkeypatch):
    """conftest's 1 or 2 threads (the conv loops' serial and parallel twins), and the Winograd path from
    one output tile."""
    monkeypatch.setattr(conv2d_rules, "WINOGRAD_MIN_TILES", 1)
    return device_threads


# Each dtype of each loop is a cold numba compile of its own, the parallel twins' the slowest (a third
# of the suite's compile time went to float64's). The twins spread samples over threads the same way
# for any dtype, so the tests of paths that agree within a tolerance (conv2d, pool2d, the bias add,
# batch norm) run them in float32; every loop's arithmetic runs in both dtypes on one thread. The
# bitwise tests keep both dtypes on both.
DTYPE_THREADS = [
    pytest.param(np.float32, 1, id="serial-float32"),
    pytest.param(np.float64, 1, id="serial-float64"),
    pytest.param(np.float32, 2, id="parallel-float32"),
]


@pytest.mark.parametrize("dtype,device_threads", DTYPE_THREADS, indirect=["device_threads"])
@pytest.mark.parametrize("geo", CONV_GEOMETRIES, ids=lambda g: "x".join(map(str, g[:8])))
def test_conv2d_paths_agree(geo, dtype, device_threads, monkeypatch):
    n, c, h, w, m, kh, kw, groups, strides, paddings, dilations, algorithm = geo
    x = rng.normal(size=(n, c, h, w)).astype(dtype)
    f = rng.normal(size=(m, c // groups, kh, kw)).astype(dtype)
    attrs = attrs_of(
        "conv2d", strides=strides, paddings=paddings, dilations=dilations, groups=groups, padding_algorithm=algorithm
    )
    out = convolution.conv2d({"Input": x, "Filter": f}, attrs)["Output"]
    dout = rng.normal(size=out.shape).astype(dtype)
    ins = {"Input": x, "Filter": f, "Output@GRAD": dout}
    for kernel, kins in (
        (convolution.conv2d, {"Input": x, "Filter": f}),
        (convolution.conv2d_grad_input, ins),
        (convolution.conv2d_grad_filter, ins),
    ):
        assert_same(*both_paths(conv2d_rules, kernel, kins, attrs, monkeypatch), dtype)


def test_conv2d_takes_non_contiguous_inputs(monkeypatch):
    x = rng.normal(size=(3, 2, 6, 6)).astype(np.float32)[:, :, ::-1]
    f = rng.normal(size=(4, 2, 3, 3)).astype(np.float32)
    attrs = attrs_of("conv2d", paddings=[1, 1])
    dout = rng.normal(size=(3, 4, 6, 6)).astype(np.float32).transpose(0, 1, 3, 2)
    ins = {"Input": x, "Filter": f, "Output@GRAD": dout}
    for kernel in (convolution.conv2d, convolution.conv2d_grad_input, convolution.conv2d_grad_filter):
        assert_same(*both_paths(conv2d_rules, kernel, ins, attrs, monkeypatch), np.float32)


# -- pool2d -----------------------------------------------------------------------------------------

POOL_CASES = [
    # (H, W, ksize, strides, paddings, ceil_mode, global_pooling)
    (8, 8, [2, 2], [2, 2], [0, 0], False, False),  # the unrolled 2x2 stride-2 loops
    (7, 9, [2, 2], [2, 2], [0, 0], False, False),  # odd sizes: trailing rows/columns unpooled
    (7, 7, [2, 2], [2, 2], [0, 0], True, False),  # ceil_mode reaches outside: general loops
    (6, 6, [2, 2], [1, 1], [0, 0], False, False),  # overlapping windows
    (7, 8, [3, 3], [2, 2], [1, 1], False, False),
    (5, 6, [3, 2], [2, 3], [1, 2, 0, 1], True, False),
    (4, 5, [1, 1], [1, 1], [0, 0], False, True),
]


@pytest.mark.parametrize("dtype,device_threads", DTYPE_THREADS, indirect=["device_threads"])
@pytest.mark.parametrize("pooling_type,exclusive", [("max", True), ("avg", True), ("avg", False)])
@pytest.mark.parametrize(
    "case",
    POOL_CASES,
    ids=lambda c: (
        "x".join(map(str, c[:2]))
        + f"k{c[2][0]}{c[2][1]}s{c[3][0]}"
        + ("ceil" if c[5] else "")
        + ("global" if c[6] else "")
    ),
)
def test_pool2d_paths_agree(case, pooling_type, exclusive, dtype, device_threads):
    h, w, ksize, strides, paddings, ceil_mode, global_pooling = case
    # small integers: many ties, so the first-maximum rule of the gradient is exercised
    x = rng.integers(-3, 4, size=(2, 3, h, w)).astype(dtype)
    attrs = attrs_of(
        "pool2d",
        pooling_type=pooling_type,
        ksize=ksize,
        strides=strides,
        paddings=paddings,
        ceil_mode=ceil_mode,
        global_pooling=global_pooling,
        exclusive=exclusive,
    )
    with_nan = x.copy()
    with_nan[0, 0, 0, 0] = np.nan  # a NaN in a window makes its output NaN on both paths
    fast, slow = _loop_and_numpy("pool2d", {"X": with_nan}, attrs)
    np.testing.assert_array_equal(np.isnan(fast["Out"]), np.isnan(slow["Out"]))
    assert_same(fast, slow, dtype)
    fast, slow = _loop_and_numpy("pool2d", {"X": x}, attrs)
    assert_same(fast, slow, dtype)
    dout = rng.normal(size=slow["Out"].shape).astype(dtype)
    ins = {"X": x, "Out": slow["Out"], "Out@GRAD": dout}
    assert_same(*_loop_and_numpy("pool2d_grad", ins, attrs), dtype)


def _loop_and_numpy(op, ins, attrs):
    """(outputs of the "loop" variant pool2d's (pool2d_grad's) meta rule chooses, outputs of its "numpy"
    variant, kernels/cpu/_pool.py's path of other dtypes) of one call, its out-kernel run with each; a
    geometry neither takes (PoolGeometry.regular false: the "boxes" variant) twice that."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, KernelContext())
    geo = PoolGeometry(ins["X"].shape, attrs)
    assert meta.variant == ("loop" if geo.regular else "boxes")
    numpy = meta._replace(variant="numpy", args=(geo, attrs["pooling_type"] == "max", attrs["exclusive"]))
    answers = []
    for variant in (meta, numpy if geo.regular else meta):
        outs = {slot: np.empty(shape, dtype) for slot, (shape, dtype) in meta.outputs.items()}
        structured.cpu(ins, outs, attrs, variant)
        answers.append(outs)
    return answers


# -- pointwise --------------------------------------------------------------------------------------

SPECIALS = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -2.5, 3.0])


def _loop_and_array(op, ins, attrs=None, variants=("loop", "array")):
    """(outputs of the loop variant its meta rule chooses, outputs of its numpy variant) of a structured op (an
    activation's "loop" and "array", pe_cli/shapes/activation.py; softmax's "rows" and "numpy", shapes/softmax.py):
    its out-kernel run with each."""
    structured, attrs = registry.get(op).structured, attrs or {}
    meta = structured.meta(attrs, ins, KernelContext())
    assert meta.variant == variants[0]
    answers = []
    for variant in (meta, meta._replace(variant=variants[1])):
        outs = {slot: np.empty(shape, dtype) for slot, (shape, dtype) in meta.outputs.items()}
        structured.cpu(ins, outs, attrs, variant)
        answers.append(outs)
    return answers


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf * 0 on the numpy path
@pytest.mark.parametrize("dtype", DTYPES)
def test_relu_paths_agree_bitwise(dtype, device_threads):
    x = np.concatenate([SPECIALS, rng.normal(size=100)]).astype(dtype).reshape(6, 18)
    dout = np.concatenate([rng.normal(size=100), SPECIALS]).astype(dtype).reshape(6, 18)
    fast, slow = _loop_and_array("relu", {"X": x})
    assert_same(fast, slow, dtype, exact=True)
    np.testing.assert_array_equal(np.signbit(fast["Out"]), np.signbit(slow["Out"]))
    fast, slow = _loop_and_array("relu_grad", {"Out": fast["Out"], "Out@GRAD": dout})
    assert_same(fast, slow, dtype, exact=True)
    np.testing.assert_array_equal(np.signbit(fast["X@GRAD"]), np.signbit(slow["X@GRAD"]))


@pytest.mark.parametrize("dtype,device_threads", DTYPE_THREADS, indirect=["device_threads"])
def test_softmax_rows_agree_with_numpy_and_across_threads(dtype, device_threads, monkeypatch):
    """The softmax op's loops (_softmax_loops.py) and their parallel twins: within rounding of numpy's
    expression, and the twins give the serial loops' bits (rows of 28, an attention's keys)."""
    x = (4 * rng.normal(size=(5, 7, 28))).astype(dtype)
    x[1, 2, 3], x[2, 0, :] = np.nan, 90.0  # a NaN row; a row of ties shifted to zeros
    dout = rng.normal(size=x.shape).astype(dtype)
    attrs, variants = {"axis": -1}, ("rows", "numpy")
    fast, slow = _loop_and_array("softmax", {"X": x}, attrs, variants)
    assert_same(fast, slow, dtype)
    ins = {"Out": fast["Out"], "Out@GRAD": dout}
    grad_fast, grad_slow = _loop_and_array("softmax_grad", ins, attrs, variants)
    assert_same(grad_fast, grad_slow, dtype)
    if device_threads > 1:
        with monkeypatch.context() as m:
            m.setattr(threads, "_share", 1)
            np.testing.assert_array_equal(activation.softmax({"X": x}, attrs)["Out"], fast["Out"])
            np.testing.assert_array_equal(activation.softmax_grad(ins, attrs)["X@GRAD"], grad_fast["X@GRAD"])


@pytest.mark.parametrize(
    "op,dtype", [(op, d) for op in ("softmax", "softmax_grad") for d in DTYPES] + [("log_softmax", np.float32)]
)
def test_softmax_bits_do_not_depend_on_the_values_memory_layout(op, dtype):
    """Where the row loops run (the last axis; log_softmax's: float32), a transposed view (another op's output as
    it may hand it over) gives the bits of its contiguous copy: the meta rule decides the loop from the shape and
    dtype alone (before, a view took numpy's passes)."""
    x = rng.uniform(-4, 4, (40, 30)).astype(dtype).T
    ins = {"X": x} if op != "softmax_grad" else {"Out": x, "Out@GRAD": rng.uniform(-1, 1, (30, 40)).astype(dtype)}
    kernel, slot = registry.get(op).kernel("cpu"), "X@GRAD" if op == "softmax_grad" else "Out"
    view = kernel(ins, {"axis": -1})[slot]
    copy = kernel({k: np.ascontiguousarray(v) for k, v in ins.items()}, {"axis": -1})[slot]
    assert view.tobytes() == copy.tobytes()


@pytest.mark.parametrize("dtype,device_threads", DTYPE_THREADS, indirect=["device_threads"])
@pytest.mark.parametrize(
    "x_shape,y_shape,axis",
    [
        ((4, 6, 5, 5), (6,), 1),
        ((8, 10), (10,), -1),
        ((3, 4, 5), (4, 5), 1),
        ((3, 4, 5), (3,), 0),
        ((2, 3), (2, 3), -1),
        ((3, 4, 5), (4, 1), 1),
    ],
)
def test_elementwise_add_paths_agree(x_shape, y_shape, axis, dtype, device_threads, monkeypatch):
    """The variant elementwise_add's meta rule chooses (one add, the bias add's loop) and its gradient's (the
    bias gradient's loop) against their "numpy" variants: the sums bit for bit, the bias gradient's to rounding."""
    x = rng.normal(size=x_shape).astype(dtype)
    y = rng.normal(size=y_shape).astype(dtype)
    attrs = {"axis": axis}
    fast, slow = _chosen_and_numpy("elementwise_add", {"X": x, "Y": y}, attrs)
    assert_same(fast, slow, dtype, exact=True)
    ins = {"X": x, "Y": y, "Out": fast["Out"], "Out@GRAD": rng.normal(size=x_shape).astype(dtype)}
    fast, slow = _chosen_and_numpy("elementwise_add_grad", ins, attrs)
    assert_same(fast, slow, dtype)


def _chosen_and_numpy(op, ins, attrs):
    """(outputs of the variant the op's meta rule chooses, outputs of its "numpy" variant), each into the
    buffers kernels/structured.allocate hands it."""
    from pe_cli.kernels.structured import allocate

    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, KernelContext())
    answers = []
    for variant in (meta, meta._replace(variant="numpy")):
        outs = allocate(variant, ins)
        structured.cpu(ins, outs, attrs, variant)
        answers.append(outs)
    return answers


@pytest.mark.parametrize(
    "op",
    ["elementwise_sub", "elementwise_mul", "elementwise_div", "elementwise_max", "elementwise_min", "elementwise_pow"],
)
def test_elementwise_gradients_of_their_inputs_shape_are_writable(op):
    """Not np.broadcast_to's read-only views of an array of the same shape: numba types a read-only
    array apart, so a conv or batch-norm gradient reading one compiled each of its loops once more."""
    x, y = (rng.uniform(0.5, 1.5, (4, 6)).astype(np.float32) for _ in range(2))
    attrs = registry.get(op + "_grad").default_attrs()
    out = registry.get(op).kernel("cpu")({"X": x, "Y": y}, attrs)["Out"]
    grads = registry.get(op + "_grad").kernel("cpu")({"X": x, "Y": y, "Out": out, "Out@GRAD": np.ones_like(out)}, attrs)
    for slot in ("X@GRAD", "Y@GRAD"):
        assert grads[slot].shape == x.shape and grads[slot].flags.writeable, slot


@pytest.fixture(params=["one_loop", "wide"])
def softmax_form(request, monkeypatch):
    """softmax_with_cross_entropy's loop as one pass, or its wide forms (float32's rows, float64's numpy exp
    between two loops), as its meta rule decides them (pe_cli/shapes/loss_classification.py)."""
    monkeypatch.setattr(loss_meta, "WIDE_SOFTMAX", 1 if request.param == "wide" else 1 << 40)
    return request.param


def _variant_and_numpy(op, ins, attrs):
    """(outputs of the loop variant the op's meta rule chooses, outputs of its "numpy" variant): its
    out-kernel run with each (a structured op: no ``is_float`` steers it)."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, KernelContext())
    assert meta.variant != "numpy"
    answers = []
    for variant in (meta, meta._replace(variant="numpy")):
        outs = {slot: np.empty(shape, dtype) for slot, (shape, dtype) in meta.outputs.items()}
        structured.cpu(ins, outs, attrs, variant)
        answers.append(outs)
    return answers


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf - inf on the numpy path
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("label_dtype", [np.int64, np.int32])
def test_softmax_with_cross_entropy_paths_agree(dtype, label_dtype, softmax_form):
    logits = (rng.normal(size=(7, 10)) * 5).astype(dtype)
    logits[5, 1], logits[6, 2] = np.nan, np.inf  # rows whose softmax and loss are NaN on every path
    label = rng.integers(0, 10, size=(7, 1)).astype(label_dtype)
    label[2, 0] = 3
    label[4, 0] = -1
    attrs = attrs_of("softmax_with_cross_entropy", ignore_index=3)
    # the numpy path takes a negative label as an index from the end; the loop raises (below)
    label[4, 0] = 9
    fast, slow = _variant_and_numpy("softmax_with_cross_entropy", {"Logits": logits, "Label": label}, attrs)
    assert_same(fast, slow, dtype)
    assert fast["Loss"][2, 0] == 0
    ins = {"Label": label, "Softmax": fast["Softmax"], "Loss@GRAD": rng.normal(size=(7, 1)).astype(dtype)}
    assert_same(*_variant_and_numpy("softmax_with_cross_entropy_grad", ins, attrs), dtype)


def test_softmax_with_cross_entropy_rejects_labels_outside_the_classes(softmax_form):
    logits = rng.normal(size=(4, 5)).astype(np.float32)
    label = np.array([[0], [5], [1], [2]], dtype=np.int64)
    with pytest.raises(PeError, match="Label holds 5 at row 1, outside the 5 classes"):
        loss_classification.softmax_with_cross_entropy(
            {"Logits": logits, "Label": label}, attrs_of("softmax_with_cross_entropy")
        )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_and_sgd_paths_agree_bitwise(dtype, nesterov, device_threads):
    p, g, v = (rng.normal(size=(33, 7)).astype(dtype) for _ in range(3))
    lr = np.array([0.05], dtype=np.float32)
    ins = {"Param": p, "Grad": g, "Velocity": v, "LearningRate": lr}
    attrs = attrs_of("momentum", mu=0.9, use_nesterov=nesterov)
    assert_same(*_variant_and_numpy("momentum", ins, attrs), dtype, exact=True)
    del ins["Velocity"]
    assert_same(*_variant_and_numpy("sgd", ins, {}), dtype, exact=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_updates_in_place_write_the_bits_of_new_arrays(dtype, nesterov, device_threads):
    p, g, v = (rng.normal(size=(33, 7)).astype(dtype) for _ in range(3))
    lr = np.array([0.05], dtype=np.float32)
    attrs = attrs_of("momentum", mu=0.9, use_nesterov=nesterov)
    want = optimizer.momentum({"Param": p, "Grad": g, "Velocity": v, "LearningRate": lr}, attrs)
    want_sgd = optimizer.sgd({"Param": p, "Grad": g, "LearningRate": lr}, {})["ParamOut"]
    p_in, v_in, g_in = p.copy(), v.copy(), g.copy()
    got = optimizer.momentum(
        {"Param": p_in, "Grad": g_in, "Velocity": v_in, "LearningRate": lr}, attrs, KernelContext(update_in_place=True)
    )
    assert got["ParamOut"] is p_in and got["VelocityOut"] is v_in  # written over, as the executor allowed
    np.testing.assert_array_equal(p_in, want["ParamOut"])
    np.testing.assert_array_equal(v_in, want["VelocityOut"])
    np.testing.assert_array_equal(g_in, g)
    p_in = p.copy()
    assert (
        optimizer.sgd({"Param": p_in, "Grad": g, "LearningRate": lr}, {}, KernelContext(update_in_place=True))[
            "ParamOut"
        ]
        is p_in
    )
    np.testing.assert_array_equal(p_in, want_sgd)


def test_an_update_in_place_refuses_a_gradient_that_overlaps_its_state():
    p, v = (rng.normal(size=(5, 4)).astype(np.float32) for _ in range(2))
    lr = np.array([0.5], dtype=np.float32)
    attrs, in_place = attrs_of("momentum", mu=0.9), KernelContext(update_in_place=True)
    want = {
        k: a.copy()
        for k, a in optimizer.momentum(
            {"Param": p, "Grad": v, "Velocity": v, "LearningRate": lr}, attrs_of("momentum", mu=0.9)
        ).items()
    }
    p_in, v_in = p.copy(), v.copy()
    got = optimizer.momentum({"Param": p_in, "Grad": v_in, "Velocity": v_in, "LearningRate": lr}, attrs, in_place)
    assert got["VelocityOut"] is not v_in  # new arrays: the gradient is the state
    np.testing.assert_array_equal(got["ParamOut"], want["ParamOut"])
    np.testing.assert_array_equal(got["VelocityOut"], want["VelocityOut"])
    np.testing.assert_array_equal(v_in, v)
    p_in, v_in = p.copy(), v.copy()  # the gradient a view of the state
    got = optimizer.momentum({"Param": p_in, "Grad": v_in[:], "Velocity": v_in, "LearningRate": lr}, attrs, in_place)
    assert got["VelocityOut"] is not v_in
    np.testing.assert_array_equal(got["ParamOut"], want["ParamOut"])
    np.testing.assert_array_equal(v_in, v)


def test_fast_paths_never_modify_their_inputs():
    x = rng.normal(size=(2, 3, 6, 6)).astype(np.float32)
    f = rng.normal(size=(4, 3, 3, 3)).astype(np.float32)
    dout = rng.normal(size=(2, 4, 4, 4)).astype(np.float32)
    arrays = [x, f, dout]
    before = [a.copy() for a in arrays]
    attrs = attrs_of("conv2d")
    for kernel in (convolution.conv2d, convolution.conv2d_grad_input, convolution.conv2d_grad_filter):
        kernel({"Input": x, "Filter": f, "Output@GRAD": dout}, attrs)
    pool = attrs_of("pool2d", ksize=[2, 2], strides=[2, 2])
    out = pooling.pool2d({"X": x}, pool)["Out"]
    pooling.pool2d_grad({"X": x, "Out": out, "Out@GRAD": np.ones_like(out)}, pool)
    activation.relu_grad({"Out": x, "Out@GRAD": x}, {})
    for a, b in itertools.zip_longest(arrays, before):
        np.testing.assert_array_equal(a, b)


def test_conv_filter_gradient_follows_a_feed_rewritten_in_place():
    """The forward's im2col columns are reused by the filter gradient (convolution._ColumnsCache): a batch
    buffer the user refills in place between runs must still give that batch's gradient."""
    import pe_cli.fluid as fluid

    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        image = fluid.layers.data("image", [2, 6, 6])
        conv = fluid.layers.conv2d(image, 3, 3, padding=1, param_attr=fluid.ParamAttr(name="w"))
        loss = fluid.layers.reduce_sum(conv * conv)
        grads = fluid.backward.append_backward(loss)
    w_grad = [g for p, g in grads if p.name == "w"][0]
    batches = [rng.normal(size=(4, 2, 6, 6)).astype(np.float32) for _ in range(2)]

    def run(feeds):
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        return [exe.run(main, feed={"image": f}, fetch_list=[w_grad], scope=scope)[0] for f in feeds]

    buffer = batches[0].copy()

    def refilled():
        yield buffer
        buffer[...] = batches[1]
        yield buffer

    got = run(refilled())
    want = run([batches[0], batches[1]])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("parts", [2, 3])
@pytest.mark.parametrize("batch", [800, 20])
def test_mul_and_its_gradients_split_over_threads(dtype, batch, parts, device_threads, monkeypatch):
    """mul's large GEMMs run by blocks of rows, of columns where the result is much wider than tall,
    or of the inner dimension for the forward product through a weight with at least half as many rows
    as the batch (gemm.split_mode), on numba's threads (gemm.product_into): the same numbers as numpy. At
    batch 800 all three split their rows; at batch 20 the forward product splits its 363 inner
    rows (unevenly, into 2 or 3 partial products), the input gradient [20, 363] its columns (its
    second operand transposed) and the weight gradient its rows."""
    from pe_cli.kernels.cpu import gemm as kmath

    inner, cols, rows = kmath.INNER, kmath.COLS, kmath.ROWS
    assert kmath.split_mode(20, 97, 363, inner) == inner
    assert kmath.split_mode(20, 97, 363) == cols and kmath.split_mode(800, 363, 97) == rows
    assert kmath.split_mode(726, 97, 363, inner) == inner and kmath.split_mode(727, 97, 363, inner) == rows
    assert kmath.split_mode(726, 363, 97, cols) == cols and kmath.split_mode(727, 363, 97, cols) == rows
    # a weight of fewer than WEIGHT_ROWS_MIN values (the MLP's [256, 10]): its blocks are not worth it
    assert kmath.split_mode(512, 10, 256, inner) == rows and kmath.split_mode(512, 256, 10, cols) == rows
    # a result much wider than tall and large (the beam search's [256, 10,000] output projection): by
    # columns, not [256, 10,000] partial products
    assert kmath.split_mode(256, 10_000, 256, inner) == cols and kmath.split_mode(256, 1000, 256, inner) == inner
    x = rng.normal(size=(batch, 3, 11, 11)).astype(dtype)  # 363 columns
    y = rng.normal(size=(363, 97)).astype(dtype)
    dout = rng.normal(size=(batch, 97)).astype(dtype)
    attrs = {"x_num_col_dims": 1, "y_num_col_dims": 1}
    from pe_cli.kernels.cpu.runtime import threads

    monkeypatch.setattr(threads, "_quiet_share", parts)  # the blocks, on the threads the device has
    calls, twin = [], kmath.twin

    def record(*a, **kw):  # which loop, and its last argument: by_cols for blocks of rows or columns
        calls.append("inner" if a[0] is kmath._loops().gemm_k_blocks else ("cols" if a[-1] else "rows"))
        return twin(*a, **kw)

    monkeypatch.setattr(kmath, "twin", record)
    small, threads.SPLIT_GEMM_MACS = threads.SPLIT_GEMM_MACS, 1  # every GEMM counts as large here
    try:
        out = registry.get("mul").kernel("cpu")({"X": x, "Y": y}, attrs)["Out"]
        grads = registry.get("mul_grad").kernel("cpu")({"X": x, "Y": y, "Out@GRAD": dout}, attrs)
        dx, dy = grads["X@GRAD"], grads["Y@GRAD"]
    finally:
        threads.SPLIT_GEMM_MACS = small
    assert calls == (["rows", "rows", "rows"] if batch == 800 else ["inner", "cols", "rows"])
    x2 = x.reshape(batch, -1)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, x2 @ y, rtol=tol, atol=tol)
    np.testing.assert_allclose(dx, (dout @ y.T).reshape(x.shape), rtol=tol, atol=tol)
    np.testing.assert_allclose(dy, x2.T @ dout, rtol=tol, atol=tol)
    assert out.dtype == dx.dtype == dy.dtype == dtype


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("parts", [2, 3])
@pytest.mark.parametrize("batch", [800, 20, "numpy"])
@pytest.mark.filterwarnings("ignore:invalid value encountered in matmul")  # numpy's, on the inf / NaN inputs
def test_fused_gemm_epilogue_is_bitwise_the_unfused_kernels(dtype, batch, parts, device_threads, monkeypatch):
    """fused_gemm_epilogue(_grad)'s epilogue, on each block of the split GEMM in its thread (bias +
    relu; relu's gradient), gives the bits of mul, elementwise_add and relu, and of mul's gradients,
    elementwise_add_grad and relu_grad, run one by one: for each split (at batch 800 all by rows;
    at 20 the forward by k, the input gradient by columns), over 2 and 3 blocks on 1 and 2
    threads. The fused kernels split each GEMM as the unfused ones do (gemm.split_mode). "numpy":
    batch 20, every GEMM too small to split (numpy's product, then the epilogue in numpy)."""
    from pe_cli.kernels.cpu.runtime import threads

    fused, mul, mul_grad = (registry.get(t).kernel("cpu") for t in ("fused_gemm_epilogue", "mul", "mul_grad"))
    fused_grad = registry.get("fused_gemm_epilogue_grad").kernel("cpu")
    split = batch != "numpy"
    batch = batch if split else 20
    monkeypatch.setattr(threads, "_quiet_share", parts)
    x = np.maximum(rng.normal(size=(batch, 97)), 0).astype(dtype)  # a relu's output
    x[0, :3] = [np.nan, -0.0, 0.0]
    y, bias = rng.normal(size=(97, 363)).astype(dtype), rng.normal(size=363).astype(dtype)
    dout = rng.normal(size=(batch, 363)).astype(dtype)
    dout[1, :2] = [np.inf, -np.inf]
    mul_attrs, add_attrs = {"x_num_col_dims": 1, "y_num_col_dims": 1}, {"axis": -1}
    small, threads.SPLIT_GEMM_MACS = threads.SPLIT_GEMM_MACS, 1 if split else 1 << 40  # every GEMM large, or none
    try:
        out = fused({"X": x, "Y": y, "Bias": bias}, {"trans_x": False, "trans_y": False, "activation": "relu"})["Out"]
        total = elementwise.elementwise_add({"X": mul({"X": x, "Y": y}, mul_attrs)["Out"], "Y": bias}, add_attrs)["Out"]
        want = activation.relu({"X": total}, {})["Out"]
        grads = fused_grad(
            {"DOut": dout, "X": x, "Y": y}, {"trans_x": False, "trans_y": False, "activation_grad": "relu_grad"}
        )
        ins = {"X": x, "Y": y, "Out@GRAD": dout}
        dbias = elementwise.elementwise_add_grad({"X": dout, "Y": bias, "Out": dout, "Out@GRAD": dout}, add_attrs)[
            "Y@GRAD"
        ]
        mul_grads = mul_grad(ins, mul_attrs)
        dx = activation.relu_grad({"Out": x, "Out@GRAD": mul_grads["X@GRAD"]}, {})["X@GRAD"]
        dy = mul_grads["Y@GRAD"]
    finally:
        threads.SPLIT_GEMM_MACS = small
    assert out.tobytes() == want.tobytes()
    assert grads["DBias"].tobytes() == dbias.tobytes()
    assert grads["DY"].tobytes() == dy.tobytes()
    assert grads["DX"].tobytes() == dx.tobytes()
    assert out.dtype == grads["DX"].dtype == dtype


def _bn_paths(kernel, ins, attrs, monkeypatch):
    """(the numba loops' outputs, numpy's) of a batch norm kernel: its meta rule told the loops do not apply."""
    from pe_cli.shapes import normalization as norm_rules

    fast = kernel(ins, attrs)
    with monkeypatch.context() as m:
        m.setattr(norm_rules, "_bn_loops", lambda *a: False)
        slow = kernel(ins, attrs)
    return fast, slow


@pytest.mark.parametrize("dtype,device_threads", DTYPE_THREADS, indirect=["device_threads"])
@pytest.mark.parametrize("shape", [(4, 3, 5, 7), (6, 4), (2, 5, 3), (1, 2, 1, 1)], ids=str)
def test_batch_norm_training_paths_agree(shape, dtype, device_threads, monkeypatch):
    c = shape[1]
    x = (rng.normal(size=shape) * 3 + 2).astype(dtype)
    ins = {
        "X": x,
        "Scale": rng.normal(size=c).astype(dtype),
        "Bias": rng.normal(size=c).astype(dtype),
        "Mean": rng.normal(size=c).astype(dtype),
        "Variance": rng.random(c).astype(dtype) + 0.5,
    }
    attrs = attrs_of("batch_norm", momentum=0.8)
    # one value per channel: x - mean is 0 up to the rounding of the mean, which Y divides by
    # sqrt(epsilon) (x 316 here), so the paths' roundings differ by that much more
    scale = 1 / np.sqrt(attrs["epsilon"]) if x.size == c else 1.0
    fast, slow = _bn_paths(normalization.batch_norm, ins, attrs, monkeypatch)
    assert_same(fast, slow, dtype, scale=scale)
    grad_ins = {
        "X": x,
        "Scale": ins["Scale"],
        "SavedMean": slow["SavedMean"],
        "SavedVariance": slow["SavedVariance"],
        "Y@GRAD": rng.normal(size=shape).astype(dtype),
    }
    for kernel in (normalization.batch_norm_grad, normalization.batch_norm_grad_param):
        fast, slow = _bn_paths(kernel, grad_ins, attrs, monkeypatch)
        assert_same(fast, slow, dtype, scale=scale)
    assert x.dtype == dtype and np.array_equal(grad_ins["X"], x)  # inputs untouched


def fused_kernel(op):
    """The fused op's CPU kernel (its structured kernel's adapter: meta rule, then out-kernel)."""
    return registry.get(op).kernel("cpu")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3, 5, 7), (6, 4), (2, 5, 3), (3, 16, 8, 8)], ids=str)
def test_fused_batch_norm_relu_is_bitwise_batch_norm_then_relu(shape, dtype, device_threads):
    """fused_batch_norm_act's loops (relu in batch norm's own passes) give the bits of the composed
    kernel (batch_norm, relu; relu_grad, batch_norm_grad): its gradient's sums read dy through
    relu's mask in the same order. dy holds -0.0, NaN and infinities where relu passes or stops it."""
    from pe_cli.kernels import fused_math

    composed = fused_math.fused_kernels(activation, elementwise, normalization)
    c, rng = shape[1], np.random.default_rng(17)  # its own seed: the draw must not follow test order
    x = (rng.normal(size=shape) * 3 + 1).astype(dtype)
    # |scale| >= 0.5 > |bias|: every channel's Y has values above 0 and values relu stops
    scale = rng.uniform(0.5, 1.5, c) * np.where(np.arange(c) % 2, -1, 1)
    ins = {
        "X": x,
        "Scale": scale.astype(dtype),
        "Bias": rng.uniform(-0.4, 0.4, c).astype(dtype),
        "Mean": np.zeros(c, dtype),
        "Variance": np.ones(c, dtype),
    }
    attrs = attrs_of("fused_batch_norm_act", momentum=0.8, act_type="relu")
    fast, slow = fused_kernel("fused_batch_norm_act")(ins, attrs), composed["fused_batch_norm_act"](ins, attrs)
    assert_same(fast, slow, dtype, exact=True)
    assert (fast["Y"] == 0).any() and (fast["Y"] > 0).any()
    dy = rng.normal(size=shape).astype(dtype)
    flat = dy.reshape(-1)
    flat[::5], flat[1::11], flat[2::13] = -0.0, np.inf, np.nan
    grad_ins = {
        "X": x,
        "Scale": ins["Scale"],
        "SavedMean": fast["SavedMean"],
        "SavedVariance": fast["SavedVariance"],
        "Y": fast["Y"],
        "Y@GRAD": dy,
    }
    with np.errstate(invalid="ignore"):
        fast_grad = fused_kernel("fused_batch_norm_act_grad")(grad_ins, attrs)
        slow_grad = composed["fused_batch_norm_act_grad"](grad_ins, attrs)
    assert_same(fast_grad, slow_grad, dtype, exact=True)
    clean = dict(grad_ins, **{"Y@GRAD": rng.normal(size=shape).astype(dtype)})
    assert_same(
        fused_kernel("fused_batch_norm_act_grad")(clean, attrs),
        composed["fused_batch_norm_act_grad"](clean, attrs),
        dtype,
        exact=True,
    )


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf - inf on the numpy path
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3, 5, 7), (2, 3), (1037,)], ids=str)
def test_fused_add_relu_of_same_shapes_is_bitwise_add_then_relu(shape, dtype, device_threads):
    """A residual connection's fused add + relu (one pass, its chunks on the threads) gives the bits
    of elementwise_add then relu, both outputs, over -0.0 (-0.0 + -0.0 stays -0.0, relu makes it
    +0.0), infinities that cancel into NaN and NaN; and its gradient those of relu_grad, then add's."""
    from pe_cli.kernels import fused_math

    composed = fused_math.fused_kernels(activation, elementwise, normalization)
    x, y = rng.normal(size=shape).astype(dtype), rng.normal(size=shape).astype(dtype)
    fx, fy = x.reshape(-1), y.reshape(-1)
    fx[:5], fy[:5] = [-0.0, np.inf, np.nan, 1.0, -np.inf], [-0.0, -np.inf, 1.0, -1.0, -np.inf]
    ins, attrs = {"X": x, "Y": y}, attrs_of("fused_elemwise_activation")
    fast, slow = (
        fused_kernel("fused_elemwise_activation")(ins, attrs),
        composed["fused_elemwise_activation"](ins, attrs),
    )
    assert fast.keys() == slow.keys() == {"Out", "IntermediateOut"}
    for slot in fast:
        np.testing.assert_array_equal(fast[slot].view(np.uint8), slow[slot].view(np.uint8), err_msg=slot)
    grad_ins = dict(
        ins,
        IntermediateOut=fast["IntermediateOut"],
        Out=fast["Out"],
        **{"Out@GRAD": rng.normal(size=shape).astype(dtype)},
    )
    assert_same(
        fused_kernel("fused_elemwise_activation_grad")(grad_ins, attrs),
        composed["fused_elemwise_activation_grad"](grad_ins, attrs),
        dtype,
        exact=True,
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_of_two_same_shape_gradients_is_numpys_add(dtype, device_threads):
    """sum over two arrays of one shape (a gradient reaching a value by two paths) adds them in
    chunks on the threads: numpy's bits, -0.0 included; a third adds after."""
    xs = [rng.normal(size=(3, 50, 7)).astype(dtype) for _ in range(3)]
    xs[0].reshape(-1)[:3], xs[1].reshape(-1)[:3] = -0.0, [-0.0, 0.0, np.inf]
    two = elementwise.sum({"X": xs[:2]}, {})["Out"]
    np.testing.assert_array_equal(two.view(np.uint8), np.add(xs[0], xs[1]).view(np.uint8))
    np.testing.assert_array_equal(elementwise.sum({"X": xs}, {})["Out"], (xs[0] + xs[1]) + xs[2])
    assert two is not xs[0] and two is not xs[1]


@pytest.mark.parametrize(
    "x_shape, w_shape, attrs, winograd, wide",
    [
        ((2, 16, 32, 32), (16, 16, 3, 3), {"paddings": [1, 1]}, True, True),  # the ResNet's
        ((2, 32, 16, 16), (32, 32, 3, 3), {"paddings": [1, 1]}, True, True),
        ((2, 64, 8, 8), (64, 64, 3, 3), {"paddings": [1, 1]}, False, True),  # 16 tiles, 64 channels
        ((2, 64, 4, 4), (64, 64, 3, 3), {"paddings": [1, 1]}, False, True),  # 4 tiles
        ((2, 8, 15, 16), (8, 8, 3, 3), {"paddings": [0, 2, 1, 0]}, True, True),  # 8 x 8 tiles
        ((2, 3, 32, 32), (16, 3, 3, 3), {"paddings": [1, 1]}, False, True),  # 3 channels in
        ((2, 16, 8, 8), (4, 16, 3, 3), {"paddings": [1, 1]}, False, True),  # 4 out
        ((2, 16, 8, 8), (16, 16, 3, 3), {"paddings": [1, 1], "strides": [2, 2]}, False, False),
        ((2, 16, 8, 8), (16, 16, 3, 3), {"paddings": [2, 2], "dilations": [2, 2]}, False, False),
        ((2, 16, 8, 8), (16, 8, 3, 3), {"paddings": [1, 1], "groups": 2}, False, True),
        ((2, 16, 8, 8), (16, 16, 3, 3), {"paddings": [3, 3]}, False, True),
        ((2, 16, 8, 8), (16, 16, 5, 5), {"paddings": [2, 2]}, False, True),
        ((2, 6, 14, 14), (16, 6, 5, 5), {"paddings": [0, 0]}, False, True),  # LeNet-5's: Wp 14 = 1.4 Wo
        ((2, 6, 6, 6), (16, 6, 5, 5), {"paddings": [0, 0]}, False, False),  # Wp 6 = 3 Wo
        ((2, 16, 8, 8), (16, 16, 1, 1), {"paddings": [0, 0]}, False, False),  # 1x1: no columns at all
    ],
)
def test_which_path_a_stride_1_convolution_takes(x_shape, w_shape, attrs, winograd, wide):
    """Winograd for 3x3 between 8 or more channels from a 16x16 output; else the wide columns where
    a padded row is at most twice the output's."""
    geo = ConvGeometry(x_shape, w_shape, attrs_of("conv2d", **attrs))
    assert conv2d_rules.winograd_applies(geo, x_shape, w_shape) is winograd
    assert _conv.wide_applies(geo) is wide


@pytest.mark.parametrize("geo", CONV_GEOMETRIES, ids=lambda g: "x".join(map(str, g[:8])))
def test_every_conv2d_path_agrees_with_numpys(geo, monkeypatch):
    """Each path of conv2d_paths' tables (forward and both gradients), called directly: a path the host's
    libraries never pick (COLUMNS runs only where no CBLAS GEMM is installed) is still checked here."""
    monkeypatch.setattr(conv2d_rules, "WINOGRAD_MIN_TILES", 1)
    n, c, h, w, m, kh, kw, groups, strides, paddings, dilations, algorithm = geo
    x = rng.normal(size=(n, c, h, w)).astype(np.float32)
    f = rng.normal(size=(m, c // groups, kh, kw)).astype(np.float32)
    attrs = attrs_of(
        "conv2d", strides=strides, paddings=paddings, dilations=dilations, groups=groups, padding_algorithm=algorithm
    )
    g = ConvGeometry(x.shape, f.shape, attrs)
    dout = rng.normal(size=(n, m, g.ho, g.wo)).astype(np.float32)
    paths = [conv2d_paths.COLUMNS]
    if conv2d_paths.cblas.gemm(x.dtype) is not None:
        paths.append(conv2d_paths.PER_SAMPLE)
        if conv2d_rules.winograd_applies(g, x.shape, f.shape):
            paths.append(conv2d_paths.WINOGRAD)
    want = conv2d_paths.NUMPY
    for path in paths:
        for table, args, shape in (
            (conv2d_paths.FORWARD, (x, f, g), dout.shape),
            (conv2d_paths.GRAD_FILTER, (x, dout, g), f.shape),
            (conv2d_paths.GRAD_INPUT, (f, dout, g), x.shape),
        ):
            got, ref = np.full(shape, np.nan, np.float32), np.full(shape, np.nan, np.float32)
            table[path](*args, got)
            table[want](*args, ref)
            np.testing.assert_allclose(got, ref, rtol=2e-5, atol=2e-5, err_msg=path)
