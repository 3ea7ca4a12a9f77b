"""paddle.einsum in static mode (the einsum op) equals numpy's einsum on dims unknown when the program
is built (ellipses broadcasting, implicit outputs), and trains: the gradient of a bilinear form
reaches both operands; paddle.static.data's dtype 'float' is numpy's float64, as in Paddle 2.x."""

import numpy as np
import pytest

from pe_cli import paddle

EQUATIONS = ["ibnd,jbnd->bnij", "...ik,...j", "...kj,...ik", "ijk...,ikj", "ijk...,ikj->...ij"]


def test_einsum_equals_numpy_on_unknown_dims():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        a = paddle.static.data("a", [3, None, None, None], "float")
        b = paddle.static.data("b", [2, None, None, None], "float")
        c = paddle.static.data("c", [None, None, 2, None], "float")
        d = paddle.static.data("d", [None, None, 5], "float")
        e = paddle.static.data("e", [None, 2, None], "float")
        assert a.dtype == "float64"
        pairs = [(a, b), (c, d), (d, e), (c, e), (c, e)]
        outs = [paddle.einsum(eq, x, y) for eq, (x, y) in zip(EQUATIONS, pairs)]
    feeds = {
        "a": np.arange(72.0).reshape(3, 2, 3, 4),
        "b": np.arange(48.0).reshape(2, 2, 3, 4),
        "c": np.arange(48.0).reshape(2, 3, 2, 4),
        "d": np.arange(30.0).reshape(2, 3, 5),
        "e": np.arange(12.0).reshape(2, 2, 3),
    }
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feeds, fetch_list=outs)
    names = [("a", "b"), ("c", "d"), ("d", "e"), ("c", "e"), ("c", "e")]
    for out, eq, (x, y) in zip(got, EQUATIONS, names):
        np.testing.assert_allclose(out, np.einsum(eq, feeds[x], feeds[y]))


def test_einsum_gradients_reach_every_operand_and_bad_equations_are_errors():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [2, 3], "float64")
        w = paddle.create_parameter([3, 4], "float64", name="w_einsum")
        y = paddle.static.data("y", [2, 4], "float64")
        x.stop_gradient = False
        loss = paddle.sum(paddle.einsum("bi,ij,bj->b", x, w, y))
        gx, gw = paddle.static.gradients([loss], [x, w])
        with pytest.raises(ValueError, match="does not fit"):
            paddle.einsum("ij,jk->ik", x, paddle.unsqueeze(y, [0]))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(start)
    xv, yv = np.random.RandomState(0).rand(2, 3), np.random.RandomState(1).rand(2, 4)
    gxv, gwv, wv = exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[gx, gw, w])
    # summed in another order than numpy's: rounding of the terms' size, not the sum's (w is drawn
    # afresh each run, and a sum of terms that cancel can be ~1e-6 of them)
    np.testing.assert_allclose(gxv, yv @ wv.T, rtol=0, atol=1e-14 * np.abs(yv).sum() * np.abs(wv).max())
    np.testing.assert_allclose(gwv, xv.T @ yv, rtol=0, atol=1e-14 * np.abs(xv).sum() * np.abs(yv).max())


def test_einsum_of_an_empty_operand_is_empty_and_its_gradient_too():
    """A label of a dim of 0 has size 0 (not 1, as a dim of 1 that broadcasts): Out [0, 5] from [0, 4] and [4, 5],
    and the gradients of the operands of their shapes (zeros where a contracted label is empty)."""
    from pe_cli.ops import registry

    fwd, grad = registry.get("einsum").kernel("cpu"), registry.get("einsum_grad").kernel("cpu")
    for a, b, out in (((0, 4), (4, 5), (0, 5)), ((3, 0), (0, 5), (3, 5))):
        ops = [np.ones(a), np.ones(b)]
        got = fwd({"Operands": ops}, {"equation": "ij,jk->ik"})["Out"]
        assert got.shape == out and not got.any()
        grads = grad({"Operands": ops, "Out@GRAD": np.ones(out)}, {"equation": "ij,jk->ik"})["Operands@GRAD"]
        assert [g.shape for g in grads] == [a, b] and not any(g.any() for g in grads)
