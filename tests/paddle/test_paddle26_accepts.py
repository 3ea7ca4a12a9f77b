"""Inputs Paddle 2.6.2 takes that pe's Paddle 2.x faces refused (issue 96, item 3; docs/COMPAT.md): the
comparisons of uint8, int8 and int16 tensors, ``paddle.split`` with a 0 section (an empty part); and where
Paddle 2.6.2 refuses (``paddle.arange`` of int8, ``paddle.norm(p=[2])``), pe refuses with Paddle's exception
class. Paddle's values: tests/data/paddle_oracle/semantics26.json (tools/paddle26_semantics_cases.py)."""

import numpy as np
import pytest

from pe_cli import fluid, paddle
from tests.ops.paddle26 import RECORDED, array

COMPARES = ("equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal")


def _run(build, feeds):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        ins = [paddle.static.data(n, list(v.shape), str(v.dtype)) for n, v in feeds.items()]
        outs = build(*ins)
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feeds, fetch_list=outs)


@pytest.mark.parametrize("dtype", ["int16", "int8", "uint8"])
@pytest.mark.parametrize("form", ["", "_broadcast"])
def test_compares_take_the_narrow_integers(paddle2, dtype, form):
    recs = [RECORDED[f"{op}_{dtype}{form}"] for op in COMPARES]
    x, y = array(recs[0]["inputs"]["X"][0]), array(recs[0]["inputs"]["Y"][0])
    assert x.dtype == dtype
    got = _run(lambda a, b: [getattr(paddle, op)(a, b) for op in COMPARES], {"x": x, "y": y})
    for op, rec, value in zip(COMPARES, recs, got):
        np.testing.assert_array_equal(value, array(rec["outputs"]["Out"][0]), err_msg=op)


@pytest.mark.parametrize("name,axis", [("split_zero_section", 0), ("split_zero_section_last", 1)])
def test_split_with_a_zero_section(paddle2, name, axis):
    rec = RECORDED[name]
    x = array(rec["inputs"]["X"][0])
    got = _run(lambda a: paddle.split(a, rec["attrs"]["sections"], axis), {"x": x})
    want = [array(v) for v in rec["outputs"]["Out"]]
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_what_paddle_refuses_raises_its_class(paddle2):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        with pytest.raises(TypeError, match="range: dtype int8"):
            paddle.arange(0, 5, 1, "int8")  # Paddle 2.6.2: TypeError
        x = paddle.static.data("x", [2, 2], "float64")
        with pytest.raises(ValueError, match=r"p=\[2\]"):
            paddle.norm(x, p=[2])  # Paddle 2.6.2: ValueError ("unspport p for p-order vector norm")


@pytest.mark.parametrize(
    "build, message",
    [  # Paddle 2.6.2's messages (test_unstack_op.py's TestUnstackZeroInputOp, test_spectral_norm_op.py's errors)
        (lambda x, w: paddle.unstack(x, axis=2), r"`axis` must be in the range \[-2, 2\)"),
        (lambda x, w: paddle.unstack(x, axis=-3), r"`axis` must be in the range \[-2, 2\)"),
        (lambda x, w: paddle.unstack(x, axis=1, num=4), r"`num` must be in the range \[0, 3\)"),
        (lambda x, w: paddle.static.nn.spectral_norm(w, dim=1382376303), r"`dim` must be 0 \(if weight in fc\)"),
        (lambda x, w: paddle.static.nn.spectral_norm(w, dim=-1), r"or 1 \(if weight in conv\), but received dim=-1"),
        (lambda x, w: paddle.static.nn.spectral_norm(w, dim=2), "but received dim=2"),
    ],
    ids=[
        "unstack_axis_2",
        "unstack_axis_-3",
        "unstack_num_4",
        "spectral_norm_dim_huge",
        "spectral_norm_dim_-1",
        "spectral_norm_dim_2",
    ],
)
def test_unstack_and_spectral_norm_refuse_as_paddle_does(paddle2, build, message):
    """An axis or dim out of range: Paddle 2.6.2's ValueError and message, where pe raised IndexError (tuple index
    out of range) or, for spectral_norm's dim -1 and 2 of a 3-D weight, built an op Paddle's InferMeta refuses."""
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        w = paddle.static.data("w", [2, 4, 3], "float32")
        with pytest.raises(ValueError, match=message):
            build(x, w)


def test_random_draws_of_shape_empty_are_0d(paddle2):
    """Paddle 2.6.2 draws one value of shape [] as a 0-D tensor (its ZeroDim op tests build inputs so);
    pe refused ("The size of 'shape' in uniform_random can't be zero"). A Fluid 1.8 program still refuses
    (tests/fluid/test_executor_data_behaviours.py)."""
    paddle.seed(3)
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        draws = [
            paddle.rand([]),
            paddle.randn([]),
            paddle.uniform([], min=2.0, max=3.0),
            paddle.normal(shape=[]),
            paddle.standard_normal([], dtype="float64"),
        ]
        x = paddle.static.data("x", [3], "float32")
        x.stop_gradient = False
        scale = paddle.rand([])
        (grad,) = paddle.static.gradients([paddle.sum(x * scale)], [x])
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": np.ones(3, "float32")}, fetch_list=[*draws, scale, grad]
    )
    assert [g.shape for g in got] == [()] * 6 + [(3,)]
    assert [g.dtype for g in got[:5]] == ["float32"] * 4 + ["float64"]
    assert 0 <= got[0] < 1 and 2 <= got[2] < 3
    np.testing.assert_array_equal(got[6], np.full(3, got[5]))
