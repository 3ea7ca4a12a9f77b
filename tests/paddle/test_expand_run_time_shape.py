"""``paddle.expand`` / ``paddle.broadcast_to`` to a shape known at run time (one int Tensor, or a list holding
Tensors) build Paddle 2.6's expand_v2 with its Shape / expand_shapes_tensor input, and a -1 there keeps x's dim
as in Paddle 2.6.2 (issue 96: pe's own tile of shape // x's dims gave a zero-size output and exit 0). Paddle
2.6.2's values: tests/data/paddle_oracle/semantics26.json (the op cases expand_v2_shape*_keep*)."""

import numpy as np
import pytest

from pe_cli import fluid, paddle
from tests.ops.paddle26 import RECORDED, array


def _run(name, build):
    rec = RECORDED[name]
    x = array(rec["inputs"]["X"][0])
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        xv = fluid.data("x", list(x.shape), "float64")
        out, feed = build(xv, rec)
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x, **feed}, fetch_list=[out])
    assert [op.type for op in main.global_block().ops if op.type.startswith("expand")] == ["expand_v2"]
    return got, array(rec["outputs"]["Out"][0])


@pytest.mark.parametrize("name", ["expand_v2_shape_tensor_keep", "expand_v2_shape_tensor_keep_lead"])
@pytest.mark.parametrize("fn", [paddle.expand, paddle.broadcast_to])
def test_a_shape_tensor_with_minus_one_keeps_xs_dim(paddle2, name, fn):
    def build(x, rec):
        shape = array(rec["inputs"]["Shape"][0])
        s = fluid.data("s", list(shape.shape), str(shape.dtype))
        return fn(x, s), {"s": shape}

    got, want = _run(name, build)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_a_list_of_tensors_with_minus_one_keeps_xs_dim(paddle2):
    def build(x, rec):
        dims = [array(v) for v in rec["inputs"]["expand_shapes_tensor"]]
        vs = [fluid.data(f"d{i}", [1], "int32") for i in range(len(dims))]
        return paddle.expand(x, [vs[0], 4, vs[2]]), {f"d{i}": d for i, d in enumerate(dims)}

    got, want = _run("expand_v2_shapes_list_keep", build)
    assert got.shape == want.shape == (2, 4, 3)
    np.testing.assert_array_equal(got, want)
