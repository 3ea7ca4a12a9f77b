# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_tril_triu_op.py @ 029e3ce2965d95fc654481f0dda8c3ce961238ae
# Re-written for pe (the same shapes, diagonals and failures; static graphs only, float32/float64
# where Paddle also tries float16), run with `pe fluid`.
import numpy as np

import paddle

paddle.enable_static()
place = paddle.CUDAPlace(0) if paddle.is_compiled_with_cuda() else paddle.CPUPlace()


def check_op(op_type, shape, diagonal):
    """The forward against numpy's tril/triu, and the gradient of sum(out * w): w on the triangle."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=list(shape), dtype="float64")
        x.stop_gradient = False
        w = paddle.static.data(name="w", shape=list(shape), dtype="float64")
        out = getattr(paddle, op_type)(x, diagonal=diagonal)
        loss = paddle.sum(paddle.multiply(out, w))
        (dx,) = paddle.static.gradients([loss], [x])
    data = np.random.random(shape)
    weights = np.random.random(shape)
    exe = paddle.static.Executor(place)
    got, grad = exe.run(main, feed={"x": data, "w": weights}, fetch_list=[out, dx])
    ref = getattr(np, op_type)
    np.testing.assert_allclose(got, ref(data, diagonal))
    np.testing.assert_allclose(grad, ref(weights, diagonal))


cases = {(2, 2, 3, 4, 5): [-100, -3, -1, 0, 2, 4, 100], (10, 10, 1, 1): [-100, -1, 0, 1, 100]}
for op_type in ("tril", "triu"):
    for shape, diagonals in cases.items():
        for diagonal in diagonals:
            check_op(op_type, shape, diagonal)


def check_failure(op_type, shape, diagonal, error, message):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=list(shape), dtype="float64")
        try:
            getattr(paddle, op_type)(x=x, diagonal=diagonal)
        except error as e:
            assert message.format(op_type) in str(e), str(e)
        else:
            raise AssertionError(f"{op_type}(diagonal={diagonal!r}) on {shape} did not raise")


for op_type in ("tril", "triu"):
    for bad in ("2020", [20], {20: 20}, (20, 20), 20.20):
        check_failure(op_type, (20, 20), bad, TypeError, "diagonal in {} must be a python Int")
    check_failure(op_type, (2020,), 0, ValueError, "x shape in {} must be at least 2-D")

# the API with a -1 dimension, on the default programs
for dtype in ("float32", "float64"):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        data = np.random.random([1, 9, 9, 4]).astype(dtype)
        x = paddle.static.data(shape=[1, 9, -1, 4], dtype=dtype, name="x")
        tril_out, triu_out = paddle.tril(x), paddle.triu(x)
        exe = paddle.static.Executor(place)
        tril_out, triu_out = exe.run(main, feed={"x": data}, fetch_list=[tril_out, triu_out])
        np.testing.assert_allclose(tril_out, np.tril(data), rtol=1e-05)
        np.testing.assert_allclose(triu_out, np.triu(data), rtol=1e-05)

print("ok")
