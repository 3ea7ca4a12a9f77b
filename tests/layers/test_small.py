"""Small layers of seed 002's fluid.layers index built from existing ops, as Fluid 1.8 builds them:
``sum`` (the sum op), ``mse_loss`` (reduce_mean of square_error_cost) and ``clip_by_norm``; each
checked against numpy, and the loss's gradient against the formula."""

import numpy as np

import pe_cli.fluid as fluid


def _run(build, feed, extra_fetch=()):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        out, fetches = build()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        return exe.run(main, feed=feed, fetch_list=[out] + list(fetches)), main


def test_sum_adds_a_list_of_variables():
    a, b, c = (np.random.RandomState(i).rand(2, 3).astype("float32") for i in range(3))

    def build():
        xs = [fluid.layers.data(n, [3]) for n in "abc"]
        return fluid.layers.sum(xs), ()

    (out,), main = _run(build, {"a": a, "b": b, "c": c})
    np.testing.assert_allclose(out, a + b + c, rtol=1e-6)
    assert [op.type for op in main.global_block().ops] == ["sum"]


def test_mse_loss_and_its_gradient():
    x = np.random.RandomState(0).rand(4, 3).astype("float32")
    y = np.random.RandomState(1).rand(4, 3).astype("float32")

    def build():
        xv = fluid.layers.data("x", [3], stop_gradient=False)
        loss = fluid.layers.mse_loss(xv, fluid.layers.data("y", [3]))
        (grad,) = fluid.gradients([loss], [xv])
        return loss, (grad,)

    (loss, grad), main = _run(build, {"x": x, "y": y})
    assert loss.shape == (1,)
    np.testing.assert_allclose(loss[0], np.mean((x - y) ** 2), rtol=1e-6)
    np.testing.assert_allclose(grad, 2 * (x - y) / x.size, rtol=1e-5)


def test_clip_by_norm():
    big = np.array([[3.0, 4.0]], "float32")  # norm 5
    small = np.array([[0.3, 0.4]], "float32")  # norm 0.5

    def build():
        x = fluid.layers.data("x", [2])
        return fluid.layers.clip_by_norm(x, max_norm=1.0), ()

    (out,), _ = _run(build, {"x": big})
    np.testing.assert_allclose(out, big / 5.0, rtol=1e-6)
    (out,), _ = _run(build, {"x": small})
    np.testing.assert_array_equal(out, small)
