"""The structured kernels of paddle.fft's ops, einsum, renorm, masked_select, segment_pool, set_value,
unique_consecutive and viterbi_decode and their gradients (shapes/fft.py, einsum.py, renormalizing.py, indexing.py,
segment_pooling.py, slice_assignment.py, structured_prediction.py; their out-kernels in kernels/cpu/, issue 95):
numpy forms handing over new C-contiguous arrays of the Meta's shapes and dtypes (-1 where the values give a
length), set_value's Out the buffer it is handed, every element written; the op cases' reference values (Paddle
2.6.2's), C-contiguous or Fortran-ordered; a step decides its Meta once per shape signature."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_indexing import _laid_out, _run
from tests.kernels.test_structured_kernels import CASES
from tests.kernels.test_structured_padding import _step

rng = np.random.default_rng(41)
FAMILIES = ("fft", "einsum", "renorm", "masked_select", "segment_pool", "set_value", "graph message passing")
FAMILIES += ("graph_reindex", "structural primitives")
FAMILIES += ("unique_consecutive and viterbi_decode",)
# (StartsTensorList's values replace set_value's starts before the rule runs: the op's kernel puts them there)
_CASES = [c for family in FAMILIES for c in CASES[family] if not set(c.inputs) & set(registry.get(c.op).attr_tensors)]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (an int buffer filled with NaN, the sentinel)
@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_fill_what_they_are_handed(case, layout):
    """Every op case of the family, forward and gradient, C- and Fortran-ordered: the outputs are the buffers handed
    (a fresh variant's: new arrays), every element written, the case's reference values."""
    attrs = _attrs_with_defaults(case)
    ins = {slot: _laid_out(value, layout) for slot, value in case.inputs.items()}
    ctx = KernelContext(paddle2=case.paddle2, zero_dim=case.zero_dim)
    outs = _run(case.op, ins, attrs, ctx)
    for slot, want in case.ref(case.inputs, attrs).items():
        got = outs[slot]
        for g, w in zip(got, want) if type(got) is list else [(got, want)]:
            np.testing.assert_allclose(g, w, rtol=case.rtol, atol=case.atol, err_msg=f"{case.id}: {slot}")
    grad_op = case.op + "_grad"
    if grad_op not in registry.all_op_types():
        return
    grad = registry.get(grad_op)
    given = dict(ins, **outs)
    for s in grad.inputs:
        if s.name.endswith("@GRAD"):
            out = np.asarray(outs[s.name[:-5]])
            given[s.name] = rng.uniform(-1, 1, out.shape).astype(out.dtype)
    gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
    douts = _run(grad_op, gins, attrs, ctx)
    assert set(douts) == set(registry.get(grad_op).structured.meta(attrs, gins, ctx).outputs)


@pytest.mark.parametrize(
    "op, shape, attrs, out_shape, dtype",
    [
        ("fft_c2c", (3, 5), {"axes": [0]}, (3, 5), "complex64"),
        ("fft_r2c", (3, 5), {"axes": [0, 1]}, (3, 3), "complex64"),
        ("fft_r2c", (3, 6), {"axes": [-1, 0], "onesided": True}, (2, 6), "complex64"),
        ("fft_r2c", (3, 5), {"axes": [1], "onesided": False}, (3, 5), "complex64"),
        ("fft_c2r", (3, 5), {"axes": [1]}, (3, 8), "float32"),
        ("fft_c2r", (3, 5), {"axes": [1], "last_dim_size": 3}, (3, 3), "float32"),
        ("stft", (2, 20), {"n_fft": 8, "hop_length": 4}, (2, 5, 4), "complex64"),
        ("stft", (2, 5), {"n_fft": 8, "hop_length": 4}, (2, 5, 0), "complex64"),
        ("stft", (20,), {"n_fft": 8, "hop_length": 3, "normalized": True}, (5, 5), "complex64"),
    ],
)
def test_fft_metas_give_the_shapes_numpys_transforms_make(op, shape, attrs, out_shape, dtype):
    """The transform's Out shape from X's (onesided halves, last_dim_size, stft's frames: none when X is shorter
    than n_fft), complex64 of float32 X (float32 of complex64 X for fft_c2r), the out-kernel's array of them."""
    x = rng.standard_normal(shape).astype(np.float32)
    ins = {"X": x.astype(np.complex64) if op == "fft_c2r" else x}
    if op == "stft":
        ins["Window"] = np.hanning(attrs["n_fft"]).astype(np.float32)
    full = dict(registry.get(op).default_attrs(), **attrs)
    outs = _run(op, ins, full, KernelContext())
    assert outs["Out"].shape == out_shape and outs["Out"].dtype == dtype


def test_set_value_fills_its_out_and_keeps_its_refusals():
    """set_value's Out is the buffer it is handed (Input copied, the region set: a step of -2, a decreased and a
    none axis), and a value that does not broadcast to the region or an end before its start is refused in one
    line naming it."""
    x = np.arange(20.0).reshape(4, 5)
    op, kernel = registry.get("set_value"), registry.get("set_value").kernel("cpu")
    attrs = dict(op.default_attrs(), axes=[1], starts=[4], ends=[0], steps=[-2])
    got = _run("set_value", {"Input": x, "ValueTensor": np.array([7.0, 8.0])}, attrs, KernelContext())["Out"]
    want = x.copy()
    want[:, 4:0:-2] = [7.0, 8.0]
    assert got.tobytes() == want.tobytes()
    attrs = dict(op.default_attrs(), axes=[0], starts=[2], ends=[3], decrease_axes=[0], none_axes=[0])
    got = kernel({"Input": x, "ValueTensor": np.full((1, 5), 9.0)}, attrs)["Out"]
    assert got[2].tolist() == [9.0] * 5 and got[[0, 1, 3]].tobytes() == x[[0, 1, 3]].tobytes()
    bad = dict(op.default_attrs(), axes=[0], starts=[1], ends=[3])
    with pytest.raises(Exception, match=r"the value of shape \[3, 5\] does not broadcast to the region \[2, 5\]"):
        kernel({"Input": x, "ValueTensor": np.zeros((3, 5))}, bad)
    with pytest.raises(Exception, match="end 1 is before start 3"):
        kernel({"Input": x, "ValueTensor": np.zeros(5)}, dict(bad, starts=[3], ends=[1]))


def test_value_sized_outputs_through_a_step_keep_one_meta_per_signature():
    """unique_consecutive (along an axis) and masked_select as steps: outputs as long as the values make them (their
    Meta's -1), new arrays on every run, one Meta per shape signature."""
    outs = {"Out": ["o"], "Index": ["i"], "Counts": ["n"]}
    step = _step("unique_consecutive", {"X": ["x"]}, {"axis": [0], "dtype": 2}, outs)
    for x, runs in (([[1, 2], [1, 2], [3, 4]], [2, 1]), ([[5, 5], [6, 6], [6, 6]], [1, 2]), ([[1], [1]], [2])):
        values = Values({"x": np.array(x, np.float32)})
        run_step(step, values)
        assert values["n"].tolist() == runs and values["n"].dtype == np.int32
        assert values["o"].shape == (len(runs), len(x[0]))
    assert len(inspect.unwrap(step.kernel).metas) == 2
    step = _step("masked_select", {"X": ["x"], "Mask": ["m"]}, {}, {"Y": ["y"]})
    for x in (np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3) - 3, np.arange(4.0)):
        values = Values({"x": x, "m": x > 1})
        run_step(step, values)
        assert values["y"].tolist() == x[x > 1].tolist()
    assert len(inspect.unwrap(step.kernel).metas) == 2


def test_segment_pool_grad_has_a_row_per_id_and_refuses_unsorted_ids():
    """segment_pool's Out [segments, ...] (MEAN: each segment's mean), its gradient a row per id; ids out of order
    refused in one line."""
    x = np.arange(12.0).reshape(4, 3)
    ids = np.array([0, 0, 2, 2])
    attrs = {"pooltype": "MEAN"}
    outs = _run("segment_pool", {"X": x, "SegmentIds": ids}, attrs, KernelContext())
    assert outs["Out"].tolist() == [[1.5, 2.5, 3.5], [0, 0, 0], [7.5, 8.5, 9.5]]
    assert outs["SummedIds"].ravel().tolist() == [2, 0, 2]
    gins = {"X": x, "SegmentIds": ids, "Out": outs["Out"], "Out@GRAD": np.ones((3, 3))}
    dx = _run("segment_pool_grad", gins, attrs, KernelContext())["X@GRAD"]
    assert dx.tolist() == [[0.5] * 3] * 4
    with pytest.raises(Exception, match="SegmentIds must be sorted and >= 0"):
        registry.get("segment_pool").kernel("cpu")({"X": x, "SegmentIds": np.array([1, 0, 2, 2])}, attrs)


def test_einsum_of_a_full_contraction_is_0d_in_paddle2_and_1_in_fluid():
    """einsum's meta: a full contraction [1] (Fluid 1.8) or 0-D (zero_dim), numpy's value; the gradient of each
    operand of its shape and dtype."""
    a, b = rng.standard_normal(5), rng.standard_normal(5)
    for zero_dim, shape in ((False, (1,)), (True, ())):
        outs = _run("einsum", {"Operands": [a, b]}, {"equation": "i,i->"}, KernelContext(zero_dim=zero_dim))
        assert outs["Out"].shape == shape and outs["Out"].reshape(()) == np.einsum("i,i->", a, b)
    ops = [rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal((3, 1)).astype(np.float32)]
    g = rng.standard_normal((2, 4)).astype(np.float32)
    grads = _run("einsum_grad", {"Operands": ops, "Out@GRAD": g[:, :1]}, {"equation": "ij,jk->ik"}, KernelContext())
    assert [x.shape for x in grads["Operands@GRAD"]] == [(2, 3), (3, 1)]
    with pytest.raises(ValueError, match="names 2 operands, 1 given"):
        registry.get("einsum_grad").kernel("cpu")({"Operands": ops[:1], "Out@GRAD": g}, {"equation": "ij,jk->ik"})


@pytest.mark.parametrize("forward", [False, True])
@pytest.mark.parametrize("dtype, real", [("complex64", "float32"), ("complex128", "float64")])
def test_fft_c2r_of_an_empty_axis_is_zeros(dtype, real, forward):
    """irfft (hfft) of no coefficients, zero-padded to last_dim_size: zeros, as Paddle 2.6.2's (numpy's irfftn hands
    back uninitialized memory for it); without last_dim_size its length 2 (0 - 1) is numpy's refusal."""
    x = np.zeros((3, 0), dtype)
    attrs = dict(registry.get("fft_c2r").default_attrs(), axes=[1], last_dim_size=4, forward=forward)
    out = _run("fft_c2r", {"X": x}, attrs, KernelContext())["Out"]
    assert out.shape == (3, 4) and out.dtype == real and not out.any()
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(-2\)"):
        registry.get("fft_c2r").kernel("cpu")({"X": x}, dict(attrs, last_dim_size=0))


def test_unique_consecutive_refuses_an_axis_x_lacks():
    """An axis beyond X's dims (5 or -3 of a 2-D X; any of a 0-D X) is refused in one line naming it, by the kernel
    and when the program is built (pe wrapped it onto another axis; Paddle 2.6.2's kernel reads past X's dims)."""
    from pe_cli import paddle

    kernel = registry.get("unique_consecutive").kernel("cpu")
    for x, axis in ((np.ones((3, 3)), 5), (np.ones((3, 3)), -3), (np.float64(1.0).reshape(()), 0)):
        with pytest.raises(Exception, match=rf"axis=\[{axis}\] is no axis of X \[{', '.join(map(str, x.shape))}\]"):
            kernel({"X": x}, {"axis": [axis], "dtype": 3})
    assert kernel({"X": np.array([[1.0], [1.0], [2.0]])}, {"axis": [-2], "dtype": 3})["Counts"].tolist() == [2, 1]
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [3, 3], "float32")
        with pytest.raises(Exception, match=r"axis=\[5\] is no axis of X \[3, 3\]"):
            paddle.unique_consecutive(x, axis=5)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_segment_pool_of_ints_is_paddles(dtype):
    """segment_pool of integer X, each pool type, as Paddle 2.6.2 gives it (its values recorded here): a mean the
    sum divided toward zero, an empty segment 0, X's dtype (pe refused MEAN, MAX and MIN of ints with numpy's
    errors)."""
    x = np.array([[-3], [-4], [5], [-2], [7], [1], [2]], dtype)
    ids = np.array([0, 0, 1, 1, 3, 3, 3])
    want = {"SUM": [-7, 3, 0, 10], "MEAN": [-3, 1, 0, 3], "MAX": [-3, 5, 0, 7], "MIN": [-4, -2, 0, 1]}
    for kind, values in want.items():
        out = _run("segment_pool", {"X": x, "SegmentIds": ids}, {"pooltype": kind}, KernelContext())["Out"]
        assert out.dtype == dtype and out.ravel().tolist() == values, kind


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_segment_pool_grad_of_ints_divides_as_paddle(dtype):
    """MEAN's gradient of integer X: Out@GRAD divided by the segment's count toward zero (C++'s division in Paddle
    2.6.2's int kernel; its values recorded here), where pe failed with numpy's cast error."""
    x = np.arange(15, dtype=dtype).reshape(5, 3)
    ids = np.array([0, 0, 0, 2, 2], dtype)
    d = np.array([[7, -7, 5], [1, 2, 3], [-5, 4, 9]], dtype)
    outs = _run("segment_pool", {"X": x, "SegmentIds": ids}, {"pooltype": "MEAN"}, KernelContext())
    gins = {"X": x, "SegmentIds": ids, "Out": outs["Out"], "SummedIds": outs["SummedIds"], "Out@GRAD": d}
    dx = _run("segment_pool_grad", gins, {"pooltype": "MEAN"}, KernelContext())["X@GRAD"]
    assert dx.dtype == dtype and dx.tolist() == [[2, -2, 1]] * 3 + [[-2, 2, 4]] * 2


def test_renorm_and_masked_select_refuse_what_would_be_another_op():
    """renorm along an axis X lacks (pe wrapped axis 5 of a 2-D X onto axis 1; paddle.renorm refuses it) and
    masked_select of a Mask that is not bool (numpy gathered X's rows at its values) are refused in one line, by the
    kernels and, for renorm, when the program is built."""
    from pe_cli import paddle

    x = np.ones((3, 4))
    for op, ins in (("renorm", {"X": x}), ("renorm_grad", {"X": x, "Out@GRAD": x})):
        with pytest.raises(Exception, match=r"renorm: axis=5 is no axis of X \[3, 4\]"):
            registry.get(op).kernel("cpu")(ins, dict(registry.get(op).default_attrs(), axis=5))
    for op, ins in (("masked_select", {}), ("masked_select_grad", {"Y@GRAD": np.ones(2)})):
        with pytest.raises(Exception, match=f"{op}: Mask is int64; it must be bool"):
            registry.get(op).kernel("cpu")({"X": x, "Mask": np.array([0, 2]), **ins}, {})
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        v = paddle.static.data("v", [3, 4], "float32")
        with pytest.raises(Exception, match=r"axis=-3 is no axis of X \[3, 4\]"):
            main.global_block().append_op("renorm", {"X": [v.name]}, {"Out": [v.name + "_out"]}, {"axis": -3})


def test_structural_primitives_refuse_where_paddles_infershape_and_lowering_disagree():
    """A structural *_p op Paddle's InferShape would index out of bounds (a negative axis), that its lowering
    cannot run (scatter_add_p off axis 0) or that the two size differently (reshape_p's -1, an empty reduce_sum_p
    axis, a slice outside the dim) is refused in one line naming it, when built or when run."""
    from pe_cli import fluid
    from pe_cli.base.errors import PeError

    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [3, 4], "float32")
        block = main.global_block()
        y = block.create_var(name="y", dtype="float32")
        for op, attrs, match in [
            ("transpose_p", {"axis": [1, 1]}, "not a permutation"),
            ("reduce_sum_p", {"axis": [-1]}, "axis -1 is not a dim"),
            ("reduce_sum_p", {"axis": []}, "axis is empty"),
            ("reshape_p", {"shape": [-1, 4]}, r"shape \[-1, 4\]: pe takes sizes > 0"),
            ("reshape_p", {"shape": [5, 2]}, r"X \[3, 4\] holds 12 elements, shape \[5, 2\] 10"),
        ]:
            with pytest.raises(PeError, match=match):
                block.append_op(op, {"X": [x]}, {"Y": [y]}, attrs)
        with pytest.raises(PeError, match="scatter_add_p takes axis 0 alone"):
            block.append_op("scatter_add_p", {"X": [x], "Y": [x]}, {"Z": [y]}, {"axis": 1, "index": [0, 1, 2, 3]})
    attrs = {"axis": [1], "starts": [1], "ends": [9], "strides": [1]}
    with pytest.raises(
        PeError, match=r"slice_select_p: axis 1 start 1, end 9, stride 1: pe takes 0 <= start <= end <= 4"
    ):
        registry.get("slice_select_p").kernel("cpu")({"X": np.zeros((3, 4))}, attrs)
    with pytest.raises(PeError, match=r"gather_p: the index holds 7, outside \[0, 4\)"):
        registry.get("gather_p").kernel("cpu")({"X": np.zeros((3, 4))}, {"axis": 1, "index": [0, 7]})
