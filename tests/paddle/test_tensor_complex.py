"""Complex tensors through pe's static programs (pe_cli/paddle/tensor_complex.py, ops/complex.py): fed and
fetched as numpy's complex64 / complex128, and the gradients of real losses of chains of the complex ops
(complex, as_complex, as_real, real, imag, angle, polar, conj) back to their real inputs equal float64
central finite differences. Paddle 2.6.2's values: tests/paddle/test_paddle_function_oracle.py."""

import numpy as np
import pytest

from pe_cli import paddle

rng = np.random.default_rng(765)
X, Y = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))

CHAINS = {
    "as_real_of_complex": lambda P, x, y: P.as_real(P.complex(x, y)),
    "real_and_imag": lambda P, x, y: P.real(P.complex(x, y)) * P.imag(P.complex(y, x)),
    "angle": lambda P, x, y: P.angle(P.complex(x, y)),
    "polar": lambda P, x, y: P.as_real(P.polar(P.abs(x) + 0.5, y)),
    "as_complex_then_conj": lambda P, x, y: P.as_real(P.conj(P.as_complex(P.stack([x, y], axis=-1)))) * x.unsqueeze(-1),
}


def _program(chain):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x, y = paddle.static.data("x", [2, 3], "float64"), paddle.static.data("y", [2, 3], "float64")
        x.stop_gradient = y.stop_gradient = False
        out = CHAINS[chain](paddle, x, y)
        loss = paddle.sum(out * out) * 0.5 + paddle.sum(out)
        grads = paddle.static.gradients([loss], [x, y])
    return main, loss, grads


@pytest.mark.parametrize("chain", list(CHAINS))
def test_gradients_through_complex_values_equal_finite_differences(chain):
    main, loss, grads = _program(chain)
    exe = paddle.static.Executor(paddle.CPUPlace())
    got = exe.run(main, feed={"x": X, "y": Y}, fetch_list=grads)
    value = lambda x, y: float(exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss])[0])  # noqa: E731
    for which, analytic in zip("xy", got):
        numeric = np.zeros_like(X)
        for idx in np.ndindex(X.shape):
            step = np.zeros_like(X)
            step[idx] = 1e-6
            plus = value(X + step, Y) if which == "x" else value(X, Y + step)
            minus = value(X - step, Y) if which == "x" else value(X, Y - step)
            numeric[idx] = (plus - minus) / 2e-6
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6, err_msg=f"{chain}: d/d{which}")


def test_complex_values_feed_and_fetch_as_numpy_complex():
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        z = paddle.static.data("z", [2], "complex64")
        parts = paddle.as_real(z)
        back = paddle.complex(paddle.real(z), paddle.imag(z) * 2.0)
    assert z.dtype == paddle.complex64 and parts.dtype == paddle.float32 and back.dtype == paddle.complex64
    feed = np.array([1 + 2j, -0.5 - 1j], np.complex64)
    got_parts, got_back = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"z": feed}, fetch_list=[parts, back]
    )
    np.testing.assert_array_equal(got_parts, [[1, 2], [-0.5, -1]])
    assert got_back.dtype == np.complex64
    np.testing.assert_array_equal(got_back, [1 + 4j, -0.5 - 2j])
