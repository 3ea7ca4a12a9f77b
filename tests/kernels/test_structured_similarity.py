"""cos_sim, squared_l2_distance, dist and their gradients as structured kernels (pe_cli/shapes/similarity.py,
kernels/cpu/similarity.py): each out-kernel gives the op's kernel's bits into new arrays of its Meta (dist's Out
into the buffer it is handed, 0-D in a Paddle 2.x program); dist_grad's meaning at a zero distance is a variant
its rule takes from the op's facts (NaN in a Fluid program, 0 in a Paddle 2.x one), never an attribute;
squared_l2_distance's refusal of Y of another width is its rule's, on every step."""

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_cross_entropy import _floats
from tests.kernels.test_structured_kernels import CASES, _filled_completely, _step

rng = np.random.default_rng(37)


def _fresh(op, ins, attrs, ctx):
    """A fresh variant's outputs: new C-contiguous arrays of the Meta's shapes and dtypes sharing no input's
    memory, the op's kernel's bits (told the same facts)."""
    structured = registry.get(op).structured
    meta, outs = structured.meta(attrs, ins, ctx), {}
    assert structured.cpu(ins, outs, dict(attrs), meta) is None and set(outs) == set(meta.outputs), op
    want = registry.get(op).kernel("cpu")(ins, dict(attrs), ctx)
    for slot, got in outs.items():
        assert got.shape == tuple(meta.outputs[slot][0]) and got.dtype == meta.outputs[slot][1], (op, slot)
        assert got.flags.c_contiguous and not any(np.shares_memory(got, v) for v in ins.values())
        assert got.tobytes() == np.asarray(want[slot]).tobytes(), (op, slot)
    return outs


def _computed(op, ins, attrs, ctx):
    """The op's out-kernel's outputs (new arrays of a fresh variant's Meta, or the sentinel buffers it was handed
    filled completely), the op's kernel's bits."""
    if registry.get(op).structured.meta(attrs, ins, ctx).fresh:
        return _fresh(op, ins, attrs, ctx)
    outs = _filled_completely(op, ins, attrs, ctx)
    want = registry.get(op).kernel("cpu")(ins, dict(attrs), ctx)
    assert all(outs[slot].tobytes() == np.asarray(want[slot]).tobytes() for slot in want), op
    return outs


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["similarity"], ids=[c.id for c in CASES["similarity"]])
def test_similarity_out_kernels_give_their_meta(case, dtype):
    """Every op case of the three ops (Y of one row, 3-D X, dist's p forms and broadcasts), forward and gradient,
    float64 and float32."""
    attrs, ins = _attrs_with_defaults(case), _floats(case, dtype)
    ctx = KernelContext(paddle2=case.paddle2, zero_dim=case.zero_dim)
    outs = _computed(case.op, ins, attrs, ctx)
    if case.grad:
        grad = registry.get(case.op + "_grad")
        given = dict(ins, **outs, **{"Out@GRAD": rng.uniform(-1, 1, size=outs["Out"].shape).astype(dtype)})
        gins = {s.name: given[s.name] for s in grad.inputs if s.name in given}
        _fresh(grad.type, gins, attrs, ctx)


@pytest.mark.parametrize("paddle2, want", [(False, "nan"), (True, 0.0)])
def test_dist_grad_at_a_zero_distance_is_the_programs_meaning(paddle2, want):
    """dist's gradient where X == Y, p = 2: NaN in a Fluid 1.8 program, 0 in a Paddle 2.x program (Paddle 2.6's
    p_norm_grad); the rule names the meaning from the op's facts, with nothing added to its attributes."""
    x = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    ctx = KernelContext(paddle2=paddle2, zero_dim=paddle2)
    fwd, grad = registry.get("dist"), registry.get("dist_grad")
    out = fwd.kernel("cpu")({"X": x, "Y": x.copy()}, {"p": 2.0}, ctx)["Out"]
    assert out.shape == (() if paddle2 else (1,)) and out.tobytes() == np.zeros_like(out).tobytes()
    gins = {"X": x, "Y": x.copy(), "Out": out, "Out@GRAD": np.ones(out.shape, np.float32)}
    attrs = {"p": 2.0}
    assert grad.structured.meta(attrs, gins, ctx).variant == ("paddle2" if paddle2 else "fluid")
    outs = _computed("dist_grad", gins, attrs, ctx)
    assert attrs == {"p": 2.0}
    for slot in ("X@GRAD", "Y@GRAD"):
        assert np.isnan(outs[slot]).all() if want == "nan" else (outs[slot] == 0).all()


def test_a_squared_l2_distance_step_decides_once_and_refuses_another_width():
    """squared_l2_distance's step runs its rule once per signature, gives the op's kernel's bits, and refuses Y of
    another width with the one line its kernel gave, on every run."""
    step = _step("squared_l2_distance", {"X": ["x"], "Y": ["y"]}, {"sub_result": ["s"], "Out": ["o"]})
    kernel = registry.get("squared_l2_distance").kernel("cpu")
    x = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    for y in (rng.uniform(-1, 1, (1, 3)).astype(np.float32),) * 2 + (x[::-1].copy(),):
        values = Values({"x": x, "y": y})
        run_step(step, values)
        want = kernel({"X": x, "Y": y}, {})
        assert values["o"].tobytes() == want["Out"].tobytes() and values["s"].tobytes() == want["sub_result"].tobytes()
    for _ in range(2):
        with pytest.raises(Exception, match=r"squared_l2_distance: Y \[4, 5\] must have the rows of X \[4, 3\]"):
            run_step(step, Values({"x": x, "y": np.ones((4, 5), np.float32)}))
