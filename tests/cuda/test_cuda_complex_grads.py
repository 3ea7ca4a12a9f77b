"""The gradients of complex products take the conjugate of the other factor on both devices, as Paddle 2.6's:
dX = dOut * conj(Y) (elementwise_mul, dot, kron), dOut / conj(Y) (elementwise_div), dOut @ conj(Y)^T and
conj(X)^T @ dOut (matmul_v2, matmul, bmm, mul); abs of a complex X is |X|, its gradient dOut * X / |X|. The values of the ops Paddle runs on complex inputs were
recorded by tools/complex_grads_oracle.py (tests/data/paddle_oracle/complex_grads.json); the CUDA kernels
(numba's simulator) gave dOut * Y, a wrong gradient without a word, and abs compared a complex X with 0.
"""

import json
import os

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.fluid.op import Operator

DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "paddle_oracle", "complex_grads.json")
with open(DATA) as _f:
    CASES = json.load(_f)["cases"]
PLACES = {"cpu": fluid.CPUPlace, "cuda": lambda: fluid.CUDAPlace(0)}
GRADS = {"X@GRAD": "dx", "Y@GRAD": "dy"}


def _value(case, slot):
    real, imag = case["values"][slot]
    return (np.array(real) + 1j * np.array(imag)).astype(case["dtype"]).reshape(case["shapes"][slot])


def _run_grad(op_type, inputs, attrs, place):
    scope = fluid.core.Scope()
    names = {slot: slot.lower().replace("@", "_") for slot in inputs}
    for slot, value in inputs.items():
        scope.var(names[slot]).get_tensor().set(value, place)
    Operator(f"{op_type}_grad", **names, **GRADS, **attrs).run(scope, place)
    return {slot: np.array(scope.find_var(name).get_tensor()) for slot, name in GRADS.items()}


def _grad_op(case):
    """pe's grad op of the case's op and its attributes: matmul_v2's is matmul_grad (pe's program writes
    it with matmul's attributes)."""
    if case["op"] != "matmul_v2":
        return case["op"], case["attrs"]
    attrs = case["attrs"]
    return "matmul", {"transpose_X": attrs["trans_x"], "transpose_Y": attrs["trans_y"], "alpha": 1.0}


@pytest.mark.parametrize("device", sorted(PLACES))
@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.startswith("abs-")))
def test_complex_gradients_are_paddles(name, device):
    case = CASES[name]
    slots = ("X", "Y", "Out@GRAD") + (("Out",) if case["op"] == "elementwise_div" else ())
    op_type, attrs = _grad_op(case)
    got = _run_grad(op_type, {s: _value(case, s) for s in slots}, attrs, PLACES[device]())
    tol = 1e-5 if case["dtype"] == "complex64" else 1e-12
    for slot in GRADS:
        assert got[slot].dtype == np.dtype(case["dtype"])
        np.testing.assert_allclose(got[slot], _value(case, slot), rtol=tol, atol=tol, err_msg=f"{name} {slot}")


@pytest.mark.parametrize("device", sorted(PLACES))
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_abs_and_its_gradient_are_paddles(dtype, device):
    case, place = CASES[f"abs-{dtype}"], PLACES[device]()
    x, dout = _value(case, "X"), _value(case, "Out@GRAD").real  # (Paddle's Out and Out@GRAD are real)
    scope = fluid.core.Scope()
    scope.var("x").get_tensor().set(x, place)
    scope.var("d").get_tensor().set(dout, place)
    Operator("abs", X="x", Out="o").run(scope, place)
    Operator("abs_grad", X="x", **{"Out@GRAD": "d", "X@GRAD": "dx"}).run(scope, place)
    tol = 1e-5 if dtype == "complex64" else 1e-12
    np.testing.assert_allclose(np.array(scope.find_var("o").get_tensor()).real, _value(case, "Out").real, rtol=tol)
    got = np.array(scope.find_var("dx").get_tensor())
    np.testing.assert_allclose(got, _value(case, "X@GRAD"), rtol=tol, atol=tol)


def _complex(rng, shape, dtype):
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)


# ops Paddle 2.6 has no complex kernel for, which pe runs: the same rule, the same values on both devices
PRODUCTS = {
    "matmul": ((2, 3), (4, 3), (2, 4), {"transpose_X": False, "transpose_Y": True, "alpha": 1.0}),
    "bmm": ((2, 2, 3), (2, 3, 2), (2, 2, 2), {}),
    "mul": ((2, 3), (3, 2), (2, 2), {"x_num_col_dims": 1, "y_num_col_dims": 1}),
}


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("op_type", sorted(PRODUCTS))
def test_complex_product_gradients_conjugate_on_both_devices(op_type, dtype):
    xs, ys, outs, attrs = PRODUCTS[op_type]
    rng = np.random.RandomState(3)
    x, y, dout = _complex(rng, xs, dtype), _complex(rng, ys, dtype), _complex(rng, outs, dtype)
    yt = np.swapaxes(y, -1, -2) if attrs.get("transpose_Y") else y  # Out = X @ yt
    want = {"X@GRAD": dout @ np.conj(np.swapaxes(yt, -1, -2)), "Y@GRAD": np.swapaxes(np.conj(x), -1, -2) @ dout}
    if attrs.get("transpose_Y"):
        want["Y@GRAD"] = np.swapaxes(want["Y@GRAD"], -1, -2)
    tol = 1e-5 if dtype == "complex64" else 1e-12
    for device, place in PLACES.items():
        got = _run_grad(op_type, {"X": x, "Y": y, "Out@GRAD": dout}, attrs, place())
        for slot in GRADS:
            np.testing.assert_allclose(got[slot], want[slot], rtol=tol, atol=tol, err_msg=f"{device} {slot}")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_addmm_gradients_conjugate_on_both_devices(dtype):
    rng = np.random.RandomState(4)
    inp, x, y, dout = (_complex(rng, s, dtype) for s in ((2, 2), (2, 3), (3, 2), (2, 2)))
    want = {"X@GRAD": 2 * dout @ np.conj(y).T, "Y@GRAD": 2 * np.conj(x).T @ dout}
    tol = 1e-5 if dtype == "complex64" else 1e-12
    for device, place in PLACES.items():
        got = _run_grad("addmm", {"Input": inp, "X": x, "Y": y, "Out@GRAD": dout}, {"Alpha": 2.0, "Beta": 0.5}, place())
        for slot in GRADS:
            np.testing.assert_allclose(got[slot], want[slot], rtol=tol, atol=tol, err_msg=f"{device} {slot}")
