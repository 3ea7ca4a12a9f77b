"""The gathers and scatters by index as structured kernels (pe_cli/shapes/gather.py, kernels/cpu/gathering.py):
gather, gather_nd, scatter, scatter_nd_add, index_select, their gradients, one_hot and one_hot_v2. Every op case's
out-kernels fill every element of the buffers they are handed with what the op's kernel computes (gather's
axis moved first, where its layout puts it); a step decides its meta once per shape signature and refuses an
index out of range, every run, with the one line it always gave; a Fortran-ordered X gives what a C-ordered one
gives."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES, _filled_completely, _step

FAMILY = CASES["gather and scatter by index"]
rng = np.random.default_rng(41)


def _axis_first(values, axis, slots):
    return {k: np.ascontiguousarray(np.moveaxis(v, axis, 0)) if k in slots else v for k, v in values.items()}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", FAMILY, ids=[c.id for c in FAMILY])
def test_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    """Each op case (values in float64 and float32, indices as they are), forward and gradient: the out-kernels
    return nothing, fill every element of the sentinel buffers they are handed, and give the op kernel's bits."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2)
    ins = {s: v.astype(dtype) if v.dtype.kind == "f" else v for s, v in case.inputs.items()}
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    axis = attrs.get("axis", 0) % ins["X"].ndim if case.op == "gather" else 0
    moved, moved_attrs = _axis_first(ins, axis, ("X",)), dict(attrs, **({"axis": 0} if case.op == "gather" else {}))
    outs = _filled_completely(case.op, moved, moved_attrs, ctx)
    assert all(outs[s].tobytes() == _axis_first(want, axis, want)[s].tobytes() for s in want)
    if not case.grad:
        return
    grad = registry.get(case.op + "_grad")
    dout = rng.uniform(-1, 1, size=want["Out"].shape).astype(want["Out"].dtype)
    given = dict(ins, **{"Out@GRAD": dout})
    gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
    gwant = grad.kernel("cpu")(gins, dict(attrs), ctx)
    gmoved = _axis_first(gins, axis, ("X", "Out@GRAD"))
    douts = _filled_completely(case.op + "_grad", gmoved, moved_attrs, ctx)
    assert set(douts) == set(gwant)
    assert all(douts[s].tobytes() == _axis_first(gwant, axis, ("X@GRAD",))[s].tobytes() for s in gwant)


def test_a_gather_step_decides_its_meta_once_per_shape_signature_and_checks_every_index():
    """gather's step decides Out's shape once per shape and dtype of X and Index, gives the op's kernel's bits,
    and refuses an index out of range with the one line it always gave, on every run."""
    step = _step("gather", {"X": ["x"], "Index": ["i"]}, {"Out": ["out"]})
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, ins["Index"].shape, decided.outputs["Out"][0]))
        return decided

    inner.meta = counted
    kernel, x = registry.get("gather").kernel("cpu"), rng.standard_normal((6, 4)).astype(np.float32)
    feeds = [(x, rng.integers(0, 6, (5,))) for _ in range(3)] + [(x, rng.integers(0, 6, (2, 1)))] * 2
    for x_value, index in feeds:
        values = Values({"x": x_value, "i": index})
        run_step(step, values)
        assert values["out"].tobytes() == kernel({"X": x_value, "Index": index}, dict(step.attrs))["Out"].tobytes()
    assert calls == [((6, 4), (5,), (5, 4)), ((6, 4), (2, 1), (2, 4))]
    for _ in range(2):
        with pytest.raises(Exception, match=r"gather: index 6 is out of range for X with 6 rows$"):
            run_step(step, Values({"x": x, "i": np.array([1, 6])}))


def test_one_hot_refuses_ids_out_of_range_on_every_run_and_x_not_ending_in_1():
    step = _step("one_hot", {"X": ["x"]}, {"Out": ["out"]}, {"depth": 3})
    values = Values({"x": np.array([[0], [2]])})
    run_step(step, values)
    assert values["out"].tobytes() == np.eye(3, dtype=np.float32)[[0, 2]].tobytes()
    for _ in range(2):
        with pytest.raises(Exception, match=r"one_hot: id 3 is outside \[0, 3\); pass allow_out_of_range=True"):
            run_step(step, Values({"x": np.array([[0], [3]])}))
    with pytest.raises(Exception, match=r"one_hot: X \[2, 2\] must end in a dim of size 1 \(ids shaped \[N, 1\]\)$"):
        registry.get("one_hot").kernel("cpu")({"X": np.zeros((2, 2), np.int64)}, {"depth": 3})


@pytest.mark.parametrize("op", ["gather_grad", "scatter_nd_add"])
def test_a_fortran_ordered_x_gives_what_a_c_ordered_one_gives(op):
    """gather_grad's rows and scatter_nd_add's updates are added into X's shape whatever X's memory order (they
    were added into a copy and lost where X was Fortran-ordered: X@GRAD all zeros, Out X unchanged)."""
    x = rng.standard_normal((4, 2, 3))
    if op == "gather_grad":
        ins = {"Index": np.array([3, 1, 3]), "Out@GRAD": rng.standard_normal((3, 2, 3))}
        attrs = {"axis": 0}
    else:
        ins = {"Index": np.array([[1, 0], [3, 1], [1, 0]]), "Updates": rng.standard_normal((3, 3))}
        attrs = {}
    kernel = registry.get(op).kernel("cpu")
    c_order = kernel(dict(ins, X=x), dict(attrs))
    f_order = kernel(dict(ins, X=np.asfortranarray(x)), dict(attrs))
    slot = "X@GRAD" if op == "gather_grad" else "Out"
    assert f_order[slot].tobytes() == c_order[slot].tobytes() and np.any(
        c_order[slot] != (0 if slot == "X@GRAD" else x)
    )


@pytest.mark.parametrize("op", ["one_hot", "one_hot_v2"])
@pytest.mark.parametrize("allow", [False, True])
@pytest.mark.parametrize("depth", [5, 300])
def test_one_hot_variants_fill_the_buffers_they_are_handed(op, allow, depth):
    """one_hot's variants, the compare cast into Out (a narrow depth) and the 1s put into zeroed rows (a wide one),
    in each dtype, ids out of range all-zero rows where allowed: every element of the buffers written, with the
    values of the compare."""
    ids = rng.integers(-2 if allow else 0, depth + (2 if allow else 0), (4, 3, 1))
    ids = ids if op == "one_hot" else ids.reshape(4, 3)
    for dtype in ("float32", "float16", "int64", "bool"):
        attrs = dict(registry.get(op).default_attrs(), depth=depth, allow_out_of_range=allow, dtype=dtype)
        outs = _filled_completely(op, {"X": ids}, attrs, KernelContext())
        want = (ids.reshape(4, 3, 1) == np.arange(depth)).astype(dtype)
        assert outs["Out"].tobytes() == want.tobytes()
    meta = registry.get(op).structured.meta(attrs, {"X": ids}, KernelContext())
    assert meta.variant == ("put" if depth > 32 else "equal")
