"""Paddle 2.6's own static Variable methods and operators (pe_cli/paddle/variable_methods.py):
``x.T``, ``clone``, ``detach``, ``size``, ``element_size``, ``get_value``/``set_value``, ``cpu``,
``place``, ``&``, ``|``, ``^``, ``~``, ``@``, ``**``, the in-place method names, and the
``paddle.tensor`` submodules Paddle's tests name (math, creation, random, stat) and paddle.pir."""

import warnings

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.dtypes import VarType
from tests.paddle.test_tensor import run

R = np.random.RandomState(5)
X = R.uniform(-2, 2, (2, 3, 4))
IA = R.randint(-100, 100, (3, 5)).astype("int32")
J = R.randint(-100, 100, (3, 5)).astype("int32")


def test_operators_and_methods_build_what_paddle_does():
    got = run(
        lambda x, a, b: [
            x.T,
            x.clone(),
            x.detach(),
            x.size(),
            a & b,
            a | b,
            a ^ b,
            ~a,
            paddle.reshape(x, [6, 4]) @ paddle.reshape(x, [4, 6]),
            2**x,
            x**2,
            x.ceil_(),
        ],
        X,
        IA,
        J,
    )
    want = [X.T, X, X, 24, IA & J, IA | J, IA ^ J, ~IA, X.reshape(6, 4) @ X.reshape(4, 6), 2**X, X**2, np.ceil(X)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_detach_stops_the_gradient_clone_passes_it():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3], "float64")
        x.stop_gradient = False
        detached, cloned = x.detach(), x.clone()
        assert detached.stop_gradient and not cloned.stop_gradient
        loss = paddle.sum(paddle.add(paddle.multiply(detached, x), cloned))
        (grad,) = paddle.static.gradients([loss], [x])
    (out,) = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"x": np.array([1.0, 2.0, 3.0])}, fetch_list=[grad]
    )
    np.testing.assert_allclose(out, [2.0, 3.0, 4.0])  # d(sum(stop(x) * x + x))/dx = x + 1


def test_element_size_get_value_set_value_place():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        assert [
            paddle.static.data(f"e{d}", [2], d).element_size() for d in ("bool", "int8", "float16", "int32", "float64")
        ] == [1, 1, 2, 4, 8]
        w = paddle.create_parameter([2, 3], "float32")
        x = paddle.static.data("x", [3], "float32")
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        paddle.static.Executor(paddle.CPUPlace()).run(startup)
        w.set_value(np.full((2, 3), 7.0, "float32"))
        np.testing.assert_array_equal(np.array(w.get_value()), np.full((2, 3), 7.0))
        with pytest.raises(ValueError, match="expected a shape"):
            w.set_value(np.zeros((3, 2), "float32"))
        with pytest.raises(
            TypeError, match=r"`value` should be `numpy\.ndarray` or `LoDTensor`, but received <class 'list'>\."
        ):
            w.set_value([1.0])
        with pytest.raises(ValueError, match="Can not find Variable"):
            x.get_value()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert x.place() is None
    assert "place" in str(caught[-1].message)


def test_detach_of_a_non_tensor_is_an_assertion_error():
    block = paddle.static.default_main_program().current_block()
    scopes = block.create_var(name="steps_for_detach", type=VarType.STEP_SCOPES)
    with pytest.raises(AssertionError, match="only support a variable with SELECTED_ROWS or LOD_TENSOR to be detached"):
        scopes.detach()


def test_paddle_tensor_submodules_and_pir():
    assert paddle.tensor.math.count_nonzero is paddle.count_nonzero
    assert paddle.tensor.math.nanmean is paddle.nanmean and paddle.tensor.math.frexp is paddle.frexp
    assert paddle.tensor.creation.zeros_like is paddle.zeros_like and paddle.tensor.random.rand is paddle.rand
    assert paddle.tensor.stat.std is paddle.std and paddle.tensor.count_nonzero is paddle.count_nonzero
    with paddle.static.program_guard(paddle.static.Program()):
        x = paddle.static.data("x", [2], "float32")
    assert not isinstance(x, (paddle.pir.OpResult, paddle.pir.Value))
    with pytest.raises(TypeError, match="no PIR programs"):
        paddle.pir.OpResult()
