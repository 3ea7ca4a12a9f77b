"""Structured kernels of the control-flow ops (issue 95): is_empty and lod_array_length fill the buffers they are
handed; the others put the values themselves (``fresh``: the tensor a Mask picks, an array's item, what a block
wrote), their meta rules saying the shapes where the inputs' shapes give them and refusing what the old kernels
refused; the ops that hold tensor arrays or run a block are ``Structured(python=True)``, run between a planned
step's segments; a device's arithmetic reaches the out-kernels through the kernels by name (CUDA's with_args)."""

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.base.tensor_array import TensorArray
from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.structured import allocate
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES, CONVERTED

rng = np.random.default_rng(95)
PYTHON_OPS = {"create_array", "write_to_array", "read_from_array", "array_write_grad", "array_read_grad"} | CONVERTED[
    "block ops"
]


def _attrs(op, **attrs):
    return dict(registry.get(op).default_attrs(), **attrs)


def _run(op, ins, attrs, ctx=None, sentinel=None):
    """The op's meta rule and CPU out-kernel into the outputs allocated for its Meta (each buffer filled with
    ``sentinel`` first): (meta, outputs)."""
    s = registry.get(op).structured
    ctx = KernelContext() if ctx is None else ctx
    meta = s.meta(attrs, ins, ctx)
    outs = allocate(meta, ins)
    for v in outs.values():
        if sentinel is not None:
            v.fill(sentinel)
    extra = (ctx,) if getattr(s.cpu, "takes_context", False) else ()
    assert s.cpu(ins, outs, attrs, meta, *extra) is None
    return meta, outs


def test_the_ops_that_hold_arrays_or_run_blocks_are_marked_python_and_the_others_not():
    family = set().union(CONVERTED["tensor arrays"], CONVERTED["branches and masks"], CONVERTED["block ops"])
    assert {t for t in family if registry.get(t).structured.python} == PYTHON_OPS


@pytest.mark.parametrize("shape", [(), (0,), (3, 0), (2, 3)])
@pytest.mark.parametrize("zero_dim", [False, True])
def test_is_empty_fills_its_bool_buffer(shape, zero_dim):
    meta, outs = _run("is_empty", {"X": np.ones(shape)}, {}, KernelContext(zero_dim=zero_dim), sentinel=True)
    assert meta.outputs["Out"] == (() if zero_dim else (1,), np.dtype(bool)) and not meta.fresh
    assert outs["Out"].shape == meta.outputs["Out"][0] and outs["Out"].dtype == bool
    assert bool(outs["Out"].reshape(-1)[0]) == (0 in shape)


@pytest.mark.parametrize("length", [0, 1, 4])
def test_lod_array_length_fills_its_int64_buffer(length):
    meta, outs = _run("lod_array_length", {"X": TensorArray([np.ones(2)] * length)}, {}, sentinel=-7)
    assert meta.outputs["Out"] == ((1,), np.dtype(np.int64))
    np.testing.assert_array_equal(outs["Out"], [length])


def test_select_input_and_read_from_array_put_the_value_itself():
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    meta, outs = _run("select_input", {"X": [a, b], "Mask": np.array([1], np.int32)}, {})
    assert meta.fresh and meta.outputs["Out"] == ((2, 3), np.dtype(np.float64)) and outs["Out"] is b
    meta, outs = _run("select_input", {"X": [a, np.ones(4, np.int32)], "Mask": np.array([0], np.int32)}, {})
    assert meta.outputs["Out"] == (None, None) and outs["Out"] is a  # (which one the Mask's value picks)
    array = TensorArray([a, b], [[[0, 1, 2]], None])
    ctx = KernelContext(lod={})
    meta, outs = _run("read_from_array", {"X": array, "I": np.array([0])}, {}, ctx)
    assert outs["Out"] is a and ctx.out_lod == {"Out": [[0, 1, 2]]}


@pytest.mark.parametrize("use_stack", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_tensor_array_to_tensor_meta_gives_the_joined_shape(use_stack, axis):
    xs = [rng.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    meta, outs = _run(
        "tensor_array_to_tensor", {"X": xs}, _attrs("tensor_array_to_tensor", axis=axis, use_stack=use_stack)
    )
    assert meta.outputs["Out"] == (outs["Out"].shape, outs["Out"].dtype)
    assert meta.outputs["OutIndex"] == (outs["OutIndex"].shape, outs["OutIndex"].dtype)


def test_the_rules_refuse_what_the_kernels_refused():
    with pytest.raises(PeError, match="slot 1 of the array was never written"):
        registry.get("tensor_array_to_tensor").structured.meta(
            _attrs("tensor_array_to_tensor"), {"X": [np.ones(2), None]}, KernelContext()
        )
    with pytest.raises(PeError, match="the mask has 2 rows, X has 3 sequences"):
        registry.get("split_lod_tensor").structured.meta(
            {"level": 0},
            {"X": np.ones((6, 2)), "Mask": np.ones((2, 1), bool)},
            KernelContext(lod={"X": [[0, 2, 4, 6]]}),
        )


def test_the_branch_op_cases_through_their_out_kernels():
    """Every op case of split/merge_lod_tensor, is_empty, select_input and select_output: the case's values."""
    for case in CASES["branches and masks"]:
        attrs = _attrs(case.op, **case.attrs)
        ctx = KernelContext(lod={}, output_counts={"Out": 2})
        _, outs = _run(case.op, dict(case.inputs), attrs, ctx)
        for slot, value in case.ref(case.inputs, attrs).items():
            got = outs[slot]
            for g, w in zip(got, value) if isinstance(value, list) else [(got, value)]:
                np.testing.assert_array_equal(g, w, err_msg=case.id)


def test_a_devices_zeros_reach_the_out_kernel_through_the_kernel_by_name():
    """select_input_grad's kernel by name hands the zeros CUDA's host wrap gives it (after the context) on."""
    made = []

    def zeros(x):
        made.append(x.shape)
        return np.full(x.shape, 5.0)

    kernel = registry.get("select_input_grad").kernel("cpu")
    a, b = np.ones((2, 2)), np.ones(3)
    outs = kernel({"X": [a, b], "Mask": np.array([0], np.int32), "Out@GRAD": a * 2}, {}, KernelContext(), zeros)
    assert made == [(3,)] and (outs["X@GRAD"][1] == 5.0).all() and outs["X@GRAD"][0] is not a


@pytest.mark.parametrize(
    "op, ins",
    [
        ("split_lod_tensor", {"X": np.ones((3, 2)), "Mask": np.ones((3, 1), bool)}),
        ("merge_lod_tensor", {"Mask": np.ones((3, 1), bool), "InTrue": np.ones((3, 2)), "InFalse": np.ones((0, 5))}),
        ("merge_lod_tensor", {"Mask": np.zeros((2, 1), bool), "InTrue": np.ones((0, 1)), "InFalse": np.ones((2, 4))}),
        ("select_output", {"X": np.ones((2, 3), np.float32), "Mask": np.array([0], np.int32)}),
        ("is_empty", {"X": np.ones((0, 3))}),
    ],
)
def test_the_tensor_rules_read_shapes_and_dtypes_only(op, ins):
    """A rule given Specs (a planned step's) decides what it decides given the arrays."""
    from pe_cli.shapes.structured import Spec

    attrs, ctx = _attrs(op), KernelContext(lod={}, output_counts={"Out": 2})
    meta = registry.get(op).structured.meta
    specs = {slot: Spec(v.shape, v.dtype) for slot, v in ins.items()}
    assert meta(attrs, specs, ctx) == meta(attrs, ins, ctx)
